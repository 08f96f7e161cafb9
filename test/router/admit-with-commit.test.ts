/**
 * The fast path's admission rides in the commit's transaction (CatalogStore.commit's `optional`
 * item, built by OutboxStore.admitWithCommitItem): with room in its tenant's admission set, a
 * commit's effects are admitted by the commit itself and sent without another DynamoDB call; at
 * the cap the commit goes through without it and the effects wait, pending and below the refill
 * floor, as before; a commit refused for its version is refused as before.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/emulators';
import type { Pipeline } from '../../local/pipeline';
import { ADMISSION_SK } from '../../shared/catalog/keys';
import { OutboxStore } from '../../shared/catalog/outbox-store';
import type { SqsSender } from '../../shared/clients/lazy';
import { sqlApiFor } from '../../shared/lambda/api';
import { partitionItems, tenantItems } from '../helpers/catalog';
import { dynamodbEndpoint } from '../helpers/endpoints';
import { testPipeline } from '../helpers/pipeline';

const CAP = 3;
let p: Pipeline;
beforeAll(async () => {
  // No router, no executors: what is admitted and sent is the DDL function's alone.
  p = await testPipeline('adm-commit', { workers: false, perTenantInQueue: CAP });
});
afterAll(async () => {
  await p.stop();
});

/** One DDL function instance: its DynamoDB calls by operation, and the effect ids it sent to SQS. */
function instance() {
  const calls: string[] = [];
  // In order: each DynamoDB call's start and answer, the SQS client's prepare and sends.
  const events: string[] = [];
  const client = new DynamoDBClient({ endpoint: dynamodbEndpoint(), region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const op = (context.commandName ?? '').replace(/Command$/, '');
      calls.push(op);
      events.push(`${op} sent`);
      try {
        return await next(args);
      } finally {
        events.push(`${op} answered`);
      }
    },
    { step: 'initialize', name: 'recordCalls' },
  );
  const sent: string[] = [];
  const sqs: SqsSender = {
    send: (async (command: { input: { Entries?: { MessageBody?: string }[] } }) => {
      events.push('sqs send');
      for (const e of command.input.Entries ?? []) sent.push((JSON.parse(e.MessageBody!) as { effectId: string }).effectId);
      return { Successful: command.input.Entries ?? [], Failed: [] };
    }) as unknown as SqsSender['send'],
    prepare: () => void events.push('sqs prepare'),
  };
  const api = sqlApiFor(p.config, { doc: DynamoDBDocumentClient.from(client), sqs }, new Logger({ serviceName: 'test', logLevel: 'ERROR' }));
  return { calls, events, sent, api };
}

/** A tenant with its catalog (what an app password's creation makes). */
async function newTenant(label: string): Promise<string> {
  const tenant = `${label}-${Date.now()}`;
  await p.passwords.create(tenant);
  return tenant;
}

const effectsOf = async (tenant: string, txnOf?: string) =>
  (await tenantItems(p, tenant)).filter((i) => i.type === 'effect' && (txnOf === undefined || i.txnId === txnOf)) as { effectId: string; sk: string; state: string; txnId: string }[];
const admissionOf = async (tenant: string) => (await partitionItems(p, `T#${tenant}`)).find((i) => i.sk === ADMISSION_SK) as { ids?: Set<string>; scanFrom?: string } | undefined;

describe("the fast path's SQS client", () => {
  it('is loaded while a commit with effects waits for its answer, and not for a commit without effects', async () => {
    // Prepare: a warm instance (its snapshot cached)
    const tenant = await newTenant('adm-commit-prepare');
    const { events, api } = instance();
    expect((await api.handle(tenant, 'test', JSON.stringify({ query: 'CREATE SCHEMA warm' }), 'application/json')).status).toBe(200);
    const noEffects = [...events];
    events.length = 0;

    // Act
    const r = await api.handle(tenant, 'test', JSON.stringify({ query: 'CREATE TABLE t (a int)' }), 'application/json');

    // Assess: after the commit went out, before its answer; then the send
    expect(r.status).toBe(200);
    expect(noEffects).toContain('TransactWriteItems answered');
    expect(noEffects).not.toContain('sqs prepare');
    expect(events.filter((e) => e.startsWith('TransactWriteItems') || e.startsWith('sqs'))).toEqual(['TransactWriteItems sent', 'sqs prepare', 'TransactWriteItems answered', 'sqs send']);
  });
});

describe("the fast path's admission in the commit's transaction", () => {
  it('with room, admits the effects in the commit itself: one TransactWriteItems, then the send', async () => {
    // Prepare: a warm instance (its snapshot cached), then only the commit's calls are counted.
    const tenant = await newTenant('adm-commit-room');
    const { calls, sent, api } = instance();
    expect((await api.handle(tenant, 'test', JSON.stringify({ query: 'CREATE TABLE warm (a int)' }), 'application/json')).status).toBe(200);
    const before = new Set((await effectsOf(tenant)).map((e) => e.effectId));
    calls.length = 0;
    sent.length = 0;

    // Act
    const r = await api.handle(tenant, 'test', JSON.stringify({ query: 'CREATE TABLE t (a int)' }), 'application/json');

    // Assess
    expect(r.status).toBe(200);
    const mine = (await effectsOf(tenant)).filter((e) => !before.has(e.effectId));
    expect(mine.length).toBeGreaterThan(0);
    expect(calls).toEqual(['TransactWriteItems']);
    expect(sent.sort()).toEqual(mine.map((e) => e.effectId).sort());
    const ids = (await admissionOf(tenant))?.ids ?? new Set();
    for (const e of mine) expect(ids.has(e.effectId)).toBe(true);
  });

  it('at the cap, the commit goes through without it, and its effects wait pending below the refill floor', async () => {
    // Prepare: a tenant whose admission set is full (nothing settles: no executors).
    const tenant = await newTenant('adm-commit-full');
    const { calls, sent, api } = instance();
    for (let i = 0; (((await admissionOf(tenant))?.ids?.size ?? 0) as number) < CAP; i++) {
      expect((await api.handle(tenant, 'test', JSON.stringify({ query: `CREATE TABLE fill${i} (a int)` }), 'application/json')).status).toBe(200);
    }
    const full = new Set((await admissionOf(tenant))!.ids);
    const before = new Set((await effectsOf(tenant)).map((e) => e.effectId));
    calls.length = 0;
    sent.length = 0;

    // Act
    const r = await api.handle(tenant, 'test', JSON.stringify({ query: 'CREATE TABLE late (a int)' }), 'application/json');

    // Assess: committed (the table is there), nothing of it admitted or sent, the floor at or below its first effect.
    expect(r.status).toBe(200);
    expect((await tenantItems(p, tenant)).some((i) => i.type === 'object' && i.name === 'late')).toBe(true);
    const mine = (await effectsOf(tenant)).filter((e) => !before.has(e.effectId)).sort((a, b) => (a.sk < b.sk ? -1 : 1));
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.every((e) => e.state === 'pending')).toBe(true);
    expect((await admissionOf(tenant))!.ids).toEqual(full);
    expect(sent).toEqual([]);
    // (No floor yet: a refill reads from the first record.)
    const floor = (await admissionOf(tenant))!.scanFrom;
    expect(floor === undefined || floor <= mine[0]!.sk).toBe(true);
    // The commit with the admission (refused for it alone), the commit without it, the first admission refused.
    expect(calls.slice(0, 3)).toEqual(['TransactWriteItems', 'TransactWriteItems', 'TransactWriteItems']);
    // A refill after a slot is released finds them (the executor's next(), from the floor).
    const outbox = new OutboxStore(p.clients.doc, p.config.catalogTable);
    const waiting = await outbox.unadmitted(tenant, full, CAP);
    expect(waiting.map((e) => e.effectId)).toEqual(mine.map((e) => e.effectId).slice(0, CAP));
  });

  it('a commit on a stale snapshot is refused for its version and planned again, the admission with it', async () => {
    // Prepare: two instances, both warm on the same catalog version.
    const tenant = await newTenant('adm-commit-race');
    const a = instance();
    const b = instance();
    expect((await a.api.handle(tenant, 'test', JSON.stringify({ query: 'CREATE TABLE base (a int)' }), 'application/json')).status).toBe(200);
    expect((await b.api.handle(tenant, 'test', JSON.stringify({ query: 'SHOW TABLES' }), 'application/json')).status).toBe(200);
    expect((await a.api.handle(tenant, 'test', JSON.stringify({ query: 'CREATE TABLE by_a (a int)' }), 'application/json')).status).toBe(200);
    b.calls.length = 0;

    // Act: b commits on the version before a's commit.
    const r = await b.api.handle(tenant, 'test', JSON.stringify({ query: 'CREATE TABLE by_a (a int)' }), 'application/json');

    // Assess: refused (its name is now taken) after its commit was refused; nothing of b's written, admitted or sent.
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body)).toMatch(/already exists/);
    expect(b.calls[0]).toBe('TransactWriteItems');
    expect(b.sent).toEqual([]);
    const effects = await effectsOf(tenant);
    expect(new Set(effects.map((e) => e.txnId)).size).toBe(2);
    const ids = (await admissionOf(tenant))?.ids ?? new Set<string>();
    for (const id of ids) expect(effects.some((e) => e.effectId === id)).toBe(true);
  });
});
