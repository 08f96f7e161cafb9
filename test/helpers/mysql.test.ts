/** The MariaDB test helper (test/helpers/mysql.ts) refuses at once, with the install command, when the server is not installed. */
import { afterEach, describe, expect, it } from 'vitest';
import { MariaDbMissingError, startMariaDb } from './mysql';

const saved = process.env.MARIADBD_PATH;
afterEach(() => {
  if (saved === undefined) delete process.env.MARIADBD_PATH;
  else process.env.MARIADBD_PATH = saved;
});

describe('startMariaDb', () => {
  it('fails before starting anything when mariadbd is missing, naming the one command that installs it', async () => {
    process.env.MARIADBD_PATH = '/nonexistent/mariadbd';
    const err = await startMariaDb().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MariaDbMissingError);
    expect((err as Error).message).toContain("MariaDB's server is not at /nonexistent/mariadbd");
    expect((err as Error).message).toContain('sudo apt-get install -y mariadb-server');
  });
});
