/**
 * The console in a real browser: Debian's Chromium driven by playwright-core against a test
 * pipeline whose upstream checks are scripted. Log in, create a Postgres connection and source
 * through the SQL box, watch the source go running, make its upstream fail, and see it stalled
 * with the error in its history timeline. Chromium missing is a failure, not a skip: install it
 * with `apt-get install -y chromium` (.ci/run does).
 */
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { ScriptedProber } from '../../shared/probes/fake';
import { eventually, sqlClient, testPipeline, type SqlClient } from '../helpers/pipeline';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOT = join(dirname(fileURLToPath(import.meta.url)), '__screenshots__', 'timeline.png');
const UPSTREAM = 'pg.console.test';

const prober = new ScriptedProber();
let p: Pipeline;
let sql: SqlClient;
let password: string;
let profile: string;
let browser: BrowserContext | undefined;
let page: Page;
/** Why Chromium could not start: every test fails with it (counted as failed, never skipped). */
let launchError: Error | undefined;

async function launch(): Promise<BrowserContext> {
  profile = mkdtempSync(join(tmpdir(), 'ddl-console-chromium-'));
  try {
    // launchPersistentContext is how Playwright takes a --user-data-dir: a fresh one per run.
    return await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1180, height: 720 },
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  } catch (err) {
    throw new Error(
      `cannot launch Chromium at ${CHROMIUM} (set CHROMIUM_PATH to use another): ${(err as Error).message.split('\n')[0]}\n` +
        'Install it with: sudo apt-get install -y chromium   (the console test needs a browser; it does not skip)',
    );
  }
}

async function settled(): Promise<void> {
  await eventually(async () => (await sql("SELECT effect_id FROM mz_internal.mz_pending_effects WHERE state = 'pending'")).body.results[0].rows.length === 0, 15_000);
}

/** Waits for what the page shows: the views poll every 2 s, so a change shows within a few seconds. */
const poll = <T>(f: () => Promise<T>) => expect.poll(f, { timeout: 10_000, interval: 100 });

/** The badge of a source or sink in the objects list. */
const badgeOf = (name: string) => page.locator(`ul.objects li[data-name="${name}"] .badge`);

beforeAll(async () => {
  p = await testPipeline('console', { prober });
  ({ sql, password } = await sqlClient(p));
  try {
    browser = await launch();
  } catch (err) {
    launchError = err as Error;
    return;
  }
  page = browser.pages()[0] ?? (await browser.newPage());
  page.setDefaultTimeout(15_000);
});
beforeEach(() => {
  if (launchError) throw launchError;
});
afterAll(async () => {
  await browser?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
  await p?.stop();
});

describe('console', () => {
  it('refuses a wrong app password and signs in with the right one', async () => {
    await page.goto(`${p.url}/`);
    await poll(() => page.locator('#api-url').inputValue()).toBe(p.url);
    await page.fill('#password', 'ddlp_not-a-password');
    await page.click('#login');
    await poll(() => page.locator('#login-error').textContent()).toContain('refused this app password');

    await page.fill('#password', password);
    await page.click('#login');
    await page.waitForSelector('#tab-objects.active');
    expect(await page.locator('header .conn').textContent()).toBe(p.url);
  });

  it('runs DDL in the SQL box and draws a caret under an error in multi-byte text', async () => {
    await page.click('#tab-sql');
    await page.fill(
      '#sql-input',
      [
        "CREATE CLUSTER c (SIZE = '25cc');",
        "CREATE SECRET pgpass AS 'hunter2';",
        `CREATE CONNECTION pg TO POSTGRES (HOST '${UPSTREAM}', USER 'u', PASSWORD SECRET pgpass, DATABASE 'shop');`,
        "CREATE SOURCE shop IN CLUSTER c FROM POSTGRES CONNECTION pg (PUBLICATION 'mz_source') FOR TABLES (public.orders AS orders);",
      ].join('\n'),
    );
    await page.click('#sql-run');
    await poll(() => page.locator('#sql-results .ok-tag').allTextContents()).toEqual(['CREATE CLUSTER', 'CREATE SECRET', 'CREATE CONNECTION', 'CREATE SOURCE']);

    const bad = "CREATE CLUSTER ünïcødé (SIZE = '25cc') FROBNICATE";
    await page.fill('#sql-input', bad);
    await page.keyboard.press('Control+Enter');
    await page.waitForSelector('#sql-results .sql-error');
    expect(await page.locator('#sql-results .error-head').textContent()).toMatch(/FROBNICATE.*SQLSTATE 42601/);
    expect((await page.locator('#sql-results pre.caret').textContent())!.split('\n')).toEqual([`LINE 1: ${bad}`, `${' '.repeat('LINE 1: '.length + bad.indexOf('FROBNICATE'))}^`]);
  });

  it('shows the source running, then stalled with the upstream error in its timeline', async () => {
    await settled();
    await p.reportHealth();
    await page.click('#tab-objects');
    // Badges follow the status tables: the view polls every 2 s.
    await poll(() => badgeOf('shop').textContent()).toBe('running');
    expect(await page.locator('section.card h2', { hasText: 'Connections' }).textContent()).toContain('1');

    prober.set(UPSTREAM, {
      ok: false,
      namespace: 'postgres',
      error: 'error connecting to server: Connection refused (os error 111)',
      hint: 'Check that the database accepts connections from the control plane.',
    });
    await p.reportHealth();
    await poll(() => badgeOf('shop').textContent()).toBe('stalled');
    expect(await page.locator('ul.objects li[data-name="shop"] .error-line').textContent()).toBe('postgres: error connecting to server: Connection refused (os error 111)');

    await page.click('ul.objects li[data-name="shop"] a');
    const timeline = page.locator('#timeline');
    await poll(() => timeline.locator('ol.timeline li .badge').allTextContents()).toEqual(['stalled', 'running', 'starting', 'created']);
    const latest = timeline.locator('ol.timeline li').first();
    expect(await latest.locator('.error-line').textContent()).toBe('postgres: error connecting to server: Connection refused (os error 111)');
    expect(await latest.locator('ul.details').textContent()).toContain('hint Check that the database accepts connections from the control plane.');
    expect(await timeline.locator('h2').textContent()).toBe('source shopstalled');

    mkdirSync(dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT });
    expect(statSync(SCREENSHOT).size).toBeLessThan(300_000);
  });

  it('shows pending effects and the DLQ, and replica health', async () => {
    await page.click('#tab-effects');
    await poll(() => page.locator('#effects-pending').textContent()).toContain('Nothing pending');
    expect(await page.locator('#effects-dlq').textContent()).toContain('The dead-letter queues are empty.');

    await page.click('#tab-replicas');
    await poll(() => page.locator('main table.grid tbody tr').allTextContents()).toEqual([expect.stringMatching(/^r125cconline/)]);
    expect(await page.locator('main h2').first().textContent()).toBe('cluster c1');
  });

  it('signs out back to the login box', async () => {
    await page.click('header button.link');
    await page.waitForSelector('#password');
    expect(await page.evaluate('sessionStorage.length')).toBe(0);
  });
});
