/**
 * IAM sufficiency and least privilege, proved on a representative run: every AWS call each
 * function makes while a tenant creates, alters, queries and drops every object kind (a staged
 * commit, the sweeper's pass, idempotent retries included) is recorded and evaluated against that
 * function's role in the synthesized template by a real IAM policy evaluator. No call may be
 * denied; every granted action no call used must be listed in UNUSED with its reason. The stack is
 * synthesized with the Postgres wire endpoint on: a pgwire session's calls (its logins and its
 * statements) are held to the Fargate task's role, which has the DDL function's grants
 * (grantSqlApi), so a grant of it the session left unused counts as used when the DDL function used it.
 */
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { Template } from 'aws-cdk-lib/assertions';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECRET_STORE_ACCESS, type SecretStoreMethod } from '../../cdk/constructs/secret-store';
import { DdlControlPlaneStack, PGWIRE_CONTEXT, PGWIRE_TLS_SECRET_ARN_CONTEXT } from '../../cdk/stack';
import { LOCAL_REGION } from '../../local/emulators';
import type { Pipeline } from '../../local/pipeline';
import { CallRecorder, type RecordedCall } from '../../shared/clients/call-recorder';
import { CONTROLLERS, deploymentNames } from '../../shared/definitions';
import { tenantItems } from '../helpers/catalog';
import { type Binding, type Grant, denied, distinctRequests, grants, rolePolicies, unusedGrants } from '../helpers/iam';
import { eventually, sqlClient, testPipeline } from '../helpers/pipeline';
import { BUNDLING_STACKS, logicalId, testApp } from '../cdk/helpers';

const ACCOUNT = '000000000000';
/** The pgwire endpoint's TLS secret, as the stack under test names it. */
const PGWIRE_TLS_SECRET_ARN = `arn:aws:secretsmanager:${LOCAL_REGION}:${ACCOUNT}:secret:ddl/pgwire-tls-AbCdEf`;

/**
 * Granted actions no recorded call uses (`<function> <action> <resource>`), each with why it stays.
 * A grant that is neither used nor covered here fails the test: remove it, or say why here. A
 * reason no unused grant needs is stale, and fails it too, unless it is marked `'timing'`: a grant
 * whose use in a run depends on which of two racing paths gets there first.
 */
const UNUSED: readonly (readonly [RegExp, string, 'timing'?])[] = [
  [/^\S+ logs:(CreateLogStream|PutLogEvents) \S*Logs/, "the Lambda runtime writes the function's own log group; no SDK call of ours"],
  [/^\S+ xray:(PutTraceSegments|PutTelemetryRecords) \*$/, 'active X-Ray tracing: the Lambda runtime sends the segments; AWS requires Resource "*"'],
  [
    /^stream-router sqs:(SendMessage|GetQueueAttributes|GetQueueUrl) \S*StreamRouterOnFailure/,
    "the stream mapping's on-failure destination: Lambda sends there with the function's role (CDK's SqsDlq); the local mapping logs and counts instead",
  ],
  [/^stream-router dynamodb:ListStreams /, "the stream mapping's read grant (CDK's DynamoEventSource): Lambda's poller may list the table's streams; the local poller knows the ARN"],
  [
    /^executor-\w+ sqs:(ChangeMessageVisibility|GetQueueUrl) \w+-queue$/,
    "the queue mapping's consume grant (CDK's SqsEventSource): Lambda's poller uses it; the local poller gives messages back only when stopped",
  ],
  [
    /^executor-\w+ dynamodb:(ConditionCheckItem|DeleteItem|GetItem|PutItem|Query|UpdateItem) table\/(Catalog|DataPlane)$/,
    "one item read/write grant per table for every executor (EffectExecutor: catalog and reference data plane); the controllers' paths differ (secrets never touch the data plane, drops and GC delete) and not every path runs here",
  ],
  [/^(ddl-api|sweeper) secretsmanager:GetSecretValue /, 'the data plane token (DATAPLANE_TOKEN_SECRET_ARN, read lazily): the local runtime talks to the in-process reference data plane, which takes no token'],
  [/^sweeper dynamodb:(BatchWriteItem|DeleteItem) table\/Catalog$/, "the sweeper's garbage collection of expired and orphaned catalog items: nothing was old enough in this run"],
  [/^sweeper dynamodb:(GetItem|PutItem) table\/DataPlane$/, "the sweeper's full pass on the reference data plane (orphan owner checks and marks): nothing was an orphan in this run"],
  [/^sweeper sqs:SendMessage \w+-queue$/, "the outbox replay: nothing stayed pending for 30 s in this run"],
  [/^sweeper dynamodb:ConditionCheckItem table\/Catalog$/, 'admission before a replay (shared/router/admission.ts): nothing stayed pending for 30 s in this run'],
  [
    /^executor-\w+ sqs:SendMessage \w+-queue$/,
    "admission: after a settle, an executor sends the tenant's next admitted effects to whichever controller's queue; not every pair of controllers meets in this run",
  ],
  [/^status-ingest sqs:(ChangeMessageVisibility|GetQueueUrl) \S*ddl-status-reports$/, "the status queue mapping's consume grant (CDK's SqsEventSource): Lambda's poller uses it; the local poller gives messages back only when stopped"],
  [
    /^reference-reporter secretsmanager:(GetSecretValue|ListSecretVersionIds) /,
    "the reporter's probes read a connection's newest secret value; the test pipeline runs without a prober, so no secret is read in this run",
  ],
  [/^sweeper secretsmanager:DeleteSecret /, "the garbage collection of secret values no committed secret references (a crash between the value's write and its commit): none in this run"],
  [
    /^pgwire secretsmanager:GetSecretValue \S*:secret:ddl-control-plane\/DdlControlPlane\/\*$/,
    "the secret store's get (grantSqlApi): purification reads a connection's committed secrets to probe its upstream; the test pipeline runs without a prober, and the DDL function leaves it unused too",
  ],
  [/^pgwire secretsmanager:GetSecretValue \S*pgwire-tls-AbCdEf$/, 'the TLS certificate, read by the task at start and every hour (functions/pgwire-server/main.ts); the local runtime serves no TLS'],
  [
    /^stream-router sqs:SendMessage (compute|storage|secrets)-queue$/,
    "the router's copy of an effect the DDL function's fast path sent: the router sends only what is still pending when it reads the stream, and the executor often applied the fast path's copy first (the fast path admits in the commit's own transaction); the grant is the path for a send that never happened",
    'timing',
  ],
];
const reasonFor = (key: string) => UNUSED.find(([re]) => re.test(key))?.[1];

let p: Pipeline;
// Secrets are named as the synthesized stack names them (its own prefix).
const recorder = new CallRecorder({ region: LOCAL_REGION, accountId: ACCOUNT, secretNamePrefix: deploymentNames('DdlControlPlane').secretNamePrefix });

beforeAll(async () => {
  p = await testPipeline('iam', { recorder, fullPass: { intervalMs: 0 }, pgPort: 0 });
});
afterAll(async () => {
  await p?.stop();
});

const SETUP = [
  "CREATE CLUSTER quickstart (SIZE = '25cc')",
  "CREATE SECRET pgpass AS 'hunter2-very-secret'",
  "CREATE CONNECTION pg TO POSTGRES (HOST 'db.internal', PORT 5432, USER 'mz', PASSWORD SECRET pgpass, DATABASE 'shop') WITH (VALIDATE = false)",
  "CREATE CONNECTION kafka_conn TO KAFKA (BROKER 'broker:9092', SECURITY PROTOCOL = 'PLAINTEXT') WITH (VALIDATE = false)",
  'CREATE SOURCE auction FROM LOAD GENERATOR AUCTION FOR ALL TABLES',
  "CREATE SOURCE pg_src IN CLUSTER quickstart FROM POSTGRES CONNECTION pg (PUBLICATION 'mz_source') FOR TABLES (shop.public.orders AS orders)",
  'CREATE TABLE t (id int NOT NULL, amount numeric(10,2))',
  'CREATE VIEW big AS SELECT * FROM t WHERE amount > 100',
  'CREATE MATERIALIZED VIEW totals AS SELECT count(*) FROM big JOIN orders ON true',
  'CREATE INDEX totals_idx ON totals (count)',
  "CREATE SINK out FROM totals INTO KAFKA CONNECTION kafka_conn (TOPIC 'totals') FORMAT JSON ENVELOPE DEBEZIUM",
];

/** The representative run: what a tenant does, and what the background work does after it. */
async function workload(): Promise<void> {
  const { sql, tenant } = await sqlClient(p);
  const ok = async (q: string, headers?: Record<string, string>) => {
    const r = await sql(q, headers ? { headers } : {});
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r;
  };
  await ok(SETUP.join(';\n'));
  await ok("CREATE CLUSTER c2 (SIZE = '25cc')", { 'idempotency-key': 'k1' });
  await ok("CREATE CLUSTER c2 (SIZE = '25cc')", { 'idempotency-key': 'k1' });
  await ok("ALTER SECRET pgpass AS 'rotated-secret-value'");
  await ok("ALTER CLUSTER c2 SET (REPLICATION FACTOR = 2)");
  // A staged commit: more catalog writes than one transaction takes.
  await ok(['BEGIN', ...Array.from({ length: 60 }, (_, i) => `CREATE TABLE s${i} (a int)`), 'COMMIT'].join(';\n'));
  await ok('SELECT * FROM mz_internal.mz_cluster_replica_statuses');
  await ok('SHOW SOURCES');
  await eventually(async () => (await tenantItems(p, tenant)).filter((i) => i.type === 'effect').every((e) => e.state !== 'pending'), 60_000);
  // A health round of the reference data plane (the stack's reference-reporter) and its ingestion.
  await p.reportHealth();
  await ok('DROP CLUSTER quickstart CASCADE');
  await ok('DROP SECRET pgpass CASCADE');
  await eventually(async () => (await tenantItems(p, tenant)).filter((i) => i.type === 'effect').every((e) => e.state !== 'pending'), 60_000);
  // The authorizer refusing a wrong password is a call too.
  expect((await sql('SELECT 1', { password: 'wrong-password' })).status).toBe(401);
  // A Postgres session (the pgwire task): a SCRAM login (the tenant's verifiers), a block of DDL, a
  // catalog query; then a cleartext login (the password's record), as the endpoint serves them.
  const session = new pg.Client({ host: '127.0.0.1', port: p.pgPort!, user: 'materialize', password: (await p.passwords.create(tenant)), options: `--tenant=${tenant}` });
  await session.connect();
  await session.query('BEGIN');
  await session.query('CREATE SCHEMA over_pgwire');
  await session.query("CREATE CLUSTER wire_cluster (SIZE = '25cc')");
  await session.query('COMMIT');
  await session.query('SELECT name FROM mz_schemas');
  await session.query('DROP CLUSTER wire_cluster');
  await session.end();
  const cleartext = new pg.Client({ host: '127.0.0.1', port: p.pgPort!, user: 'materialize', password: (await p.passwords.create(tenant)) });
  await cleartext.connect();
  await cleartext.query('SHOW SCHEMAS');
  await cleartext.end();
  await p.sweeper.sweep();
  await p.sweeper.sweep(new Date(Date.now() + 3_600_000));
}

function binding(stack: DdlControlPlaneStack, streamArn: string): Binding {
  const table = (name: string) => `arn:aws:dynamodb:${LOCAL_REGION}:${ACCOUNT}:table/${name}`;
  const resources: Record<string, Record<string, string>> = {
    [logicalId(stack.catalog.table)]: { Ref: p.config.catalogTable, Arn: table(p.config.catalogTable), StreamArn: streamArn },
    [logicalId(stack.dataPlane!.table.table)]: { Ref: p.config.dataPlaneTable!, Arn: table(p.config.dataPlaneTable!) },
  };
  for (const c of CONTROLLERS) {
    resources[logicalId(stack.queues.byController[c].queue)] = { Ref: p.config.queueUrls[c], Arn: recorder.queueArn(p.config.queueUrls[c]) };
    resources[logicalId(stack.queues.byController[c].dlq)] = { Ref: p.dlqUrls[c], Arn: recorder.queueArn(p.dlqUrls[c]) };
  }
  resources[logicalId(stack.statusEvents.bus)] = { Ref: p.eventBusName, Arn: `arn:aws:events:${LOCAL_REGION}:${ACCOUNT}:event-bus/${p.eventBusName}` };
  resources[logicalId(stack.statusIngest.queue)] = { Ref: p.statusQueueUrl, Arn: recorder.queueArn(p.statusQueueUrl) };
  resources[logicalId(stack.statusIngest.dlq)] = { Ref: p.statusDlqUrl, Arn: recorder.queueArn(p.statusDlqUrl) };
  return { region: LOCAL_REGION, accountId: ACCOUNT, resources };
}

/** Local-only resources (the router's checkpoints, the secret store's table) have no AWS counterpart; secret store methods become their Secrets Manager actions. */
function asAws(calls: readonly RecordedCall[]): RecordedCall[] {
  const localOnly = [`table/${p.config.catalogTable.replace(/catalog$/, '')}router-checkpoints`, `table/${p.secretsTable}`];
  return calls
    .filter((c) => !localOnly.some((t) => c.resource.endsWith(t)))
    .flatMap((c) => (c.action.startsWith('secretstore:') ? SECRET_STORE_ACCESS[c.operation as SecretStoreMethod].map((action) => ({ ...c, action })) : [c]));
}

/** A resource as the report names it: the stack's resource instead of this run's local name. */
function label(resource: string): string {
  const names: [string, string][] = [
    [p.config.catalogTable, 'Catalog'],
    [p.config.dataPlaneTable!, 'DataPlane'],
    ...CONTROLLERS.flatMap((c): [string, string][] => [
      [recorder.queueArn(p.dlqUrls[c]).split(':').pop()!, `${c}-dlq`],
      [recorder.queueArn(p.config.queueUrls[c]).split(':').pop()!, `${c}-queue`],
    ]),
  ];
  let out = resource.replace(`arn:aws:dynamodb:${LOCAL_REGION}:${ACCOUNT}:`, '').replace(`arn:aws:sqs:${LOCAL_REGION}:${ACCOUNT}:`, '');
  for (const [local, name] of names) out = out.split(local).join(name);
  return out;
}

describe('IAM', () => {
  it("allows every call each function makes, and every grant is used or has a reason", async () => {
    // Prepare
    await workload();
    const stack = new DdlControlPlaneStack(testApp({ [BUNDLING_STACKS]: [], [PGWIRE_CONTEXT]: 'true', [PGWIRE_TLS_SECRET_ARN_CONTEXT]: PGWIRE_TLS_SECRET_ARN }), 'DdlControlPlane');
    const template = Template.fromStack(stack).toJSON();
    const streamArn = (await p.clients.ddb.send(new DescribeTableCommand({ TableName: p.config.catalogTable }))).Table!.LatestStreamArn!;
    const b = binding(stack, streamArn);
    const roles: Record<string, string> = {
      'ddl-api': logicalId(stack.api.handler.role),
      authorizer: logicalId(stack.api.authorizerHandler!.role),
      'status-ingest': logicalId(stack.statusIngest.handler.role),
      'reference-reporter': logicalId(stack.statusIngest.reporter!.role),
      'stream-router': logicalId(stack.router.handler.role),
      sweeper: logicalId(stack.sweeper.handler.role),
      ...Object.fromEntries(CONTROLLERS.map((c) => [`executor-${c}`, logicalId(stack.executors[c].handler.role)])),
      pgwire: logicalId(stack.pgwire!.taskRole),
    };
    const policies = Object.fromEntries(Object.entries(roles).map(([fn, role]) => [fn, rolePolicies(template, role, b)]));

    // Act
    const requests = distinctRequests(asAws(recorder.calls));
    const refused = await denied(requests, (fn) => policies[fn] ?? [], ACCOUNT);
    const granted: Grant[] = Object.entries(policies).flatMap(([fn, ps]) => grants(fn, ps));
    // The task role is the DDL function's grants (grantSqlApi): one the session left unused is used when the DDL function used it.
    const unused = unusedGrants(granted, requests).filter((g) => g.fn !== 'pgwire' || unusedGrants([{ ...g, fn: 'ddl-api' }], requests).length > 0);
    const report = [...new Set(unused.map((g) => `${g.fn} ${g.action} ${label(g.resource)}`))].sort();
    console.log(
      `IAM: ${recorder.calls.length} calls recorded, ${requests.length} distinct requests, ${refused.length} denied\n` +
        `functions seen: ${[...new Set(requests.map((r) => r.fn))].sort().join(', ')}\n` +
        `unused grants:\n${report.map((k) => `  ${k} — ${reasonFor(k) ?? 'NO REASON'}`).join('\n')}`,
    );

    // Assess
    expect(Object.keys(roles).every((fn) => requests.some((r) => r.fn === fn))).toBe(true);
    expect(refused).toEqual([]);
    expect(report.filter((k) => !reasonFor(k))).toEqual([]);
    // A reason no unused grant needs any more is stale.
    expect(UNUSED.filter(([re, , timing]) => !timing && !report.some((k) => re.test(k))).map(([re]) => String(re))).toEqual([]);
  });
});
