// The SQL engine opens its prebuilt template in memory (shared/pglite/host.ts): what it reads of it.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exportTemplate, shippedTemplate, templateReader, type TemplateFs } from '../../shared/pglite/host';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A template's shape: cluster-wide files, three databases, the build's own marker files. */
function template(withOid: boolean): string {
  const dir = mkdtempSync(join(tmpdir(), 'template-reader-'));
  dirs.push(dir);
  for (const d of ['base/1', 'base/4', 'base/5', 'global', 'pg_wal/archive_status']) mkdirSync(join(dir, d), { recursive: true });
  writeFileSync(join(dir, 'PG_VERSION'), '17\n');
  writeFileSync(join(dir, 'base/1/1259'), 'template1');
  writeFileSync(join(dir, 'base/4/1259'), 'template0');
  writeFileSync(join(dir, 'base/5/1259'), 'postgres');
  writeFileSync(join(dir, 'global/pg_control'), 'control');
  writeFileSync(join(dir, '.complete'), 'now\n');
  if (withOid) writeFileSync(join(dir, '.database-oid'), '5\n');
  return dir;
}

function fakeFs(): TemplateFs & { dirs: Set<string>; files: Map<string, string> } {
  const dirs = new Set<string>();
  const files = new Map<string, string>();
  return { dirs, files, mkdirTree: (p) => void dirs.add(p), writeFile: (p, data) => void files.set(p, Buffer.from(data).toString()) };
}

describe('templateReader', () => {
  it("reads the cluster-wide files and the engine's database, leaves the other databases' folders empty and the build's markers out", () => {
    const fs = fakeFs();
    templateReader(template(true))(fs, '/pglite/data');
    expect(Object.fromEntries(fs.files)).toEqual({ '/pglite/data/PG_VERSION': '17\n', '/pglite/data/base/5/1259': 'postgres', '/pglite/data/global/pg_control': 'control' });
    expect([...fs.dirs]).toEqual(expect.arrayContaining(['/pglite/data/base/1', '/pglite/data/base/4', '/pglite/data/base/5', '/pglite/data/pg_wal/archive_status']));
  });

  it('reads a template without its database named (an older build, or one shipped so) whole', () => {
    const fs = fakeFs();
    templateReader(template(false))(fs, '/pglite/data');
    expect([...fs.files.keys()].sort()).toEqual(['/pglite/data/PG_VERSION', '/pglite/data/base/1/1259', '/pglite/data/base/4/1259', '/pglite/data/base/5/1259', '/pglite/data/global/pg_control']);
  });
});

describe('exportTemplate and shippedTemplate', () => {
  const dest = () => {
    const d = mkdtempSync(join(tmpdir(), 'template-export-'));
    dirs.push(d);
    return join(d, 'pglite-template');
  };

  it("ships what an engine reads (the engine's database, not template0/template1), with its notes and its schema's key", () => {
    // Prepare
    const to = dest();
    mkdirSync(join(to, 'stale'), { recursive: true });

    // Act
    exportTemplate(template(true), to, 'CREATE TABLE a ();');

    // Assess
    const files = (readdirSync(to, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[]).filter((d) => d.isFile()).map((d) => join(d.parentPath, d.name).slice(to.length + 1));
    expect(files.sort()).toEqual(['.database-oid', '.schema-key', 'PG_VERSION', 'base/5/1259', 'global/pg_control']);
    expect(readdirSync(join(to, 'base')).sort()).toEqual(['1', '4', '5']);
    expect(existsSync(join(to, 'stale'))).toBe(false);
    expect(shippedTemplate('CREATE TABLE a ();', to)).toBe(to);
    // What the engine then reads of it is what it read of the template.
    const fs = fakeFs();
    templateReader(to)(fs, '/d');
    expect(Object.fromEntries(fs.files)).toEqual({ '/d/PG_VERSION': '17\n', '/d/base/5/1259': 'postgres', '/d/global/pg_control': 'control' });
  });

  it('is not used for another schema, nor when absent or unmarked', () => {
    // Prepare
    const to = dest();
    exportTemplate(template(true), to, 'CREATE TABLE a ();');
    const unmarked = dest();
    mkdirSync(unmarked);

    // Act / Assess
    expect(shippedTemplate('CREATE TABLE b ();', to)).toBeUndefined();
    expect(shippedTemplate('CREATE TABLE a ();', join(to, 'missing'))).toBeUndefined();
    expect(shippedTemplate('CREATE TABLE a ();', unmarked)).toBeUndefined();
    expect(readFileSync(join(to, '.schema-key'), 'utf8')).toMatch(/^[0-9a-f]{16}\n$/);
  });
});
