/**
 * Connections of issue 18 through the local pipeline (SQL API, planner, purification with the real
 * prober, DynamoDB Local, executors, the reference data plane): ALTER CONNECTION (its users are
 * ensured again with the new settings), ALTER SECRET (the same for the users of connections that
 * read it), and VALIDATE CONNECTION against a refused port and a real PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { LOCAL_PROBE_POLICY } from '../../shared/probes/addresses';
import { realProber } from '../../shared/probes/lazy';
import type { ConnectionProbeInput } from '../../shared/probes/types';
import { tenantItems } from '../helpers/catalog';
import { eventually, rows, sqlClient, testPipeline, type SqlClient, ok } from '../helpers/pipeline';
import { startPostgres, type TestPostgres } from '../helpers/postgres';
import { refusedPort } from '../probes/net';

let p: Pipeline;
let pg: TestPostgres;
beforeAll(async () => {
  pg = await startPostgres();
  // A timeout that never fires on a loaded machine: no case here waits for one.
  const real = realProber({ timeoutMs: 30_000, network: LOCAL_PROBE_POLICY });
  // The sources below read from `db.internal`, which exists only in these tests: a source checks its
  // upstream at CREATE whatever its connection's VALIDATE said (as in Materialize), so that one
  // upstream answers as a reachable one would; every other probe is the real prober's.
  const fake = (conn: ConnectionProbeInput) => conn.options.HOST === 'db.internal';
  p = await testPipeline('connections', {
    prober: {
      probeConnection: (conn) => real.probeConnection(conn),
      probeSource: (conn, options, references) => (fake(conn) ? Promise.resolve({ ok: true, namespace: 'postgres' }) : real.probeSource(conn, options, references)),
      probeSink: (conn, options) => real.probeSink(conn, options),
    },
  });
});
afterAll(async () => {
  await p?.stop();
  await pg?.close();
});


/** The source's ingestion on the data plane once it is at `generation`. */
async function ingestionAt(tenant: string, source: string, generation: number) {
  return eventually(async () => (await p.dataPlane.observe(tenant)).find((r) => r.kind === 'ingestion' && r.owner?.objectName === source && r.generation === generation), 20_000);
}

const SOURCE_SETUP = [
  "CREATE SECRET pw AS 'first'",
  "CREATE CLUSTER c (SIZE = '25cc')",
  "CREATE CONNECTION pg TO POSTGRES (HOST 'db.internal', USER 'mz', PASSWORD SECRET pw) WITH (VALIDATE = false)",
  "CREATE SOURCE shop IN CLUSTER c FROM POSTGRES CONNECTION pg (PUBLICATION 'mz') FOR TABLES (public.orders AS orders)",
].join('; ');

describe('ALTER CONNECTION', () => {
  it('changes the definition and ensures the sources that use it again, with the new settings on the data plane', async () => {
    const { sql, tenant } = await sqlClient(p);
    await ok(sql, SOURCE_SETUP);
    expect((await ingestionAt(tenant, 'shop', 1)).spec).toMatchObject({ connector: { options: { HOST: 'db.internal' } } });

    const explained = await ok(sql, "EXPLAIN EFFECTS FOR ALTER CONNECTION pg SET (HOST = 'db2.internal') WITH (VALIDATE = false)");
    expect(explained[0]!.rows).toEqual([
      ['catalog', 'update', 'connection', 'pg', 'generation 2'],
      ['catalog', 'update', 'source', 'shop', 'generation 2'],
      ['effect', 'ensure', 'storage.collection', 'shop', 'generation 2'],
      ['effect', 'ensure', 'storage.ingestion', 'shop', 'generation 2'],
    ]);
    const r = await ok(sql, "ALTER CONNECTION pg SET (HOST = 'db2.internal'), SET (PORT = 5433) WITH (VALIDATE = false)");
    expect(r[0]!.ok).toBe('ALTER CONNECTION');
    expect(await rows(sql, 'SHOW CREATE CONNECTION pg')).toEqual([
      ['materialize.public.pg', "CREATE CONNECTION pg TO POSTGRES (USER = 'mz', PASSWORD = SECRET pw, HOST = 'db2.internal', PORT = 5433) WITH (VALIDATE = false)"],
    ]);
    const ingestion = await ingestionAt(tenant, 'shop', 2);
    expect(ingestion.spec).toMatchObject({ connector: { options: { HOST: 'db2.internal', PORT: '5433', USER: 'mz' } } });
    // The subsource is a collection only: nothing of it changes.
    const orders = (await p.dataPlane.observe(tenant)).find((x) => x.owner?.objectName === 'orders');
    expect(orders?.generation).toBe(1);
  });

  it("answers Materialize's errors, and a failing request leaves nothing behind", async () => {
    const { sql, tenant } = await sqlClient(p);
    await ok(sql, "CREATE CONNECTION k TO KAFKA (BROKER 'b:9092', SECURITY PROTOCOL PLAINTEXT) WITH (VALIDATE = false); CREATE CONNECTION t TO SSH TUNNEL (HOST 'bastion', USER 'mz') WITH (VALIDATE = false)");
    const cases: [string, string, string][] = [
      ['ALTER CONNECTION k RESET (BROKER)', '0A000', 'invalid ALTER CONNECTION: invalid CONNECTION: must set one of BROKER, BROKERS, or AWS PRIVATELINK'],
      ["ALTER CONNECTION k SET (BROKER 'x'), RESET (BROKER)", 'XX000', 'cannot both SET and DROP/RESET options BROKER'],
      ["ALTER CONNECTION k SET (PROGRESS TOPIC = 'new')", 'XX000', 'cannot ALTER KAFKA option PROGRESS TOPIC'],
      ['ALTER CONNECTION k ROTATE KEYS', 'XX000', 'materialize.public.k is not an SSH connection'],
      ['ALTER CONNECTION t ROTATE KEYS, ROTATE KEYS', 'XX000', 'cannot specify any other actions alongside ALTER CONNECTION...ROTATE KEYS'],
      ["ALTER CONNECTION nope SET (HOST = 'h')", '42P01', "unknown catalog item 'nope'"],
    ];
    for (const [q, code, message] of cases) {
      const r = await sql(q);
      expect(r.body.results[0].error, q).toMatchObject({ code, message });
    }
    const skipped = await ok(sql, 'ALTER CONNECTION IF EXISTS nope ROTATE KEYS');
    expect(skipped[0]!.notices?.map((n: { message: string }) => n.message)).toEqual(['connection "nope" does not exist, skipping']);
    const before = await tenantItems(p, tenant);
    const r = await sql("ALTER CONNECTION k SET (BROKER = 'b2:9092') WITH (VALIDATE = false); ALTER CONNECTION k RESET (BROKER)");
    expect(r.status).toBe(400);
    expect(await rows(sql, 'SHOW CREATE CONNECTION k')).toEqual([
      ['materialize.public.k', "CREATE CONNECTION k TO KAFKA (BROKER = 'b:9092', SECURITY PROTOCOL = plaintext) WITH (VALIDATE = false)"],
    ]);
    expect((await tenantItems(p, tenant)).length).toBe(before.length);
    expect(await ok(sql, 'ALTER CONNECTION t ROTATE KEYS')).toMatchObject([{ ok: 'ALTER CONNECTION' }]);
  });

  it('validates the altered connection before it commits (a refused port is the answer, nothing changes), unless WITH (VALIDATE = false)', async () => {
    const { sql } = await sqlClient(p);
    const refused = await refusedPort();
    await ok(sql, `CREATE SECRET pgpass AS '${pg.password}'; CREATE CONNECTION pg TO POSTGRES (HOST '${pg.host}', PORT ${pg.port}, USER '${pg.user}', PASSWORD SECRET pgpass, DATABASE '${pg.database}')`);
    const r = await sql(`ALTER CONNECTION pg SET (PORT = ${refused})`);
    expect(r.status).toBe(400);
    // The statement planned; the check after planning is the request's answer.
    const error = r.body.results.at(-1).error;
    expect(error.code).toMatch(/^0800[01]$/);
    expect(error.message).toMatch(/^postgres: .*refused/i);
    expect(error.hint).toContain('WITH (VALIDATE = false)');
    expect((await rows(sql, 'SHOW CREATE CONNECTION pg'))[0]![1]).toContain(`PORT = ${pg.port}`);
    // The real server accepts the altered connection.
    await ok(sql, `ALTER CONNECTION pg SET (PORT = ${pg.port}), SET (USER = '${pg.user}')`);
    await ok(sql, `ALTER CONNECTION pg SET (PORT = ${refused}) WITH (VALIDATE = false)`);
    expect((await rows(sql, 'SHOW CREATE CONNECTION pg'))[0]![1]).toContain(`PORT = ${refused}`);
  });
});

describe('ALTER SECRET', () => {
  it('ensures again the sources whose connection reads the secret, at a new generation', async () => {
    const { sql, tenant } = await sqlClient(p);
    await ok(sql, SOURCE_SETUP);
    await ingestionAt(tenant, 'shop', 1);
    const explained = await ok(sql, "EXPLAIN EFFECTS FOR ALTER SECRET pw AS 'second'");
    expect(explained[0]!.rows).toContainEqual(['effect', 'ensure', 'storage.ingestion', 'shop', 'generation 2']);
    await ok(sql, "ALTER SECRET pw AS 'second'");
    await ingestionAt(tenant, 'shop', 2);
  });
});

describe('VALIDATE CONNECTION', () => {
  it("answers OK for a real PostgreSQL and the upstream's error (58000) for a refused port, and changes nothing", async () => {
    const { sql, tenant } = await sqlClient(p);
    const refused = await refusedPort();
    await ok(
      sql,
      [
        `CREATE SECRET pgpass AS '${pg.password}'`,
        `CREATE CONNECTION good TO POSTGRES (HOST '${pg.host}', PORT ${pg.port}, USER '${pg.user}', PASSWORD SECRET pgpass, DATABASE '${pg.database}')`,
        `CREATE CONNECTION bad TO POSTGRES (HOST '127.0.0.1', PORT ${refused}, USER 'mz') WITH (VALIDATE = false)`,
        `CREATE CONNECTION tunnel TO SSH TUNNEL (HOST '127.0.0.1', PORT ${refused}, USER 'mz') WITH (VALIDATE = false)`,
        "CREATE SECRET wrong AS 'not the password'",
        `CREATE CONNECTION wrong_pw TO POSTGRES (HOST '${pg.host}', PORT ${pg.port}, USER '${pg.user}', PASSWORD SECRET wrong, DATABASE '${pg.database}') WITH (VALIDATE = false)`,
      ].join('; '),
    );
    const before = await tenantItems(p, tenant);
    expect(await ok(sql, 'VALIDATE CONNECTION good')).toEqual([{ ok: 'VALIDATE CONNECTION', notices: [] }]);
    for (const [name, message] of [
      ['bad', /^postgres: .*refused/i],
      ['tunnel', /^ssh: .*refused/i],
      ['wrong_pw', /^postgres: .*password/i],
    ] as const) {
      const r = await sql(`VALIDATE CONNECTION ${name}`);
      expect(r.status, name).toBe(400);
      expect(r.body.results[0].error.code, name).toBe('58000');
      expect(r.body.results[0].error.message, name).toMatch(message);
    }
    for (const [q, code, message] of [
      ['VALIDATE CONNECTION nope', '42P01', "unknown catalog item 'nope'"],
      ['VALIDATE CONNECTION pgpass', '42809', 'pgpass is a secret not a connection'],
    ]) {
      expect((await sql(q!)).body.results[0].error, q).toMatchObject({ code, message });
    }
    expect((await tenantItems(p, tenant)).length).toBe(before.length);
  });
});

describe('connections Materialize does not validate by default (SSH tunnels, AWS, AWS PrivateLink)', () => {
  it('creates and alters an SSH tunnel without reaching the bastion; VALIDATE CONNECTION and WITH (VALIDATE = true) check it', async () => {
    const { sql } = await sqlClient(p);
    const refused = await refusedPort();
    // Its public keys must be installed on the bastion before it can answer: Materialize's
    // validate_by_default is false for SSH (and AWS) connections.
    const created = await sql(`CREATE CONNECTION tunnel TO SSH TUNNEL (HOST '127.0.0.1', PORT ${refused}, USER 'mz')`);
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(await rows(sql, 'SHOW CREATE CONNECTION tunnel')).toEqual([['materialize.public.tunnel', `CREATE CONNECTION tunnel TO SSH TUNNEL (HOST = '127.0.0.1', PORT = ${refused}, USER = 'mz')`]]);
    expect((await sql("ALTER CONNECTION tunnel SET (USER = 'mz2')")).status).toBe(200);
    const checked = await sql('VALIDATE CONNECTION tunnel');
    expect(checked.body.results[0].error).toMatchObject({ code: '58000', message: expect.stringMatching(/^ssh: .*refused/i) });
    const validated = await sql(`CREATE CONNECTION tunnel2 TO SSH TUNNEL (HOST '127.0.0.1', PORT ${refused}, USER 'mz') WITH (VALIDATE = true)`);
    expect(validated.body.results.at(-1).error).toMatchObject({ code: '08001', message: expect.stringMatching(/^ssh: .*refused/i) });
    const altered = await sql("ALTER CONNECTION tunnel SET (USER = 'mz3') WITH (VALIDATE = true)");
    expect(altered.body.results.at(-1).error).toMatchObject({ code: '08001', message: expect.stringMatching(/^ssh: .*refused/i) });
    // A Postgres connection is still checked by default.
    const pgConn = await sql(`CREATE CONNECTION pg TO POSTGRES (HOST '127.0.0.1', PORT ${refused}, USER 'mz')`);
    expect(pgConn.body.results.at(-1).error).toMatchObject({ code: '08001' });
  });
});

describe('Kafka brokers through a tunnel each', () => {
  it('are read, shown by SHOW CREATE CONNECTION, depend on their tunnels (DROP without CASCADE is 2BP01), and are not probed directly', async () => {
    const { sql } = await sqlClient(p);
    const refused = await refusedPort();
    await ok(
      sql,
      [
        "CREATE CONNECTION t TO SSH TUNNEL (HOST 'bastion.internal', USER 'mz') WITH (VALIDATE = false)",
        "CREATE CONNECTION pl TO AWS PRIVATELINK (SERVICE NAME 'com.amazonaws.vpce.us-east-1.vpce-svc-1', AVAILABILITY ZONES ('use1-az1'))",
        // Validated (the default): a broker behind a tunnel is reachable only from the tunnel's end, so it is not probed from here.
        `CREATE CONNECTION k TO KAFKA (BROKERS ('127.0.0.1:${refused}' USING SSH TUNNEL t, 'b2:9092' USING AWS PRIVATELINK pl (AVAILABILITY ZONE 'use1-az1', PORT 9093)), SECURITY PROTOCOL PLAINTEXT)`,
      ].join('; '),
    );
    expect(await rows(sql, 'SHOW CREATE CONNECTION k')).toEqual([
      ['materialize.public.k', `CREATE CONNECTION k TO KAFKA (BROKERS = ('127.0.0.1:${refused}' USING SSH TUNNEL t, 'b2:9092' USING AWS PRIVATELINK pl (AVAILABILITY ZONE = 'use1-az1', PORT = 9093)), SECURITY PROTOCOL = plaintext)`],
    ]);
    for (const tunnel of ['t', 'pl']) {
      expect((await sql(`DROP CONNECTION ${tunnel}`)).body.results[0].error, tunnel).toMatchObject({ code: '2BP01' });
    }
    await ok(sql, 'DROP CONNECTION t CASCADE');
    expect((await rows(sql, 'SHOW CONNECTIONS')).map((r) => r[0])).toEqual(['pl']);
  });
});
