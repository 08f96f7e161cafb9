/**
 * `npm ci` installs without EBADENGINE warnings on every Node the project says it supports:
 * each locked package's `engines.node` admits the lowest Node of package.json's `engines` and the
 * one running the tests, and the README and the quickstart name that same lowest Node.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const semver = createRequire(import.meta.url)('semver') as {
  minVersion(range: string): { version: string } | null;
  satisfies(version: string, range: string): boolean;
};

interface Lock {
  packages: Record<string, { engines?: Record<string, string> | string[]; optional?: boolean; os?: string[]; cpu?: string[] }>;
}

describe('supported Node versions', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
  const lowest = semver.minVersion(pkg.engines.node)!.version;

  it('every locked package accepts the lowest supported Node and the current one', () => {
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as Lock;
    const refused: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      const range = !entry.engines || Array.isArray(entry.engines) ? undefined : entry.engines.node;
      if (!path || !range) continue;
      for (const v of [lowest, process.versions.node]) if (!semver.satisfies(v, range)) refused.push(`${path} needs node ${range}, not ${v}`);
    }
    expect(refused).toEqual([]);
  });

  it('the README and the quickstart name the same lowest Node as package.json', () => {
    const shown = lowest.replace(/\.0$/, '');
    for (const doc of ['README.md', 'docs/quickstart.md']) expect(readFileSync(join(ROOT, doc), 'utf8'), doc).toContain(`Node.js ≥ ${shown} `);
  });
});
