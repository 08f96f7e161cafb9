/**
 * Invariant 5: two concurrent statements that together would break a name or a dependency never
 * both succeed. Each pair is forced into the worst interleaving (both read the catalog, then
 * both commit) with a barrier; DynamoDB Local never reports TransactionConflict, so that path is
 * injected.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pipeline } from '../../local/pipeline';
import { SqlApi } from '../../shared/api/sql-api';
import { CatalogStore, type CatalogBasis } from '../../shared/catalog/store';
import { partitionItems } from '../helpers/catalog';
import { testPipeline } from '../helpers/pipeline';

let p: Pipeline;
beforeAll(async () => {
  p = await testPipeline('races', { workers: false });
});
afterAll(async () => {
  await p.stop();
});

const logger = new Logger({ serviceName: 'test', logLevel: 'ERROR' });

/** Both racers load their snapshot before either commits: the interleaving that breaks naive code. */
function barrier(parties: number): () => Promise<void> {
  let waiting = 0;
  let release!: () => void;
  const all = new Promise<void>((r) => (release = r));
  return async () => {
    if (++waiting === parties) release();
    await all;
  };
}

/** A store (one Lambda instance) whose first plan waits at the gate after reading its basis. */
class RacingStore extends CatalogStore {
  private first = true;
  readonly bases: CatalogBasis[] = [];
  constructor(private readonly gate: () => Promise<void>) {
    super(p.clients.doc, p.config.catalogTable);
  }
  override async basis(tenant: string): Promise<CatalogBasis> {
    const b = await super.basis(tenant);
    this.bases.push(b);
    if (this.first) {
      this.first = false;
      await this.gate();
    }
    return b;
  }
}

/**
 * Runs a and b at once, each in its own "instance". With `warm`, each instance has read the
 * catalog before (its cached snapshot is current), so both plan on cached snapshots.
 */
async function race(tenant: string, a: string, b: string, warm = false) {
  const gate = barrier(2);
  const stores = [new RacingStore(gate), new RacingStore(gate)];
  if (warm) for (const s of stores) await CatalogStore.prototype.basis.call(s, tenant);
  const [ra, rb] = await Promise.all([a, b].map((q, i) => new SqlApi({ store: stores[i]!, logger }).handle(tenant, 'racer', JSON.stringify({ query: q }), 'application/json')));
  // Both really planned on a snapshot they read before either committed.
  for (const s of stores) expect(s.bases[0]!.cached).toBe(warm);
  const code = (r: { body: unknown }) => (r.body as any).results.at(-1).error?.code as string | undefined;
  return { a: { status: ra!.status, code: code(ra!) }, b: { status: rb!.status, code: code(rb!) } };
}

/** Every live object's references point at live objects, and every counter matches. */
async function dependencyViolations(tenant: string): Promise<string[]> {
  const objects = (await partitionItems(p, `T#${tenant}`)).filter((i) => i.type === 'object');
  const live = new Map(objects.filter((o) => !o.dropped).map((o) => [o.id as string, o]));
  const problems: string[] = [];
  const counts = new Map<string, number>();
  for (const o of live.values()) {
    for (const d of (o.dependsOn ?? []) as string[]) {
      if (!live.has(d)) problems.push(`${o.name} depends on missing ${d}`);
      counts.set(d, (counts.get(d) ?? 0) + 1);
    }
  }
  for (const o of live.values()) if ((o.dependents ?? 0) !== (counts.get(o.id) ?? 0)) problems.push(`${o.name}: dependents ${o.dependents} != ${counts.get(o.id) ?? 0}`);
  return problems;
}

async function newTenant(): Promise<string> {
  const tenant = `race${Math.random().toString(36).slice(2, 8)}`;
  await p.passwords.create(tenant);
  return tenant;
}

/** A new tenant with roles r0..r19 and what `first` makes. */
async function tenantWithRoles(first: string): Promise<string> {
  const tenant = await newTenant();
  const roles = Array.from({ length: 20 }, (_, i) => `CREATE ROLE r${i}`).join('; ');
  const setup = new SqlApi({ store: new CatalogStore(p.clients.doc, p.config.catalogTable), logger });
  expect((await setup.handle(tenant, 'setup', JSON.stringify({ query: `${first}; ${roles}` }), 'application/json')).status).toBe(200);
  return tenant;
}

describe.each([
  ['each reading the table', false],
  ['each planning on its cached snapshot', true],
])('racing pairs, %s', (_label, warm) => {
  it('50 pairs of same-name CREATEs: exactly one winner each', async () => {
    const tenant = await newTenant();
    for (let i = 0; i < 50; i++) {
      const r = await race(tenant, `CREATE TABLE dup${i} (a int)`, `CREATE VIEW dup${i} AS SELECT 1`, warm);
      const winners = [r.a, r.b].filter((x) => x.status === 200);
      expect(winners, JSON.stringify(r)).toHaveLength(1);
      const loser = [r.a, r.b].find((x) => x.status !== 200)!;
      expect(['42P07', '40001']).toContain(loser.code);
    }
    const names = (await partitionItems(p, `T#${tenant}`)).filter((i) => i.type === 'object' && /^dup/.test(i.name));
    expect(names).toHaveLength(50);
    expect(await dependencyViolations(tenant)).toEqual([]);
  });

  it('50 pairs of CREATE VIEW v AS SELECT * FROM t against DROP TABLE t: one winner, no dangling dependency', async () => {
    const tenant = await newTenant();
    const setup = new SqlApi({ store: new CatalogStore(p.clients.doc, p.config.catalogTable), logger });
    for (let i = 0; i < 50; i += 25) {
      const stmts = Array.from({ length: 25 }, (_, j) => `CREATE TABLE t${i + j} (a int)`).join('; ');
      expect((await setup.handle(tenant, 'setup', JSON.stringify({ query: stmts }), 'application/json')).status).toBe(200);
    }
    const outcomes = { viewWon: 0, dropWon: 0 };
    for (let i = 0; i < 50; i++) {
      const r = await race(tenant, `CREATE VIEW v${i} AS SELECT * FROM t${i}`, `DROP TABLE t${i}`, warm);
      const both = r.a.status === 200 && r.b.status === 200;
      expect(both, JSON.stringify(r)).toBe(false);
      if (r.a.status === 200) {
        outcomes.viewWon++;
        expect(['2BP01', '40001']).toContain(r.b.code);
      } else {
        expect(r.b.status, JSON.stringify(r)).toBe(200);
        outcomes.dropWon++;
        expect(['42P01', '40001']).toContain(r.a.code);
      }
    }
    expect(outcomes.viewWon + outcomes.dropWon).toBe(50);
    expect(await dependencyViolations(tenant)).toEqual([]);
  });

  it('20 pairs of GRANT SELECT ON t TO r against DROP ROLE r: never both, and no ACL names a dropped role', async () => {
    const tenant = await tenantWithRoles('CREATE TABLE t (a int)');
    for (let i = 0; i < 20; i++) {
      const r = await race(tenant, `GRANT SELECT ON t TO r${i}`, `DROP ROLE r${i}`, warm);
      expect(r.a.status === 200 && r.b.status === 200, JSON.stringify(r)).toBe(false);
      // The GRANT lost to the drop (unknown role), or the drop to the GRANT (the role holds a privilege).
      if (r.a.status === 200) expect(['2BP01', '40001']).toContain(r.b.code);
      else expect(['42704', '40001']).toContain(r.a.code);
    }
    const objects = (await partitionItems(p, `T#${tenant}`)).filter((i) => i.type === 'object' && !i.dropped);
    const liveRoles = new Set(objects.filter((o) => o.kind === 'role').map((o) => o.id as string));
    const grantees = ((objects.find((o) => o.name === 't')!.privileges ?? []) as { grantee: string }[]).map((a) => a.grantee).filter((g) => g !== 'u1');
    expect(grantees.filter((g) => !liveRoles.has(g))).toEqual([]);
  });

  it('20 pairs of GRANT g TO r against DROP ROLE r: no membership outlives its role', async () => {
    const tenant = await tenantWithRoles('CREATE ROLE g');
    for (let i = 0; i < 20; i++) {
      const r = await race(tenant, `GRANT g TO r${i}`, `DROP ROLE r${i}`, warm);
      // Both may succeed one after the other (the drop then takes the membership with it).
      if (r.a.status !== 200) expect(['42704', '40001']).toContain(r.a.code);
      if (r.b.status !== 200) expect(r.b.code).toBe('40001');
    }
    expect(await dependencyViolations(tenant)).toEqual([]);
  });
});

describe('TransactionConflict', () => {
  /** A document client whose next `n` transactions are cancelled the way DynamoDB cancels a conflicting one. */
  function conflictingStore(n: number) {
    const state = { remaining: n };
    const doc = {
      send: (cmd: unknown) => {
        if (cmd instanceof TransactWriteCommand && state.remaining > 0) {
          state.remaining--;
          const reasons = Array.from({ length: 4 }, (_, i) => ({ Code: i === 1 ? 'TransactionConflict' : 'None' }));
          return Promise.reject(new TransactionCanceledException({ message: 'Transaction cancelled', $metadata: {}, CancellationReasons: reasons }));
        }
        return p.clients.doc.send(cmd as never);
      },
    } as unknown as DynamoDBDocumentClient;
    return { store: new CatalogStore(doc, p.config.catalogTable), state };
  }

  it('is retried by replanning, and succeeds', async () => {
    const tenant = await newTenant();
    const { store, state } = conflictingStore(2);
    const r = await new SqlApi({ store, logger }).handle(tenant, 't', JSON.stringify({ query: 'CREATE TABLE a (x int)' }), 'application/json');
    expect(r.status).toBe(200);
    expect(state.remaining).toBe(0);
  });

  it('answers 40001 once the retry budget is spent, with nothing committed', async () => {
    const tenant = await newTenant();
    const { store } = conflictingStore(100);
    const r = await new SqlApi({ store, logger }).handle(tenant, 't', JSON.stringify({ query: 'CREATE TABLE a (x int)' }), 'application/json');
    expect(r.status).toBe(409);
    expect((r.body as any).results[0].error).toMatchObject({ code: '40001', hint: expect.stringMatching(/retry/) });
    expect((await partitionItems(p, `T#${tenant}`)).filter((i) => i.type === 'object' && i.kind === 'table')).toEqual([]);
  });
});
