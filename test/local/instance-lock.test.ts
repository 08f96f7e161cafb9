/** The data folder's lock (local/runtime-info.ts): one live holder; a dead holder's lock is taken over. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireDataDirLock, DataDirInUseError, lockFile } from '../../local/runtime-info';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'lock-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The pid of a process that has exited (so no process has it, short of pid reuse). */
function deadPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString());
}

describe('the data folder lock', () => {
  it('refuses a second holder while the first is alive, naming its pid', () => {
    const first = acquireDataDirLock(dir, process.pid);
    expect(() => acquireDataDirLock(dir, process.pid + 1)).toThrow(DataDirInUseError);
    expect(() => acquireDataDirLock(dir, process.pid + 1)).toThrow(`(pid ${process.pid}) is already using the data folder ${dir}`);
    first.release();
    expect(existsSync(lockFile(dir))).toBe(false);
    acquireDataDirLock(dir, process.pid + 1).release();
  });

  it('takes over the lock of a process that died without releasing it', () => {
    const dead = deadPid();
    writeFileSync(lockFile(dir), `${dead}\n`);
    const lock = acquireDataDirLock(dir, process.pid);
    expect(readFileSync(lockFile(dir), 'utf8').trim()).toBe(String(process.pid));
    lock.release();
  });

  it('release leaves a lock that another process took over alone', () => {
    const lock = acquireDataDirLock(dir, process.pid);
    writeFileSync(lockFile(dir), '1\n');
    lock.release();
    expect(readFileSync(lockFile(dir), 'utf8').trim()).toBe('1');
  });
});
