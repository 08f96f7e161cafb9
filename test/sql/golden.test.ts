/**
 * Golden-file tests for the SQL parser and printer (Materialize's sqllogictest-like style).
 *
 * Every `test/sql/golden/*.txt` file holds cases separated by a line that is exactly `====`
 * (blank lines around it are ignored). A case is:
 *
 *     # optional comment lines (starting with '#') saying what the case is about
 *     the input SQL: one or more lines, possibly several statements separated by ';'
 *     ----
 *     the expected output
 *
 * The expected output is either
 *   - on success: each statement printed back in canonical form, one per line (a view body kept
 *     as typed that itself spans lines spans them here too; a request with no statement prints
 *     nothing), or
 *   - on failure: `error: <SQLSTATE> <message>`, then the input line holding the error position,
 *     then a line with a caret `^` under that position (the position is a byte offset; the caret
 *     is placed by characters).
 *
 * Every successful case also asserts the round trip: parse(print(ast)) deep-equals ast (positions
 * aside, see `stripPositions`), and printing that again gives the same text.
 *
 * `REWRITE_GOLDEN=1 npx vitest run test/sql/golden.test.ts` rewrites the expected outputs from what
 * the parser does now. Review the diff line by line: the expected outputs are the assertions.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ControlPlaneError } from '../../shared/errors';
import type { Statement } from '../../shared/sql/ast';
import { stripPositions } from '../../shared/sql/compare';
import { caret, formatGoldenFile, parseGoldenFile, type GoldenCase } from '../helpers/golden';
import { parse } from '../../shared/sql/parser';
import { print } from '../../shared/sql/printer';

const GOLDEN_DIR = join(dirname(fileURLToPath(import.meta.url)), 'golden');
const REWRITE = process.env.REWRITE_GOLDEN === '1';

interface Outcome {
  readonly output: string;
  readonly statements: readonly Statement[];
}

function run(input: string): Outcome {
  try {
    const statements = parse(input).map((p) => p.statement);
    return { output: statements.map((s) => print(s)).join('\n'), statements };
  } catch (e) {
    if (!(e instanceof ControlPlaneError)) throw e;
    const lines = [`error: ${e.code} ${e.message}`];
    if (e.position !== undefined) lines.push(...caret(input, e.position));
    return { output: lines.join('\n'), statements: [] };
  }
}

const files = readdirSync(GOLDEN_DIR)
  .filter((f) => f.endsWith('.txt'))
  .sort();

describe.each(files)('golden %s', (file) => {
  const path = join(GOLDEN_DIR, file);
  const cases = parseGoldenFile(readFileSync(path, 'utf8'));
  const rewritten: GoldenCase[] = cases.map((c) => ({ ...c }));

  if (REWRITE) {
    afterAll(() => {
      writeFileSync(path, formatGoldenFile(rewritten));
    });
  }

  cases.forEach((c, k) => {
    const title = `${file}:${c.line} ${c.input.split('\n')[0]!.slice(0, 80)}`;
    it(title, () => {
      const outcome = run(c.input);
      if (REWRITE) {
        rewritten[k] = { ...c, expected: outcome.output };
      } else {
        expect(outcome.output).toBe(c.expected);
      }
      for (const s of outcome.statements) {
        const printed = print(s);
        const reparsed = parse(printed);
        expect(reparsed.length, `printed: ${printed}`).toBe(1);
        expect(stripPositions(reparsed[0]!.statement), `printed: ${printed}`).toEqual(stripPositions(s));
        expect(print(reparsed[0]!.statement)).toBe(printed);
      }
    });
  });
});
