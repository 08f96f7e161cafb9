/**
 * The conformance suite in two parts, by file: the part fixes are made against, and a held-back
 * fifth that nobody opens while fixing. Their scores are reported side by side: a gap that grows
 * means the fixes follow the statements of the files we read rather than Materialize's rules.
 *
 * The held-back files are chosen by a seeded hash of their names, not by hand, and named in
 * held-back.json so the split is fixed in the repository (a re-extraction that adds files puts a
 * fifth of the new ones aside the same way; the test checks the list against the rule).
 *
 *   npx tsx test/conformance/parts.ts      # writes held-back.json from the files in cases/
 */
import { createHash } from 'node:crypto';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const HELD_BACK_SEED = 'ddl-control-plane conformance held-back part, issue 30';
export const HELD_BACK_FRACTION = 1 / 5;
export const CASES_DIR = join(import.meta.dirname, 'cases');
export const HELD_BACK_FILE = join(import.meta.dirname, 'held-back.json');

const rank = (name: string) => createHash('sha256').update(HELD_BACK_SEED).update('\0').update(name).digest('hex');

/** The held-back case files among `names` (file names in cases/): the fifth with the lowest seeded hash. */
export function heldBack(names: readonly string[]): string[] {
  const count = Math.round(names.length * HELD_BACK_FRACTION);
  return [...names].sort((a, b) => (rank(a) < rank(b) ? -1 : rank(a) > rank(b) ? 1 : 0)).slice(0, count).sort();
}

export function caseFileNames(dir = CASES_DIR): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort();
}

function main(): void {
  const names = heldBack(caseFileNames());
  writeFileSync(HELD_BACK_FILE, `${JSON.stringify({ seed: HELD_BACK_SEED, files: names }, null, 1)}\n`);
  process.stdout.write(`${names.length} held-back files written to ${HELD_BACK_FILE}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
