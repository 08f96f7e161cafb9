/** `npm test`'s pretest check (test/setup/prerequisites.ts), run as npm runs it, on a PATH we control. */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SCRIPT = join(ROOT, 'test/setup/prerequisites.ts');
const TSX = pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;

let bin: string;
beforeEach(() => {
  bin = mkdtempSync(join(tmpdir(), 'prereq-'));
  symlinkSync(process.execPath, join(bin, 'node'));
});
afterEach(() => rmSync(bin, { recursive: true, force: true }));

function check(env: Record<string, string>) {
  const r = spawnSync(process.execPath, ['--import', TSX, SCRIPT], { env: { PATH: bin, ...env }, encoding: 'utf8' });
  return { code: r.status, stderr: r.stderr };
}

function fakeJava(version: string): void {
  writeFileSync(join(bin, 'java'), `#!/bin/sh\necho 'openjdk version "${version}" 2025-04-15' >&2\n`);
  chmodSync(join(bin, 'java'), 0o755);
}

describe('npm test prerequisites', () => {
  it('names what is missing and prints the one command that installs it', () => {
    const r = check({ CHROMIUM_PATH: join(bin, 'no-chromium') });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('npm test needs Java 17+ (not found on PATH) and Chromium');
    expect(r.stderr).toContain('sudo apt-get install -y openjdk-17-jre-headless chromium');
  });

  it('refuses a Java older than 17, and passes when both are there', () => {
    fakeJava('11.0.2');
    writeFileSync(join(bin, 'chromium'), '#!/bin/sh\n');
    chmodSync(join(bin, 'chromium'), 0o755);
    const old = check({ CHROMIUM_PATH: join(bin, 'chromium') });
    expect(old.code).toBe(1);
    expect(old.stderr).toContain('npm test needs Java 17+ (found Java 11).');
    expect(old.stderr).toContain('sudo apt-get install -y openjdk-17-jre-headless ');
    fakeJava('17.0.15');
    expect(check({ CHROMIUM_PATH: join(bin, 'chromium') })).toEqual({ code: 0, stderr: '' });
  });

  it('runs before the suite', async () => {
    const pkg = (await import('../../package.json', { with: { type: 'json' } })).default as { scripts: Record<string, string> };
    expect(pkg.scripts.pretest).toBe('tsx test/setup/prerequisites.ts');
  });
});
