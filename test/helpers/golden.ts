/**
 * The golden-file format the parser's and the planner's golden tests share (Materialize's
 * sqllogictest-like style): cases separated by a line that is exactly `====` (blank lines around
 * it are ignored), each case being optional `#` comment lines, the input, a `----` line, and the
 * expected output.
 */
import { charIndex } from '../../shared/sql/lexer';

export interface GoldenCase {
  readonly comments: readonly string[];
  readonly input: string;
  readonly expected: string;
  /** 1-based line of the input's first line, for test names. */
  readonly line: number;
}

export function parseGoldenFile(text: string): GoldenCase[] {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  const chunks: { lines: string[]; firstLine: number }[] = [{ lines: [], firstLine: 1 }];
  lines.forEach((l, k) => {
    if (l === '====') chunks.push({ lines: [], firstLine: k + 2 });
    else chunks[chunks.length - 1]!.lines.push(l);
  });
  const cases: GoldenCase[] = [];
  for (const chunk of chunks) {
    const ls = [...chunk.lines];
    let line = chunk.firstLine;
    while (ls.length > 0 && ls[0]!.trim() === '') {
      ls.shift();
      line++;
    }
    while (ls.length > 0 && ls[ls.length - 1]!.trim() === '') ls.pop();
    if (ls.length === 0) continue;
    const comments: string[] = [];
    while (ls.length > 0 && ls[0]!.startsWith('#')) {
      comments.push(ls.shift()!);
      line++;
    }
    const sep = ls.indexOf('----');
    if (sep < 0) throw new Error(`golden case at line ${line} has no '----' line`);
    cases.push({ comments, input: ls.slice(0, sep).join('\n'), expected: ls.slice(sep + 1).join('\n'), line });
  }
  return cases;
}

export function formatGoldenFile(cases: readonly GoldenCase[]): string {
  return `${cases.map((c) => [...c.comments, c.input, '----', ...(c.expected === '' ? [] : [c.expected])].join('\n')).join('\n\n====\n\n')}\n`;
}

/** The caret display: the input line holding the error, and `^` under the error's position. */
export function caret(input: string, bytePosition: number): string[] {
  const at = charIndex(input, bytePosition);
  const lineStart = input.lastIndexOf('\n', at - 1) + 1;
  const nl = input.indexOf('\n', at);
  const lineEnd = nl < 0 ? input.length : nl;
  const column = [...input.slice(lineStart, at)].length;
  return [input.slice(lineStart, lineEnd), `${' '.repeat(column)}^`];
}
