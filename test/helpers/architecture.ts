/**
 * Reads the imports of every source file under `shared/` (with the TypeScript parser, so a
 * type-only import is told from one that brings in a value) for the architecture guard
 * (test/project/architecture.test.ts). Takes the repository root, so the same rules can be run
 * on another checkout.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

export interface ImportRef {
  /** The importing file, relative to the root, with `/` separators. */
  readonly file: string;
  /** The module specifier as written. */
  readonly from: string;
  /** For a relative specifier: the imported path relative to the root (no extension). */
  readonly target?: string;
  /** Brings in types only (`import type`, `import('...')` in a type, every specifier `type`). */
  readonly typeOnly: boolean;
  /** Value names it brings in. */
  readonly values: readonly string[];
  /** A side-effect, namespace, default, `export *` or dynamic import: values it may use are not listed. */
  readonly opaque: boolean;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

const posix = (p: string) => p.split('\\').join('/');
const valueNames = (elements: ts.NodeArray<ts.ImportSpecifier | ts.ExportSpecifier>) => elements.filter((e) => !e.isTypeOnly).map((e) => (e.propertyName ?? e.name).text);

function importsOf(root: string, path: string): ImportRef[] {
  const file = posix(relative(root, path));
  const sf = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, false);
  const out: ImportRef[] = [];
  const ref = (from: string, values: string[], opaque: boolean, typeOnly = !opaque && values.length === 0) =>
    out.push({ file, from, typeOnly, values, opaque, ...(from.startsWith('.') ? { target: posix(relative(root, resolve(dirname(path), from))) } : {}) });
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      if (!clause) ref(node.moduleSpecifier.text, [], true);
      else if (clause.isTypeOnly) ref(node.moduleSpecifier.text, [], false, true);
      else {
        const bindings = clause.namedBindings;
        ref(node.moduleSpecifier.text, bindings && ts.isNamedImports(bindings) ? valueNames(bindings.elements) : [], clause.name !== undefined || (bindings !== undefined && ts.isNamespaceImport(bindings)));
      }
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      if (node.isTypeOnly) ref(node.moduleSpecifier.text, [], false, true);
      else ref(node.moduleSpecifier.text, node.exportClause && ts.isNamedExports(node.exportClause) ? valueNames(node.exportClause.elements) : [], !node.exportClause);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      ref(node.argument.literal.text, [], false, true);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) {
      ref(node.arguments[0].text, [], true);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** Every import of every `.ts` file under `<root>/shared`. */
export function sharedImports(root: string): ImportRef[] {
  return sources(join(root, 'shared')).flatMap((f) => importsOf(root, f));
}

/** The SDK modules whose commands (and command errors) speak to DynamoDB. */
export const DYNAMODB_MODULES: ReadonlySet<string> = new Set(['@aws-sdk/lib-dynamodb', '@aws-sdk/client-dynamodb']);

/** Files that may send DynamoDB commands, and why. */
export const DYNAMODB_COMMAND_USERS: Readonly<Record<string, string>> = {
  'shared/catalog/store.ts': 'CatalogStore',
  'shared/catalog/staged.ts': "CatalogStore's staged commits",
  'shared/catalog/outbox-store.ts': 'OutboxStore',
  'shared/catalog/status-store.ts': 'StatusStore',
  'shared/catalog/password-store.ts': 'app passwords (AUTH# items)',
  'shared/secrets/local-store.ts': 'the secret store (local)',
  'shared/dataplane/reference.ts': "the reference data plane's own table",
  'shared/dynamo.ts': 'the paging Query helper of the files above',
};

/** Files that build clients and send nothing: they may import client classes only. */
export const DYNAMODB_CLIENT_BUILDERS: ReadonlySet<string> = new Set(['shared/aws.ts', 'shared/clients/dynamodb.ts']);

/** Imports of DynamoDB commands (anything but a client class) from files not allowed to send them. */
export function dynamoDbViolations(imports: readonly ImportRef[]): string[] {
  return imports
    .filter((i) => !i.typeOnly && DYNAMODB_MODULES.has(i.from) && !(i.file in DYNAMODB_COMMAND_USERS))
    .filter((i) => i.opaque || i.values.some((v) => !(DYNAMODB_CLIENT_BUILDERS.has(i.file) && /^DynamoDB(Document)?Client$/.test(v))))
    .map((i) => `${i.file} imports ${i.opaque ? '(everything)' : i.values.join(', ')} from ${i.from}`);
}

/** The paging helper is for the allowed command users only. */
export function dynamoHelperViolations(imports: readonly ImportRef[]): string[] {
  return imports.filter((i) => i.target === 'shared/dynamo' && !(i.file in DYNAMODB_COMMAND_USERS)).map((i) => `${i.file} imports shared/dynamo.ts`);
}

/** A temporary tree for a rule's made-up example: its root and a writer of files in it (the caller removes it). */
export function madeUpTree(prefix: string): { readonly root: string; write(path: string, text: string): void } {
  const root = mkdtempSync(join(tmpdir(), prefix));
  return {
    root,
    write(path, text) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    },
  };
}
