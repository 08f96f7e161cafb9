/**
 * Reads a corpus file of test/sql/corpus (statements from Materialize's documentation and tests).
 * The format is described at the top of `test/sql/corpus/materialize-docs.sql`.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CORPUS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'sql', 'corpus');

export interface CorpusStatement {
  readonly sql: string;
  readonly source: string;
  /** Why Materialize itself rejects it, for documentation slips. */
  readonly errata?: string;
  /** 1-based line of the statement's first line in the corpus file. */
  readonly line: number;
}

/**
 * Splits a corpus file into statements. A statement ends at a `;` that ends a line outside string
 * literals, quoted identifiers, dollar quotes and comments; `-- source:` / `-- errata:` lines
 * between statements describe the next one. Independent of the lexer under test on purpose.
 */
export function readCorpus(file: string): CorpusStatement[] {
  const lines = readFileSync(join(CORPUS_DIR, file), 'utf8').replace(/\r\n/g, '\n').split('\n');
  const out: CorpusStatement[] = [];
  let source = '';
  let errata: string | undefined;
  let current: string[] = [];
  let firstLine = 0;
  // Scanner state carried across lines: inside '...', "...", $tag$...$tag$ or /* ... */.
  let inside: { kind: 'quote'; close: string } | { kind: 'block' } | undefined;

  /** Scans one line; returns whether it ends the statement (`;` last, outside anything). */
  const scan = (line: string): boolean => {
    let lastSemicolon = -1;
    for (let k = 0; k < line.length; k++) {
      const c = line[k]!;
      if (inside?.kind === 'quote') {
        if (line.startsWith(inside.close, k)) {
          k += inside.close.length - 1;
          inside = undefined;
        }
        continue;
      }
      if (inside?.kind === 'block') {
        if (line.startsWith('*/', k)) {
          k++;
          inside = undefined;
        }
        continue;
      }
      if (line.startsWith('--', k)) break;
      if (line.startsWith('/*', k)) {
        inside = { kind: 'block' };
        k++;
      } else if (c === "'" || c === '"') {
        inside = { kind: 'quote', close: c };
      } else if (c === '$') {
        const tag = /^\$[A-Za-z_]*\$/.exec(line.slice(k));
        if (tag) {
          inside = { kind: 'quote', close: tag[0] };
          k += tag[0].length - 1;
        }
      } else if (c === ';') {
        lastSemicolon = k;
      } else if (!/\s/.test(c)) {
        lastSemicolon = -1;
      }
    }
    return inside === undefined && lastSemicolon >= 0;
  };

  lines.forEach((line, index) => {
    if (current.length === 0) {
      const meta = /^-- (source|errata): (.*)$/.exec(line);
      if (meta) {
        if (meta[1] === 'source') [source, errata] = [meta[2]!, undefined];
        else errata = meta[2]!;
        return;
      }
      if (line.trim() === '' || line.startsWith('--')) return;
      firstLine = index + 1;
    }
    current.push(line);
    if (scan(line)) {
      out.push({ sql: current.join('\n'), source, line: firstLine, ...(errata !== undefined ? { errata } : {}) });
      current = [];
      [source, errata] = ['', undefined];
    }
  });
  if (current.length > 0) throw new Error(`${file}:${firstLine}: statement not terminated by ';' at the end of a line`);
  return out;
}

