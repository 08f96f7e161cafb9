// Merging a single-phase bench run into the published one (bench/lib/merge.ts).
import { describe, expect, it } from 'vitest';
import { mergeResults } from '../../bench/lib/merge';
import type { Results } from '../../bench/lib/report';

const machine = (date: string, load: number) => ({ cpuModel: 'x', cores: 2, memoryGiB: 1, os: 'linux', node: 'v20', java: '17', date, loadAverageAtStart: [load, load, load] });
const time = (phase: string, seconds: number) => ({ phase, seconds, loadAverage1m: { start: 1, end: 1 }, probePutP50Ms: { before: null, after: null } });
const parser = (n: number) => ({ ours: { statementsPerSecond: n } }) as unknown as Results['parser'];

describe('mergeResults', () => {
  const full: Results = {
    machine: machine('2026-12-01', 20),
    quick: false,
    wallSeconds: 3000,
    warmup: { seconds: 10, requests: 20 },
    parser: parser(1),
    cost: [],
    phaseTimes: [time('parser', 5), time('cost', 60)],
    errors: ['cost: something'],
    rows: [],
  };

  it("replaces the merged run's phases, keeps the others, and says where each came from", () => {
    const one: Results = { machine: machine('2026-12-02', 13), quick: false, warmup: { seconds: 9, requests: 1 }, parser: parser(2), phaseTimes: [time('parser', 7)], errors: [] };
    const m = mergeResults(full, one);
    expect(m.parser).toEqual(parser(2));
    expect(m.cost).toEqual([]);
    expect(m.machine.date).toBe('2026-12-01');
    expect(m.warmup).toEqual({ seconds: 10, requests: 20 });
    expect(m.phaseTimes!.map((p) => [p.phase, p.seconds])).toEqual([
      ['cost', 60],
      ['parser', 7],
    ]);
    expect(m.errors).toEqual(['cost: something']);
    expect(m.merged).toEqual([{ phases: ['parser'], machine: one.machine }]);
    expect(m.rows).toBeUndefined();
  });

  it("keeps a phase's figures from a run stopped part-way (no phase time), and a later merge of the same phase supersedes the earlier one", () => {
    const partial: Results = { machine: machine('2026-12-02', 13), quick: false, cost: [], errors: ['cost: stopped'] };
    const once = mergeResults(full, partial);
    expect(once.phaseTimes!.map((p) => p.phase)).toEqual(['parser']);
    expect(once.errors).toEqual(['cost: stopped']);
    const twice = mergeResults(once, { ...partial, machine: machine('2026-12-03', 2), errors: [] });
    expect(twice.merged).toEqual([{ phases: ['cost'], machine: machine('2026-12-03', 2) }]);
  });

  it('refuses a --quick run and a run without figures', () => {
    expect(() => mergeResults(full, { machine: machine('d', 1), quick: true, parser: parser(3) })).toThrow('refusing to merge a --quick run into published figures');
    expect(() => mergeResults(full, { machine: machine('d', 1), quick: false, warmup: { seconds: 1, requests: 1 } })).toThrow('the run to merge measured no phase');
  });
});
