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

function fakeProgram(name: string): string {
  writeFileSync(join(bin, name), '#!/bin/sh\n');
  chmodSync(join(bin, name), 0o755);
  return join(bin, name);
}

describe('npm test prerequisites', () => {
  it('names what is missing and prints the one command that installs it', () => {
    const r = check({ CHROMIUM_PATH: join(bin, 'no-chromium'), MARIADBD_PATH: join(bin, 'no-mariadbd') });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `npm test needs Java 17+ (not found on PATH), Chromium (not at ${join(bin, 'no-chromium')}; CHROMIUM_PATH names another), MariaDB's server (not at ${join(bin, 'no-mariadbd')}), ` +
        "curl (not on PATH; the README's sql() helper uses it), jq (not on PATH; the README's sql() helper uses it) and openssl (not on PATH; the pgwire TLS tests make certificates with it).",
    );
    expect(r.stderr).toContain('sudo apt-get install -y openjdk-17-jre-headless chromium mariadb-server curl jq openssl');
    expect(r.stderr).toContain('brew install openjdk@17 && brew install --cask chromium && brew install mariadb && brew install curl && brew install jq && brew install openssl');
  });

  it('asks for mariadb-server alone when only MariaDB is missing', () => {
    fakeJava('17.0.15');
    fakeProgram('curl');
    fakeProgram('openssl');
    fakeProgram('jq');
    const r = check({ CHROMIUM_PATH: fakeProgram('chromium'), MARIADBD_PATH: join(bin, 'gone') });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("npm test needs MariaDB's server (not at");
    expect(r.stderr).toMatch(/sudo apt-get install -y mariadb-server +# Debian/);
  });

  it('asks for jq alone when only jq is missing (the README tour test needs it)', () => {
    fakeJava('17.0.15');
    fakeProgram('curl');
    fakeProgram('openssl');
    const r = check({ CHROMIUM_PATH: fakeProgram('chromium'), MARIADBD_PATH: fakeProgram('mariadbd') });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("npm test needs jq (not on PATH; the README's sql() helper uses it).");
    expect(r.stderr).toMatch(/sudo apt-get install -y jq +# Debian/);
  });

  it('refuses a Java older than 17, and passes when everything is there', () => {
    fakeJava('11.0.2');
    fakeProgram('curl');
    fakeProgram('openssl');
    fakeProgram('jq');
    const present = { CHROMIUM_PATH: fakeProgram('chromium'), MARIADBD_PATH: fakeProgram('mariadbd') };
    const old = check(present);
    expect(old.code).toBe(1);
    expect(old.stderr).toContain('npm test needs Java 17+ (found Java 11).');
    expect(old.stderr).toContain('sudo apt-get install -y openjdk-17-jre-headless ');
    fakeJava('17.0.15');
    expect(check(present)).toEqual({ code: 0, stderr: '' });
  });

  it('runs before the suite', async () => {
    const pkg = (await import('../../package.json', { with: { type: 'json' } })).default as { scripts: Record<string, string> };
    expect(pkg.scripts.pretest).toBe('tsx test/setup/prerequisites.ts');
  });
});
