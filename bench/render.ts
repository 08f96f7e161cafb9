/**
 * `npx tsx bench/render.ts [DIR]`: writes a run's report (latest.md and the charts) again from its
 * latest.json, with today's rows and report code — the figures are the run's, nothing is measured.
 * For a change to bench/lib/rows.ts or report.ts that should show on the published run.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeReport, type Results } from './lib/report';
import { benchRows } from './lib/rows';

const dir = process.argv[2] ?? join(import.meta.dirname, 'results');
const results = JSON.parse(readFileSync(join(dir, 'latest.json'), 'utf8')) as Results;
results.rows = benchRows(results);
for (const f of writeReport(results, dir)) console.log(`wrote ${f}`);
