/**
 * Where a connector type's name is spelled in the code of a tree: every string literal (or run of
 * string arguments of one call, or of items of one array: `eatKeywords('sql', 'server')`) equal to
 * one of its spellings — `sql-server`, `sql server`, `sql_server` — with comments left out. Lower
 * case, as the code spells a type and the parser its words: upper-case literals are option names
 * (`SSH TUNNEL` and `AWS PRIVATELINK` are options whose value is a connection) and words of
 * Materialize's messages. test/connectors/connectors.test.ts keeps each type to its descriptor and its probe.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

/** A spelling, reduced: words separated by one space. */
export const reduce = (s: string): string => s.replace(/[-_\s]+/g, ' ').trim();

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : /\.(ts|mts|mjs)$/.test(e.name) ? [join(dir, e.name)] : []));
}

/** The reduced texts of a file's string literals, and of its runs of string arguments and array items. */
export function literalsOf(text: string, fileName = 'x.ts'): Set<string> {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false);
  const out = new Set<string>();
  const run = (items: readonly ts.Node[]) => {
    const strings = items.filter(ts.isStringLiteralLike).map((n) => n.text);
    if (strings.length > 1) out.add(reduce(strings.join(' ')));
  };
  const visit = (node: ts.Node): void => {
    // Module specifiers name files, not types (`./kafka`).
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) return;
    if (ts.isStringLiteralLike(node)) out.add(reduce(node.text));
    else if (ts.isCallExpression(node)) run(node.arguments);
    else if (ts.isArrayLiteralExpression(node)) run(node.elements);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** For each spelling (reduced), the files under `root/dir` that spell it, relative to `root`. */
export function filesSpelling(root: string, dir: string, spellings: readonly string[]): Map<string, string[]> {
  const wanted = new Set(spellings.map(reduce));
  const out = new Map<string, string[]>([...wanted].map((w) => [w, []]));
  for (const path of sources(join(root, dir))) {
    const found = literalsOf(readFileSync(path, 'utf8'), path);
    for (const w of wanted) if (found.has(w)) out.get(w)!.push(relative(root, path).split('\\').join('/'));
  }
  return out;
}
