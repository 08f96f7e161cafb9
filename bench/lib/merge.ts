/**
 * Merging a single-phase run into a complete one (`npx tsx bench/render.ts --merge FROM`): the
 * phases FROM measured replace the same phases of the complete run, every other phase's figures
 * stay, and the report says which phases came from which run (its date and load). Pure.
 */
import type { Results } from './report';

/** Keys of Results that describe a run rather than hold a phase's figures. */
const RUN_KEYS = new Set<string>(['machine', 'quick', 'errors', 'warmup', 'phaseTimes', 'wallSeconds', 'rows', 'merged']);

const PHASE_OF_KEY: Record<string, string> = { parsePlan: 'parse' };

export function mergeResults(into: Results, from: Results): Results {
  if (from.quick) throw new Error('refusing to merge a --quick run into published figures');
  const keys = Object.keys(from).filter((k) => !RUN_KEYS.has(k) && (from as unknown as Record<string, unknown>)[k] !== undefined);
  if (keys.length === 0) throw new Error('the run to merge measured no phase');
  // A phase is named by its key in Results, but for parse (parsePlan).
  const phases = [...new Set(keys.map((k) => PHASE_OF_KEY[k] ?? k))];
  const ofPhase = (text: string) => phases.some((p) => text === p || text.startsWith(`${p}:`));
  const out: Results = {
    ...into,
    ...Object.fromEntries(keys.map((k) => [k, (from as unknown as Record<string, unknown>)[k]])),
    phaseTimes: [...(into.phaseTimes ?? []).filter((p) => !phases.includes(p.phase)), ...(from.phaseTimes ?? [])],
    errors: [...(into.errors ?? []).filter((e) => !ofPhase(e)), ...(from.errors ?? [])],
    merged: [...(into.merged ?? []).map((m) => ({ ...m, phases: m.phases.filter((p) => !phases.includes(p)) })).filter((m) => m.phases.length > 0), { phases, machine: from.machine }],
  };
  delete out.rows;
  return out;
}
