/**
 * `npx tsx bench/render.ts [DIR] [--merge FROM]`: writes a run's report (latest.md and the charts)
 * again from its latest.json, with today's rows and report code — the figures are the run's,
 * nothing is measured. For a change to bench/lib/rows.ts or report.ts that should show on the
 * published run. With `--merge FROM`, the phases of the run in FROM (an `--only` run's output
 * directory) replace the same phases in DIR's latest.json first (lib/merge.ts); the other phases'
 * figures stay.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { mergeResults } from './lib/merge';
import { writeReport, type Results } from './lib/report';
import { benchRows } from './lib/rows';

const { values, positionals } = parseArgs({ options: { merge: { type: 'string' } }, allowPositionals: true });
const dir = positionals[0] ?? join(import.meta.dirname, 'results');
const read = (d: string) => JSON.parse(readFileSync(join(d, 'latest.json'), 'utf8')) as Results;
let results = read(dir);
if (values.merge !== undefined) {
  results = mergeResults(results, read(values.merge));
  results.rows = benchRows(results);
  writeFileSync(join(dir, 'latest.json'), JSON.stringify(results, null, 2) + '\n');
  console.log(`merged ${results.merged!.at(-1)!.phases.join(', ')} from ${values.merge} into ${join(dir, 'latest.json')}`);
}
results.rows = benchRows(results);
for (const f of writeReport(results, dir)) console.log(`wrote ${f}`);
