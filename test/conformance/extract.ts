/**
 * Extracts conformance cases from Materialize's own tests: every statement of a sqllogictest
 * (`.slt`) or testdrive (`.td`) file, in order, with the outcome Materialize's test expects (ok, or
 * an error and its message), the source file, line and commit. Only the cases are kept, never the
 * whole files.
 *
 *   npx tsx test/conformance/extract.ts <materialize git dir> [commit]
 *
 * Files the independent check reserves are never read (RESERVED). Statements a test runs on
 * another connection (slt `simple conn=NAME,user=USER`, testdrive `$ postgres-execute` against
 * Materialize, often as the system user mz_system) are kept as `setup` cases with the user they run
 * as: replayed so that the roles, grants and objects later statements rely on exist, never scored
 * (they are the harness's, not a user's DDL under test). Testdrive actions against external systems
 * are left out; a file whose scored statements are all data queries is left out as a whole (it
 * measures nothing here).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { classify } from './classify';

export interface ConformanceCase {
  readonly line: number;
  readonly sql: string;
  /** What Materialize's test expects. */
  readonly expect: 'ok' | 'error';
  /** The expected error: a regular expression (slt, td `regex:`) or a substring (td `contains:`). */
  readonly message?: string;
  readonly match?: 'regex' | 'contains' | 'exact';
  /** `reset-server` before this case: a fresh environment (tenant). */
  readonly reset?: true;
  /**
   * Run on another connection of the test (`conn`, a session of its own), as this user
   * (`mz_system`, or a role the test made), or on the test's own connection (no `conn`): replayed
   * for the state it leaves, not scored.
   */
  readonly setup?: { readonly user: string; readonly conn?: string };
}
export interface CaseFile {
  readonly source: string;
  readonly commit: string;
  readonly cases: readonly ConformanceCase[];
}

/** Kept out for the independent check (issue 17), with testdrive files of the same subject. */
export const RESERVED = new Set([
  'cluster', 'managed_cluster', 'unified_cluster', 'materialized_views', 'replacement-materialized-views', 'rename', 'ambiguous_rename', 'swap',
  'comment', 'webhook', 'secret', 'retain_history', 'alter', 'alter-table', 'id_reuse', 'name_resolution', 'indexes', 'source_sizing',
  // testdrive files named like the reserved ones
  'materialized-views', 'materialized_views',
]);

/** Parses one sqllogictest file. */
export function parseSlt(text: string): ConformanceCase[] {
  const lines = text.split('\n');
  const out: ConformanceCase[] = [];
  let reset = false;
  let i = 0;
  /** The user of each named connection (`conn=NAME,user=USER` names it once). */
  const users = new Map<string, string>();
  const block = (from: number): { sql: string; end: number } => {
    const sqlLines: string[] = [];
    let j = from;
    while (j < lines.length && lines[j]!.trim() !== '' && lines[j] !== '----') sqlLines.push(lines[j++]!);
    return { sql: sqlLines.join('\n').trim(), end: j };
  };
  const skipRecord = (from: number): number => {
    let j = from;
    while (j < lines.length && lines[j]!.trim() !== '') j++;
    return j;
  };
  while (i < lines.length) {
    const line = lines[i]!;
    const head = line.trim();
    if (head === 'reset-server') {
      reset = true;
      i++;
      continue;
    }
    const stmt = /^statement\s+(ok|OK|error|count\s+\d+)\s*(.*)$/.exec(head);
    const query = /^query\s+(\S+)(.*)$/.exec(head);
    if (stmt || query) {
      const { sql, end } = block(i + 1);
      let expect: 'ok' | 'error' = 'ok';
      let message: string | undefined;
      if (stmt && stmt[1] === 'error') {
        expect = 'error';
        message = stmt[2]!.trim();
      } else if (query && query[1] === 'error') {
        expect = 'error';
        message = query[2]!.trim();
      }
      if (sql) {
        out.push({ line: i + 2, sql, expect, ...(expect === 'error' ? { message: message ?? '', match: 'regex' as const } : {}), ...(reset ? { reset: true as const } : {}) });
        reset = false;
      }
      // Expected rows of a query (multiline results end at EOF).
      let j = end;
      if (j < lines.length && lines[j] === '----') {
        if (/multiline/.test(head)) {
          while (j < lines.length && lines[j] !== 'EOF') j++;
        }
        j = skipRecord(j);
      }
      i = j;
      continue;
    }
    const simple = /^simple\b(.*)$/.exec(head);
    if (simple) {
      // A statement run on a named connection (as its user), kept for the state it leaves.
      const opts = Object.fromEntries(simple[1]!.split(',').map((o) => o.trim().split('=')).filter((kv) => kv.length === 2)) as Record<string, string>;
      const conn = opts.conn;
      if (conn && opts.user) users.set(conn, opts.user);
      const user = conn ? (users.get(conn) ?? conn) : 'materialize';
      const { sql, end } = block(i + 1);
      let j = end;
      let failed = false;
      if (j < lines.length && lines[j] === '----') {
        j++;
        const output: string[] = [];
        if (/multiline/.test(simple[1]!)) {
          while (j < lines.length && lines[j] !== 'EOF') output.push(lines[j++]!);
        } else {
          while (j < lines.length && lines[j]!.trim() !== '') output.push(lines[j++]!);
        }
        failed = output.some((l) => /^db error|^ERROR:/.test(l));
      }
      if (sql) out.push({ line: i + 2, sql, expect: failed ? 'error' : 'ok', setup: { user, ...(conn ? { conn } : {}) }, ...(reset ? { reset: true as const } : {}) });
      if (sql) reset = false;
      i = skipRecord(j);
      continue;
    }
    if (/^copy\b/.test(head)) {
      // COPY data: not a statement.
      i = skipRecord(i);
      continue;
    }
    i++;
  }
  return out;
}

/** Parses one testdrive file: `> sql` (ok), `! sql` + `contains:`/`regex:`/`exact:` (error). */
export function parseTd(text: string): ConformanceCase[] {
  const lines = text.split('\n');
  const out: ConformanceCase[] = [];
  const vars: Record<string, string> = {
    'testdrive.kafka-addr': 'kafka:9092',
    'testdrive.schema-registry-url': 'http://schema-registry:8081/',
    'testdrive.seed': '1',
    'testdrive.materialize-user': 'materialize',
    'testdrive.aws-endpoint': 'http://localhost:4566',
  };
  const subst = (s: string) => s.replace(/\$\{([^}]+)\}/g, (m, k: string) => vars[k] ?? m);
  /** `$ postgres-connect` names of connections to Materialize, and their users. */
  const connections = new Map<string, string>();
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.startsWith('$ ')) {
      const set = /^\$ (set|set-arg-default)\s+([\w.-]+)=(.*)$/.exec(line);
      let j = i + 1;
      const more: string[] = [];
      while (j < lines.length && lines[j]!.trim() !== '' && !/^[>!?$#]/.test(lines[j]!)) more.push(lines[j++]!);
      if (set) vars[set[1] === 'set' ? set[2]! : `arg.${set[2]!}`] = [set[3]!, ...more].join('\n');
      const connect = /^\$ postgres-connect\s+name=(\S+)\s+url=(\S+)/.exec(line);
      if (connect) {
        const user = materializeUser(connect[2]!);
        if (user) connections.set(connect[1]!, user);
        else connections.delete(connect[1]!);
      }
      const execute = /^\$ postgres-execute\s+(?:.*\s)?connection=(\S+)/.exec(line);
      if (execute && !/\bbackground=true\b/.test(line)) {
        // Statements run on another connection to Materialize (one a line), kept for the state they leave.
        const user = connections.get(execute[1]!) ?? materializeUser(execute[1]!);
        if (user) {
          more.forEach((text, k) => {
            const sql = subst(text).trim().replace(/;\s*$/, '');
            if (sql && !sql.startsWith('--') && !sql.includes('${')) out.push({ line: i + 2 + k, sql, expect: 'ok', setup: { user, conn: execute[1]! } });
          });
        }
      }
      i = j;
      continue;
    }
    if (line.startsWith('> ') || line.startsWith('! ')) {
      const sqlLines = [line.slice(2)];
      let j = i + 1;
      while (j < lines.length && /^\s+\S/.test(lines[j]!)) sqlLines.push(lines[j++]!);
      const sql = subst(sqlLines.join('\n')).trim().replace(/;\s*$/, '');
      if (line.startsWith('> ')) {
        if (!sql.includes('${')) out.push({ line: i + 1, sql, expect: 'ok' });
        while (j < lines.length && lines[j]!.trim() !== '' && !/^[>!?$]/.test(lines[j]!)) j++;
      } else {
        const m = /^(contains|regex|exact):(.*)$/.exec(lines[j] ?? '');
        if (m && !sql.includes('${')) out.push({ line: i + 1, sql, expect: 'error', message: subst(m[2]!), match: m[1] as 'contains' | 'regex' | 'exact' });
        if (m) j++;
      }
      i = j;
      continue;
    }
    i++;
  }
  return out;
}

/** The user of a connection URL to Materialize (`postgres://mz_system:materialize@${testdrive.materialize-internal-sql-addr}`); undefined for other systems. */
function materializeUser(url: string): string | undefined {
  const m = /^postgres(?:ql)?:\/\/([^:@/]+)(?::[^@]*)?@(.*)$/.exec(url);
  return m && /\$\{testdrive\.materialize-(?:internal-)?sql-addr\}/.test(m[2]!) ? decodeURIComponent(m[1]!) : undefined;
}

function git(gitDir: string, ...args: string[]): string {
  return execFileSync('git', ['--git-dir', gitDir, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

function main(): void {
  const [gitDir, rev = 'HEAD'] = process.argv.slice(2);
  if (!gitDir) throw new Error('usage: extract.ts <materialize git dir> [commit]');
  const commit = git(gitDir, 'rev-parse', rev).trim();
  const outDir = join(dirname(fileURLToPath(import.meta.url)), 'cases');
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  let files = 0;
  let cases = 0;
  for (const dir of ['test/sqllogictest', 'test/testdrive']) {
    const names = git(gitDir, 'ls-tree', '--name-only', commit, `${dir}/`).split('\n').filter((n) => /\.(slt|td)$/.test(n));
    for (const path of names) {
      const stem = basename(path).replace(/\.(slt|td)$/, '');
      if (RESERVED.has(stem)) continue;
      const text = git(gitDir, 'show', `${commit}:${path}`);
      const parsed = path.endsWith('.slt') ? parseSlt(text) : parseTd(text);
      // A file that is all data queries measures nothing about DDL.
      const scored = parsed.filter((c) => !c.setup);
      const ddl = scored.filter((c) => classify(c.sql) !== 'outside').length;
      if (ddl < 3 || ddl < scored.length / 4) continue;
      const file: CaseFile = { source: path, commit, cases: parsed };
      const name = `${dir.endsWith('sqllogictest') ? 'slt' : 'td'}-${stem}.json`;
      writeFileSync(join(outDir, name), `${JSON.stringify(file, null, 0).replace(/\{"line"/g, '\n{"line"')}\n`);
      files++;
      cases += scored.length;
    }
  }
  process.stdout.write(`${files} files, ${cases} cases from ${commit}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
