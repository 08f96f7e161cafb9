/**
 * The file moves of issue 31 (layers without cycles, docs/architecture.md "Layers"): pure models
 * moved down to where the layers below them can import them, and the stages that used a higher
 * folder moved up beside it. Every import of a moved file is rewritten (anywhere in the
 * repository), as is every mention of its path in docs and comments.
 *
 * Replayable: `npx tsx test/MOVES-31.ts` from the repository root. A move whose source is gone is
 * skipped, and the rewrites run again, so a branch that still imports an old path (written before
 * the moves were merged) is brought up to date by running it once more.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

export const MOVES: readonly (readonly [string, string])[] = [
  // SDK client builders: the secret store and aws.ts (below the wiring) use them.
  ['shared/lambda/clients/call-recorder.ts', 'shared/clients/call-recorder.ts'],
  ['shared/lambda/clients/dynamodb.ts', 'shared/clients/dynamodb.ts'],
  ['shared/lambda/clients/eventbridge.ts', 'shared/clients/eventbridge.ts'],
  ['shared/lambda/clients/options.ts', 'shared/clients/options.ts'],
  ['shared/lambda/clients/secrets-manager.ts', 'shared/clients/secrets-manager.ts'],
  ['shared/lambda/clients/sqs.ts', 'shared/clients/sqs.ts'],
  ['shared/lambda/clients/streams.ts', 'shared/clients/streams.ts'],
  // The Postgres wire protocol's codecs and SCRAM: pure, used by app passwords, the API and the PGlite host.
  ['shared/pgwire/protocol.ts', 'shared/wire/protocol.ts'],
  ['shared/pgwire/scram.ts', 'shared/wire/scram.ts'],
  // Object and transaction ids (the catalog's keys), used by the API and the executor.
  ['shared/api/ids.ts', 'shared/catalog/ids.ts'],
  // The effects a catalog change implies: a function of catalog objects.
  ['shared/effects/derive.ts', 'shared/catalog/derive.ts'],
  // A resource's desired state from its catalog object: the executor's.
  ['shared/effects/desired.ts', 'shared/executor/desired.ts'],
  // Sending effects to their queues: beside the router's routing, which they share.
  ['shared/effects/admission.ts', 'shared/router/admission.ts'],
  ['shared/effects/fast-path.ts', 'shared/router/fast-path.ts'],
  ['shared/effects/redrive.ts', 'shared/router/redrive.ts'],
  ['test/effects/admission.test.ts', 'test/router/admission.test.ts'],
  ['test/effects/admission-unit.test.ts', 'test/router/admission-unit.test.ts'],
  ['test/effects/fast-path.test.ts', 'test/router/fast-path.test.ts'],
  // The status-ingest stage, above the stores it writes; shared/status keeps the status model.
  ['shared/status/ingest.ts', 'shared/status-ingest/ingest.ts'],
  ['shared/status/handler.ts', 'shared/status-ingest/handler.ts'],
  // Byte position → line and column: ddlctl and the console (which must not import the CLI) both use it.
  ['cli/caret.ts', 'shared/sql/caret.ts'],
];

const SOURCE = /\.(ts|mts|cts|mjs|cjs|js)$/;
const TEXT = /\.(md|ts|mts|mjs|cjs|js|json|sh|html|yml|yaml)$/;
const noExt = (p: string) => p.replace(/\.(ts|mts|cts|mjs|cjs|js)$/, '');

function tracked(): string[] {
  return execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((f) => f && !f.startsWith('node_modules/') && !f.startsWith('test/conformance/data/') && existsSync(join(ROOT, f)));
}

/** Specifier from `fromFile` to `target` (a repository path without extension), as imports write it. */
function specifier(fromFile: string, target: string): string {
  const rel = posix.relative(posix.dirname(fromFile), target);
  return rel.startsWith('.') ? rel : `./${rel}`;
}

/** Rewrites the relative module specifiers of `file` (now at `now`, formerly at `was`) whose target moved. */
function rewriteImports(file: string, was: string, text: string, moved: ReadonlyMap<string, string>): string {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const edits: { start: number; end: number; value: string }[] = [];
  const consider = (lit: ts.StringLiteralLike) => {
    const spec = lit.text;
    if (!spec.startsWith('.')) return;
    const ext = /\.(js|ts|mjs)$/.exec(spec)?.[0] ?? '';
    const target = posix.normalize(posix.join(posix.dirname(was), spec.slice(0, spec.length - ext.length)));
    const newTarget = moved.get(target) ?? target;
    if (newTarget === target && was === file) return;
    const next = specifier(file, newTarget) + ext;
    if (next !== spec) edits.push({ start: lit.getStart(sf) + 1, end: lit.getEnd() - 1, value: next });
  };
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteralLike(node.moduleSpecifier)) consider(node.moduleSpecifier);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteralLike(node.argument.literal)) consider(node.argument.literal);
    else if (ts.isCallExpression(node) && (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === 'require')) && node.arguments[0] && ts.isStringLiteralLike(node.arguments[0])) consider(node.arguments[0]);
    else if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && ['mock', 'doMock', 'importActual'].includes(node.expression.name.text) && node.arguments[0] && ts.isStringLiteralLike(node.arguments[0])) consider(node.arguments[0]);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  let out = text;
  for (const e of edits.sort((a, b) => b.start - a.start)) out = out.slice(0, e.start) + e.value + out.slice(e.end);
  return out;
}

/** Mentions of a moved path in prose and comments (`shared/effects/admission.ts`, `cli/caret.ts`). */
function rewriteMentions(text: string): string {
  let out = text;
  for (const [from, to] of MOVES) {
    const pattern = new RegExp(`(?<![\\w./-])${noExt(from).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}(?=\\.ts\\b|[^\\w/-]|$)`, 'g');
    out = out.replace(pattern, noExt(to));
  }
  return out;
}

export function applyMoves(): void {
  const movedFiles = new Map<string, string>();
  for (const [from, to] of MOVES) {
    if (existsSync(join(ROOT, from))) {
      mkdirSync(dirname(join(ROOT, to)), { recursive: true });
      execFileSync('git', ['mv', from, to], { cwd: ROOT });
      movedFiles.set(to, from);
    }
  }
  const moved = new Map(MOVES.map(([from, to]) => [noExt(from), noExt(to)]));
  for (const file of tracked()) {
    if (!TEXT.test(file)) continue;
    const path = join(ROOT, file);
    const before = readFileSync(path, 'utf8');
    let after = SOURCE.test(file) ? rewriteImports(file, movedFiles.get(file) ?? file, before, moved) : before;
    if (file !== 'test/MOVES-31.ts') after = rewriteMentions(after);
    if (after !== before) writeFileSync(path, after);
  }
}

if (process.argv[1] && relative(process.argv[1], fileURLToPath(import.meta.url)) === '') applyMoves();
