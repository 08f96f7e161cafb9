// The published bench report (bench/lib/report.ts): every row with a target that the run missed says why.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeReport, type Results } from '../../bench/lib/report';

/** The rows of every table in a markdown report whose mark column says ✗, as their cells. */
function missedRows(md: string): string[][] {
  return md
    .split('\n')
    .filter((line) => line.startsWith('| ') && line.includes(' | ✗ |'))
    .map((line) =>
      line
        .slice(2, -2)
        .split(' | ')
        .map((c) => c.trim()),
    );
}

describe('the bench report', () => {
  it('gives a cause beside every miss, in the summary table and in the ratio rows, for the published run', () => {
    // Prepare: the run in bench/results (regenerated from its JSON, as bench/render.ts does).
    const results = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'bench', 'results', 'latest.json'), 'utf8')) as Results;
    const dir = mkdtempSync(join(tmpdir(), 'bench-report-'));
    try {
      // Act
      writeReport({ ...results, rows: undefined } as Results, dir);
      const md = readFileSync(join(dir, 'latest.md'), 'utf8');

      // Assess: the cause is the cell after the mark; there are misses to explain (the run is not all met).
      const missed = missedRows(md);
      expect(missed.length).toBeGreaterThan(0);
      for (const cells of missed) {
        const cause = cells[cells.indexOf('✗') + 1];
        expect(cause, cells[1]).toBeTruthy();
        expect(cause!.length, cells[1]).toBeGreaterThan(20);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a summary miss without a cause of its own points at its section', () => {
    // Prepare: a run whose only figure is a parse + plan over its budget.
    const parsePlan = { rows: [{ statement: 'CREATE TABLE t (a int)', catalogObjects: 4, p50Us: 500, p99Us: 600, meanUs: 500, parseMeanUs: 10 }] };
    const r = { machine: { cpuModel: 'x', cores: 2, memoryGiB: 1, os: 'linux', node: 'v20', java: '17', date: '2026-12-07', loadAverageAtStart: [1, 1, 1] }, quick: false, errors: [], rows: [], parsePlan } as unknown as Results;
    const dir = mkdtempSync(join(tmpdir(), 'bench-report-'));
    try {
      // Act
      writeReport(r, dir);

      // Assess
      const [row] = missedRows(readFileSync(join(dir, 'latest.md'), 'utf8'));
      expect(row![1]).toMatch(/^Parse \+ plan, 4-object catalog/);
      expect(row![row!.length - 1]).toBe('the figures of section 1 below');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
