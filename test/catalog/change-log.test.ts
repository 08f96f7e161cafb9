/**
 * The bounded change log on the catalog-version item (shared/catalog/change-log.ts): a loser of a
 * commit race replays it onto the snapshot it planned on. Replayed from any version the log
 * covers, the snapshot must be exactly the catalog at the target (what reading the table would
 * give), whatever the commits did (creates, updates, drops, counter-only changes, several to one
 * object); a gap the log does not cover must not be replayed at all; and the log must stay in its
 * byte budget, newest entries first.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { appendToLog, logBudget, logEntry, logOf, replay, VERSION_ITEM_BYTES, type ChangeLog } from '../../shared/catalog/change-log';
import { CatalogSnapshot, type CatalogObject } from '../../shared/catalog/model';
import type { CatalogOp, ChangeSet } from '../../shared/catalog/ops';

const NOW = '2026-01-01T00:00:00.000Z';
const base = { generation: 1, version: 1, dependents: 0, createdAt: NOW, updatedAt: NOW, owner: 'o' };
const table = (id: string, name: string, pad = 0): CatalogObject =>
  ({ ...base, id, name, kind: 'table', dependsOn: ['s1'], spec: { schemaId: 's1', createSql: `CREATE TABLE ${name} (a int)${' '.repeat(pad)}`, columns: [] } }) as CatalogObject;
const schema = { ...base, id: 's1', name: 'public', kind: 'schema', dependsOn: [], spec: { databaseId: 'd1' } } as CatalogObject;

type Step = { op: 'create'; id: number; pad: number } | { op: 'rename'; id: number } | { op: 'drop'; id: number } | { op: 'count'; id: number; delta: number } | { op: 'both'; id: number };
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constant('create' as const), id: fc.nat(7), pad: fc.constantFrom(0, 0, 0, 600, 2000) }),
  fc.record({ op: fc.constant('rename' as const), id: fc.nat(7) }),
  fc.record({ op: fc.constant('drop' as const), id: fc.nat(7) }),
  fc.record({ op: fc.constant('count' as const), id: fc.nat(7), delta: fc.constantFrom(-1, 1, 2) }),
  // A counter change after another change to the same object in one commit: its `before` is not the basis's.
  fc.record({ op: fc.constant('both' as const), id: fc.nat(7) }),
);

/** One commit's change set on `snap`, as a planner would emit it (the ops' `before` are the objects it read). */
function changeSet(snap: CatalogSnapshot, steps: readonly Step[], n: number): ChangeSet {
  const ops: CatalogOp[] = [];
  const seen = new Map<string, CatalogObject>();
  const cur = (id: string) => (seen.has(id) ? seen.get(id) : snap.get(id));
  for (const s of steps) {
    const id = `t${s.id}`;
    const o = cur(id);
    if (s.op === 'create') {
      if (o) continue;
      const created = table(id, `n${s.id}_${n}`, s.pad);
      ops.push({ op: 'create_object', object: created }, { op: 'adjust_dependents', id: 's1', delta: 1, before: cur('s1')! });
      seen.set(id, created);
      seen.set('s1', { ...cur('s1')!, dependents: cur('s1')!.dependents + 1 });
    } else if (!o) {
      continue;
    } else if (s.op === 'rename' || s.op === 'both') {
      const after = { ...o, name: `r${n}_${o.name}`.slice(0, 40), generation: o.generation + 1 } as CatalogObject;
      ops.push({ op: 'update_object', before: o, after });
      seen.set(id, after);
      if (s.op === 'both') {
        ops.push({ op: 'adjust_dependents', id, delta: 1, before: after });
        seen.set(id, { ...after, dependents: after.dependents + 1 });
      }
    } else if (s.op === 'drop') {
      const after = { ...o, dropped: true, generation: o.generation + 1 } as CatalogObject;
      ops.push({ op: 'drop_object', before: o, after });
      seen.set(id, undefined as never); // gone for the rest of this commit
    } else {
      ops.push({ op: 'adjust_dependents', id, delta: s.delta, before: o });
      seen.set(id, { ...o, dependents: o.dependents + s.delta });
    }
  }
  return { ops, effects: [] };
}

/** What each op leaves behind, as the store's own cache applies a commit (objectsAfter). */
function after(changes: ChangeSet): CatalogObject[] {
  return changes.ops.flatMap((op): CatalogObject[] =>
    op.op === 'create_object' ? [op.object] : op.op === 'update_object' || op.op === 'drop_object' ? [op.after] : op.op === 'adjust_dependents' ? [{ ...op.before, dependents: op.before.dependents + op.delta }] : [],
  );
}

const plain = (s: CatalogSnapshot) => [...s.byId.values()].sort((a, b) => a.id.localeCompare(b.id));

describe('replaying the change log', () => {
  it('gives exactly the catalog at the target from any version the log covers, and nothing for a gap it does not', () => {
    fc.assert(
      fc.property(fc.array(fc.array(stepArb, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 12 }), fc.constantFrom(300, 900, 5000), (commits, budget) => {
        // The truth at every version, and the log the version item holds after each commit.
        const truth: CatalogSnapshot[] = [new CatalogSnapshot('t', [schema])];
        let log: ChangeLog | undefined;
        const logs: (ChangeLog | undefined)[] = [undefined];
        commits.forEach((steps, i) => {
          const snap = truth[i]!;
          const changes = changeSet(snap, steps, i + 1);
          log = appendToLog(log, logEntry(i + 1, changes, snap), budget);
          expect(JSON.stringify(log).length).toBeLessThanOrEqual(budget);
          logs.push(log);
          truth.push(CatalogSnapshot.derive(snap, after(changes)));
        });
        const target = commits.length;
        const held = logs[target]!;
        for (let from = 0; from <= target; from++) {
          const r = replay({ snapshot: truth[from]!, version: from }, target, held);
          const covered = held.length > 0 && from >= held[0]!.v - 1;
          if (from === target) expect(r).toEqual({ objects: [], read: [] });
          else if (!covered) expect(r).toBeUndefined();
          if (!r) continue;
          // What is read again comes from the table, as it is at the target.
          const read = r.read.map((id) => truth[target]!.get(id) ?? ({ ...truth[from]!.get(id)!, dropped: true } as CatalogObject)).filter((o) => o.id);
          expect(plain(CatalogSnapshot.derive(truth[from]!, [...r.objects, ...read]))).toEqual(plain(truth[target]!));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('reads nothing when every entry in the gap is inline, and the ids of an entry held by id', () => {
    const s0 = new CatalogSnapshot('t', [schema]);
    const c1 = changeSet(s0, [{ op: 'create', id: 1, pad: 0 }], 1);
    const s1 = CatalogSnapshot.derive(s0, after(c1));
    const c2 = changeSet(s1, [{ op: 'create', id: 2, pad: 3000 }], 2);
    let log = appendToLog(undefined, logEntry(1, c1, s0), 900);
    log = appendToLog(log, logEntry(2, c2, s1), 900);
    expect(log.map((e) => (e.changes ? 'inline' : 'ids'))).toEqual(['inline', 'ids']);
    expect(replay({ snapshot: s0, version: 0 }, 1, log)!.read).toEqual([]);
    expect(replay({ snapshot: s1, version: 1 }, 2, log)!.read.sort()).toEqual(['s1', 't2']);
    // The schema's counter change is logged as its count alone.
    expect(log[0]!.changes).toContainEqual({ id: 's1', dependents: 1 });
  });
});

describe('the log on the version item', () => {
  it('keeps the newest entries that fit, inline first, by id next, and drops what does not run up to the new entry', () => {
    const s0 = new CatalogSnapshot('t', [schema]);
    const entry = (v: number, pad = 0) => logEntry(v, changeSet(s0, [{ op: 'create', id: v % 8, pad }], v), s0);
    let log: ChangeLog | undefined;
    for (let v = 1; v <= 20; v++) log = appendToLog(log, entry(v), 900);
    expect(log!.map((e) => e.v)).toEqual(Array.from({ length: log!.length }, (_, i) => 20 - log!.length + 1 + i));
    expect(log!.at(-1)!.changes).toBeDefined();
    expect(log!.some((e) => e.ids)).toBe(true);
    expect(JSON.stringify(log).length).toBeLessThanOrEqual(900);
    // A commit the log did not record (a staged one) leaves a hole: nothing before it is kept.
    expect(appendToLog(log, entry(22), 900).map((e) => e.v)).toEqual([22]);
    // An entry too large for the budget even by id: an empty log.
    expect(appendToLog(log, { v: 21, ids: Array.from({ length: 200 }, (_, i) => `u${String(i).padStart(12, '0')}`) }, 900)).toEqual([]);
  });

  it('leaves the item within one write unit', () => {
    const item = { pk: `T#${'x'.repeat(60)}`, sk: 'CATVER', type: 'catalog_version', v: 123456 };
    const budget = logBudget(item);
    expect(budget).toBeGreaterThan(600);
    const s0 = new CatalogSnapshot('t', [schema]);
    let log: ChangeLog | undefined;
    for (let v = 1; v <= 10; v++) log = appendToLog(log, logEntry(v, changeSet(s0, [{ op: 'create', id: v, pad: v * 40 }], v), s0), budget);
    expect(JSON.stringify({ ...item, log }).length).toBeLessThanOrEqual(VERSION_ITEM_BYTES);
    expect(logOf({ ...item, log })).toEqual(log);
    expect(logOf(item)).toBeUndefined();
  });
});
