// The SQL engine opens its prebuilt template in memory (shared/pglite/host.ts): what it reads of it.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { templateReader, type TemplateFs } from '../../shared/pglite/host';

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
