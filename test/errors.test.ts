import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as errors from '../shared/errors';

const SHARED = join(dirname(fileURLToPath(import.meta.url)), '..', 'shared');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

describe('error classes', () => {
  it("are defined in shared/errors.ts only, and Materialize's kinds (one PlanError class keyed by kind) in shared/mz-errors.ts", () => {
    const elsewhere = sources(SHARED)
      .filter((f) => !f.endsWith(join('shared', 'errors.ts')) && !f.endsWith(join('shared', 'mz-errors.ts')))
      .flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/class (\w+) extends (\w*Error\w*|RetryLater|StagedConflict)\b/g)].map((m) => `${relative(SHARED, f)}: ${m[1]}`));
    expect(elsewhere).toEqual([]);
  });

  it('all extend the base error and set a name of their own', () => {
    const classes = Object.entries(errors as Record<string, unknown>).filter((e): e is [string, { prototype: object }] => typeof e[1] === 'function');
    expect(classes.length).toBeGreaterThan(10);
    for (const [name, cls] of classes) {
      expect(cls === errors.DdlError || cls.prototype instanceof errors.DdlError, name).toBe(true);
      expect(readFileSync(join(SHARED, 'errors.ts'), 'utf8'), name).toContain(`this.name = '${name}'`);
    }
  });

  it('carry their cause', () => {
    const cause = new Error('socket closed');
    expect(new errors.DataPlaneError('unreachable', true, { cause }).cause).toBe(cause);
    expect(new errors.PlanError('bad', { code: errors.SQLSTATE.syntaxError, cause }).cause).toBe(cause);
    expect(new errors.PlanError('bad', { code: errors.SQLSTATE.syntaxError })).not.toHaveProperty('cause');
  });
});
