/**
 * The console in a real browser: Debian's Chromium driven by playwright-core against a test
 * pipeline whose upstream checks are scripted. Log in, create a Postgres connection and source
 * through the SQL box and some sixty objects beside them, watch the source go running, make its
 * upstream fail, and see it stalled with the error in its history timeline; filter the list and
 * open the detail of a source, a materialized view and a cluster; see a replica's availability
 * zone in its own column, its id beside its name, and a cluster's reconfiguration under way in the replicas table.
 * Chromium missing is a failure, not a skip: install it with `apt-get install -y chromium`
 * (.ci/run does).
 */
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { ScriptedProber } from '../../shared/probes/fake';
import { budget } from '../helpers/budget';
import { eventually, sqlClient, testPipeline, type SqlClient } from '../helpers/pipeline';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/**
 * The timeline's screenshot: docs/quickstart.md shows the one checked in, which a run replaces only
 * with UPDATE_SCREENSHOTS=1 (otherwise every run would leave the checkout changed).
 */
const SCREENSHOT = process.env.UPDATE_SCREENSHOTS === '1' ? join(dirname(fileURLToPath(import.meta.url)), '__screenshots__', 'timeline.png') : join(tmpdir(), `ddl-console-timeline-${process.pid}.png`);
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

/** Waits for what the page shows: the views poll every 2 s, so a change shows within a few seconds (longer on a loaded machine). */
const poll = <T>(f: () => Promise<T>) => expect.poll(f, { timeout: budget(10_000), interval: 100 });

/** The badge of an object in the objects list. */
const badgeOf = (name: string) => page.locator(`ul.objects li[data-name="${name}"] .badge`);
/** The names the objects list shows, in order. */
const listed = () => page.locator('ul.objects li').evaluateAll((els) => els.map((e) => e.getAttribute('data-name')));
/** Waits for the next poll to have redrawn the page. */
async function nextPoll(): Promise<void> {
  const before = await page.locator('main').getAttribute('data-loaded-at');
  await poll(() => page.locator('main').getAttribute('data-loaded-at')).not.toBe(before);
}

/** Some sixty objects in two schemas, on two clusters, most of them reading the source's orders. */
function manyObjects(): string[] {
  const tables = ['customers', 'products', 'payments', 'shipments', 'returns', 'refunds', 'invoices', 'carts', 'coupons', 'reviews', 'warehouses', 'suppliers'];
  const events = ['events', 'sessions', 'pageviews', 'clicks', 'searches', 'signups', 'devices', 'campaigns', 'referrers', 'experiments'];
  return [
    "CREATE CLUSTER analytics_c (SIZE = '50cc', REPLICATION FACTOR = 2)",
    'CREATE SCHEMA analytics',
    ...tables.map((t) => `CREATE TABLE ${t} (id bigint NOT NULL, note text)`),
    ...tables.slice(0, 6).map((t) => `CREATE INDEX ${t}_id_idx IN CLUSTER c ON ${t} (id)`),
    'CREATE VIEW big_orders AS SELECT * FROM orders',
    'CREATE VIEW orders_with_customers AS SELECT * FROM orders JOIN customers ON true',
    'CREATE VIEW paid_orders AS SELECT * FROM orders JOIN payments ON true',
    'CREATE VIEW open_carts AS SELECT * FROM carts',
    'CREATE VIEW product_reviews AS SELECT * FROM products JOIN reviews ON true',
    'CREATE VIEW late_shipments AS SELECT * FROM shipments',
    'CREATE VIEW customer_reviews AS SELECT * FROM reviews JOIN customers ON true',
    'CREATE VIEW supplier_products AS SELECT * FROM suppliers JOIN products ON true',
    'CREATE MATERIALIZED VIEW order_counts IN CLUSTER c AS SELECT count(*) FROM orders',
    'CREATE MATERIALIZED VIEW revenue IN CLUSTER c AS SELECT count(*) FROM paid_orders',
    'CREATE MATERIALIZED VIEW revenue_by_customer IN CLUSTER c AS SELECT count(*) FROM orders_with_customers',
    'CREATE MATERIALIZED VIEW stock_levels IN CLUSTER c AS SELECT count(*) FROM products JOIN warehouses ON true',
    'CREATE INDEX order_counts_idx IN CLUSTER c ON order_counts (count)',
    'CREATE INDEX revenue_idx IN CLUSTER c ON revenue (count)',
    ...events.map((t) => `CREATE TABLE analytics.${t} (at timestamptz, body jsonb)`),
    'CREATE VIEW analytics.daily_sessions AS SELECT * FROM analytics.sessions',
    'CREATE VIEW analytics.funnel AS SELECT * FROM analytics.pageviews JOIN analytics.signups ON true',
    'CREATE VIEW analytics.search_terms AS SELECT * FROM analytics.searches',
    'CREATE VIEW analytics.campaign_signups AS SELECT * FROM analytics.campaigns JOIN analytics.signups ON true',
    'CREATE VIEW analytics.experiment_devices AS SELECT * FROM analytics.experiments JOIN analytics.devices ON true',
    'CREATE INDEX events_at_idx IN CLUSTER analytics_c ON analytics.events (at)',
    'CREATE INDEX sessions_at_idx IN CLUSTER analytics_c ON analytics.sessions (at)',
    'CREATE MATERIALIZED VIEW analytics.click_counts IN CLUSTER analytics_c AS SELECT count(*) FROM analytics.clicks',
    'CREATE MATERIALIZED VIEW analytics.conversion IN CLUSTER analytics_c AS SELECT count(*) FROM analytics.funnel',
    'CREATE INDEX click_counts_idx IN CLUSTER analytics_c ON analytics.click_counts (count)',
    "CREATE CONNECTION kafka_conn TO KAFKA (BROKER 'broker.console.test:9092', SECURITY PROTOCOL = 'PLAINTEXT')",
    "CREATE SINK revenue_out IN CLUSTER c FROM revenue INTO KAFKA CONNECTION kafka_conn (TOPIC 'revenue') FORMAT JSON ENVELOPE DEBEZIUM",
  ];
}

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
  page.setDefaultTimeout(budget(15_000));
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
    // The note shows code as code, not as Markdown backticks.
    expect(await page.locator('.login p.muted').textContent()).not.toContain('`');
    expect(await page.locator('.login p.muted code').allTextContents()).toEqual(['npm start', '.data/bootstrap-app-password']);
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
    expect(await page.locator('#sql-results .error-head').textContent()).toMatch(/found identifier "frobnicate".*SQLSTATE 42601/);
    expect((await page.locator('#sql-results pre.caret').textContent())!.split('\n')).toEqual([`LINE 1: ${bad}`, `${' '.repeat('LINE 1: '.length + bad.indexOf('FROBNICATE'))}^`]);

    // A view body that is not a query: the error names the problem, not our internals.
    // (The parser takes this body; the reading of the relations it names is what refuses it.)
    await page.fill('#sql-input', 'CREATE VIEW v AS SELECT * FROM t WHERE');
    await page.keyboard.press('Control+Enter');
    await poll(() => page.locator('#sql-results .error-head').textContent()).toBe('ERROR Expected a valid query, found EOF SQLSTATE 42601');
    expect(await page.locator('#sql-results .sql-error').textContent()).not.toMatch(/dependency analysis|node-sql-parser|can read/);
  });

  it('shows the source running, then stalled with the upstream error in its timeline', async () => {
    const r = await sql(manyObjects().join(';\n'));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    await settled();
    await p.reportHealth();
    await page.click('#tab-objects');
    // Badges follow the status tables: the view polls every 2 s.
    await poll(() => badgeOf('shop').textContent()).toBe('running');
    // Grouped by schema, clusters first; a table has no badge, a cluster shows its replicas' health.
    expect(await page.locator('.group h3').allTextContents()).toEqual(['Clusters2', 'materialize.analytics20', 'materialize.public38']);
    expect(await page.locator('#object-count').textContent()).toBe('60');
    await poll(() => badgeOf('analytics_c').textContent()).toBe('online');
    expect(await badgeOf('customers').count()).toBe(0);

    prober.set(UPSTREAM, {
      ok: false,
      namespace: 'postgres',
      error: 'error connecting to server: Connection refused (os error 111)',
      hint: 'Check that the database accepts connections from the control plane.',
    });
    await p.reportHealth();
    await poll(() => badgeOf('shop').textContent()).toBe('stalled');
    expect(await page.locator('ul.objects li[data-name="shop"] .error-line').textContent()).toBe('postgres: error connecting to server: Connection refused (os error 111)');
    // What reads from the stalled source says so too.
    await poll(() => badgeOf('order_counts').textContent()).toBe('stalled');

    await page.click('ul.objects li[data-name="shop"] a');
    const detail = page.locator('#detail');
    await poll(() => detail.locator('ol.timeline li .badge').allTextContents()).toEqual(['stalled', 'running', 'starting', 'created']);
    const latest = detail.locator('ol.timeline li').first();
    expect(await latest.locator('.error-line').textContent()).toBe('postgres: error connecting to server: Connection refused (os error 111)');
    expect(await latest.locator('ul.details').textContent()).toContain('hint Check that the database accepts connections from the control plane.');
    expect(await detail.locator('h2').textContent()).toBe('sourceshopstalled');
    expect(await detail.locator('pre.definition').textContent()).toMatch(/^CREATE SOURCE .*shop.* FROM POSTGRES CONNECTION .*pg/);
    expect(await detail.locator('.facet-uses a').allTextContents()).toEqual(['pgconnection']);
    expect(await detail.locator('.facet-used-by a').allTextContents()).toEqual(['orderssource']);
    expect(await detail.locator('.facet-effects').textContent()).toContain('None in flight');

    mkdirSync(dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT });
    expect(statSync(SCREENSHOT).size).toBeLessThan(300_000);
  });

  it('filters the list by name, kind, schema or status, and keeps the filter across refreshes', async () => {
    await page.fill('#filter', 'revenue');
    await poll(listed).toEqual(['revenue_out', 'revenue', 'revenue_by_customer', 'revenue_idx']);
    expect(await page.locator('#object-count').textContent()).toBe('4 of 60');
    await page.fill('#filter', 'analytics materialized-view');
    await poll(listed).toEqual(['click_counts', 'conversion']);
    await page.fill('#filter', 'stalled');
    await poll(listed).toEqual(expect.arrayContaining(['shop', 'orders', 'order_counts', 'revenue_by_customer']));
    expect(await page.locator('.group h3').allTextContents()).toEqual([expect.stringMatching(/^materialize\.public\d+$/)]);

    // A poll redraws the list under the box: the text and the focus stay.
    await page.fill('#filter', 'analytics materialized-view');
    await page.focus('#filter');
    await nextPoll();
    await nextPoll();
    expect(await listed()).toEqual(['click_counts', 'conversion']);
    expect(await page.evaluate('document.activeElement?.id')).toBe('filter');
    await page.fill('#filter', 'no such thing');
    await poll(() => page.locator('.list-body').textContent()).toBe('Nothing matches “no such thing”.');
    await page.fill('#filter', '');
    await poll(() => listed().then((l) => l.length)).toBe(60);
  });

  it('stays one screen tall with sixty objects: the list scrolls on its own and a schema folds by its header', async () => {
    await page.evaluate("location.hash = '#/objects'");
    await poll(() => page.locator('#detail').textContent()).toContain('Select an object');
    await poll(() => listed().then((l) => l.length)).toBe(60);
    const size = (await page.evaluate(
      "(() => { const b = document.querySelector('.list-body'); return { page: document.documentElement.scrollHeight, screen: innerHeight, list: b.scrollHeight, listBox: b.clientHeight }; })()",
    )) as { page: number; screen: number; list: number; listBox: number };
    expect(size.page).toBeLessThanOrEqual(size.screen);
    expect(size.list).toBeGreaterThan(size.listBox); // the sixty rows are there, scrolled inside the list

    const analytics = page.locator('.group[data-group="materialize.analytics"]');
    await analytics.locator('h3 button.fold').click();
    await poll(listed).not.toContain('click_counts');
    expect(await listed()).toHaveLength(40);
    expect(await analytics.locator('h3').textContent()).toBe('materialize.analytics20');
    expect(await analytics.locator('h3 button.fold').getAttribute('aria-expanded')).toBe('false');
    // Polls redraw the list: it stays folded.
    await nextPoll();
    expect(await listed()).not.toContain('click_counts');
    // A filter shows every match, folded or not; cleared, the fold is back.
    await page.fill('#filter', 'click_counts');
    await poll(listed).toEqual(['click_counts', 'click_counts_idx']);
    await page.fill('#filter', '');
    await poll(listed).toHaveLength(40);
    // Opening an object of a folded schema (here by its address) unfolds it.
    const clickCounts = await sql("SELECT id FROM mz_objects WHERE name = 'click_counts'");
    await page.evaluate(`location.hash = '#/objects/${clickCounts.body.results[0].rows[0][0]}'`);
    await poll(listed).toHaveLength(60);
    await poll(() => page.locator('ul.objects li.selected').getAttribute('data-name')).toBe('click_counts');

    await page.locator('.group[data-group="materialize.public"] h3 button.fold').click();
    await poll(listed).toHaveLength(22);
    await page.locator('.group[data-group="materialize.public"] h3 button.fold').click();
    await poll(listed).toHaveLength(60);
  });

  it('shows a materialized view’s definition, dependencies, dependents, indexes and cluster, and a cluster’s replicas', async () => {
    await page.click('ul.objects li[data-name="revenue"] a');
    const detail = page.locator('#detail');
    await poll(() => detail.locator('h2').textContent()).toBe('mat. viewrevenuestalled');
    // It reads the stalled source through a view, and says so.
    expect(await detail.locator('.error-box').textContent()).toMatch(/^upstream source shop: .*Connection refused/);
    expect(await detail.locator('pre.definition').textContent()).toMatch(/^CREATE MATERIALIZED VIEW .*revenue.* IN CLUSTER .*c.* AS SELECT count\(\*\) FROM .*paid_orders/);
    expect(await detail.locator('.facet-uses a').allTextContents()).toEqual(['paid_ordersview']);
    expect(await detail.locator('.facet-used-by a').allTextContents()).toEqual(['revenue_outsink']);
    expect(await detail.locator('.facet-indexes a').allTextContents()).toEqual(['revenue_idxindex']);
    expect(await detail.locator('.sub').textContent()).toContain('in cluster c');

    await detail.locator('.sub a').click();
    await poll(() => detail.locator('h2').textContent()).toBe('clusterconline');
    expect(await detail.locator('.sub').textContent()).toContain('25cc × 1 replica');
    expect(await detail.locator('.facet-replicas th').allTextContents()).toEqual(['replica', 'id', 'size', 'status', 'reason', 'since']);
    expect(await detail.locator('.facet-runs a').allTextContents()).toEqual(expect.arrayContaining(['shopsource', 'revenuemat. view', 'revenue_idxindex', 'revenue_outsink']));
    expect(await detail.locator('pre.definition').textContent()).toMatch(/^CREATE CLUSTER .*c.*25cc/);
  });

  it('shows pending effects and the DLQ, and replica health', async () => {
    await page.click('#tab-effects');
    await poll(() => page.locator('#effects-pending').textContent()).toContain('Nothing pending');
    expect(await page.locator('#effects-dlq').textContent()).toContain('The dead-letter queues are empty.');

    await page.click('#tab-replicas');
    await poll(() => page.locator('main table.grid tbody tr').allTextContents()).toEqual([expect.stringMatching(/^r1u[0-9a-f]{12}50cconline/), expect.stringMatching(/^r2u[0-9a-f]{12}50cconline/), expect.stringMatching(/^r1u[0-9a-f]{12}25cconline/)]);
    expect(await page.locator('main h2').allTextContents()).toEqual(['cluster analytics_c2', 'cluster c1']);
    // No replica has an availability zone: no empty column for it.
    expect(await page.locator('main table.grid').first().locator('th').allTextContents()).toEqual(['replica', 'id', 'size', 'status', 'reason', 'since']);
  });

  it('shows a replica’s availability zone in a zone column, in the Replicas tab and the cluster’s detail', async () => {
    const r = await sql("CREATE CLUSTER zoned REPLICAS (z1 (SIZE = '25cc')); CREATE CLUSTER REPLICA zoned.z2 (SIZE = '25cc', AVAILABILITY ZONE = 'use1-az1')");
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    await settled();
    const zoned = page.locator('main section.card', { has: page.locator('h2', { hasText: 'cluster zoned' }) });
    await poll(() => zoned.locator('tbody tr').allTextContents()).toEqual([expect.stringMatching(/^z1u[0-9a-f]{12}25cconline/), expect.stringMatching(/^z2u[0-9a-f]{12}25ccuse1-az1online/)]);
    expect(await zoned.locator('th').allTextContents()).toEqual(['replica', 'id', 'size', 'zone', 'status', 'reason', 'since']);
    expect(await zoned.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => tr.querySelectorAll('td')[3]?.textContent))).toEqual(['', 'use1-az1']);
    // Each replica's id beside its name, as the status relations and events name it.
    const ids = (await sql("SELECT r.id FROM mz_cluster_replicas r JOIN mz_clusters c ON c.id = r.cluster_id WHERE c.name = 'zoned' ORDER BY r.name")).body.results[0].rows.map((x: string[]) => x[0]);
    expect(await zoned.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => tr.querySelectorAll('td')[1]?.textContent))).toEqual(ids);
    // Only the cluster with a zone gets the column.
    expect(await page.locator('main h2').allTextContents()).toEqual(['cluster analytics_c2', 'cluster c1', 'cluster zoned2']);
    expect(await page.locator('main table.grid').first().locator('th').allTextContents()).toEqual(['replica', 'id', 'size', 'status', 'reason', 'since']);

    await zoned.locator('h2 a').click();
    const detail = page.locator('#detail');
    await poll(() => detail.locator('h2').textContent()).toBe('clusterzonedonline');
    expect(await detail.locator('.facet-replicas th').allTextContents()).toEqual(['replica', 'id', 'size', 'zone', 'status', 'reason', 'since']);
    expect(await detail.locator('.facet-replicas tbody tr').allTextContents()).toEqual([expect.stringMatching(/^z1u[0-9a-f]{12}25cconline/), expect.stringMatching(/^z2u[0-9a-f]{12}25ccuse1-az1online/)]);
  });

  it('lists status events in the Events tab, and restarts the stalled source with its Restart button', async () => {
    await page.click('#tab-events');
    const rows = page.locator('#events tbody tr');
    // Newest first: the source's move to stalled, with the upstream's error and hint.
    await poll(async () => (await rows.allTextContents()).find((t) => t.includes('shop') && t.includes('Connector Status Changed'))).toMatch(/shoprunningstalledpostgres: error connecting to server: Connection refused \(os error 111\)hint: Check that the database/);
    expect(await page.locator('#events th').allTextContents()).toEqual(['when', 'event', 'object', 'from', 'to', 'error']);

    await rows.locator('a', { hasText: 'shop' }).first().click();
    const detail = page.locator('#detail');
    await poll(() => detail.locator('h2').textContent()).toBe('sourceshopstalled');
    expect(await detail.locator('#restart').getAttribute('title')).toBe('ALTER SOURCE "materialize"."public"."shop" RESTART');
    await detail.locator('#restart').click();
    // A new generation: starting first, then whatever the data plane reports (still stalled: the upstream is down).
    await poll(() => detail.locator('ol.timeline li .badge').allTextContents()).toEqual(expect.arrayContaining(['starting', 'stalled', 'running', 'starting', 'created']));
    await page.click('#tab-events');
    await poll(async () => (await rows.allTextContents()).some((t) => t.includes('shopstalledstarting'))).toBe(true);
  });

  it('shows a reconfiguration under way in the replicas table: each replica\'s part and the deadline', async () => {
    // WAIT FOR an hour: the reconfiguration stays under way for the whole test.
    expect((await sql("CREATE CLUSTER reconf (SIZE = '25cc'); ALTER CLUSTER reconf SET (SIZE = '50cc') WITH (WAIT FOR '1h')")).status).toBe(200);
    await page.click('#tab-replicas');
    const card = page.locator('main section.card', { has: page.locator('h2', { hasText: 'cluster reconf' }) });
    await poll(() => card.locator('th').allTextContents()).toEqual(['replica', 'id', 'size', 'status', 'reason', 'since', 'reconfiguration']);
    const rows = await card.locator('tbody tr').allTextContents();
    // The deadline in the browser's own locale (toLocaleString): a date with its year, however it is written.
    expect(rows).toEqual([expect.stringMatching(/^r1u[0-9a-f]{12}25cc.*current, wait for until .*\d{4}/), expect.stringMatching(/^r1-pendingu[0-9a-f]{12}50cc.*pending, wait for until .*\d{4}/)]);
    // The other clusters are not being reconfigured: no column for it there.
    expect(await page.locator('main section.card', { has: page.locator('h2', { hasText: 'cluster c1' }) }).locator('th').allTextContents()).not.toContain('reconfiguration');
  });

  it('signs out back to the login box', async () => {
    await page.click('header button.link');
    await page.waitForSelector('#password');
    expect(await page.evaluate('sessionStorage.length')).toBe(0);
  });
});
