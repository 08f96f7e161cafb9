/**
 * What Materialize requires of a MySQL server and of the tables a MySQL source names, as pure
 * functions of what the server answered (the probe in mysql.ts reads; this decides). The checks,
 * their order and their words are Materialize's (src/mysql-util/src/replication.rs,
 * src/storage-types/src/connections.rs, src/sql/src/pure/references.rs and pure/mysql.rs).
 *
 * MariaDB speaks MySQL's protocol but has no `gtid_mode`, `enforce_gtid_consistency`,
 * `gtid_next` or `*_preserve_commit_order`: its GTIDs are always on, in its own format, and its
 * parallel replication commits in order. Materialize reads those variables and so refuses MariaDB
 * (`Unknown system variable 'gtid_mode'`). Here a MariaDB server is held to the settings it has
 * (the binary log's), so Debian's mariadb-server can stand in for MySQL locally and in tests;
 * docs/sql-reference.md says so.
 */
import { objectName } from '../sql/printer';
import type { UpstreamReferences } from './types';

export type MySqlFlavor = 'mysql' | 'mariadb';

/** `@@version` says which server it is: `10.11.19-MariaDB-0+deb12u1-log`, `8.0.36`. */
export function flavorOf(version: string): MySqlFlavor {
  return /mariadb/i.test(version) ? 'mariadb' : 'mysql';
}

/** A system variable a MySQL source needs, and the value it must have. */
export interface Requirement {
  readonly setting: string;
  readonly expected: string;
}

/**
 * Materialize's groups, in its order: within a group only the first setting that is off is
 * reported (each group is one `ensure_*` call that stops at its first mismatch).
 */
export const GTID_REQUIREMENTS: readonly Requirement[] = [
  { setting: 'gtid_mode', expected: 'ON' },
  { setting: 'enforce_gtid_consistency', expected: 'ON' },
  { setting: 'gtid_next', expected: 'AUTOMATIC' },
];
export const BINLOG_REQUIREMENTS: readonly Requirement[] = [
  { setting: 'log_bin', expected: '1' },
  { setting: 'binlog_format', expected: 'ROW' },
  { setting: 'binlog_row_image', expected: 'FULL' },
];
/** Read to decide whether the commit-order check applies (MySQL 8.0 renamed `slave_*` to `replica_*`). */
export const COMMIT_ORDER_VARIABLES = ['replica_parallel_workers', 'slave_parallel_workers', 'replica_preserve_commit_order', 'slave_preserve_commit_order'] as const;

/** The variables the checks read on a server of this flavour (commit order aside: those may be missing). */
export function requiredVariables(flavor: MySqlFlavor): readonly string[] {
  return (flavor === 'mysql' ? [...GTID_REQUIREMENTS, ...BINLOG_REQUIREMENTS] : BINLOG_REQUIREMENTS).map((r) => r.setting);
}

export interface SettingProblem extends Requirement {
  readonly actual: string;
}

/** Values as the server gave them (mysql2 answers numbers for some); undefined: the server has no such variable. */
export type SystemVariables = Readonly<Record<string, string | number | null | undefined>>;

const text = (v: string | number | null | undefined): string | undefined => (v === undefined ? undefined : String(v ?? 'NULL'));

/** The settings that are off, at most one per group (empty: the server is ready for a source). */
export function replicationSettingProblems(flavor: MySqlFlavor, vars: SystemVariables): SettingProblem[] {
  const firstOff = (group: readonly Requirement[]): SettingProblem[] => {
    for (const r of group) {
      const actual = text(vars[r.setting]);
      // Compared exactly, as Materialize does: `ROW`, not `row`.
      if (actual !== r.expected) return [{ ...r, actual: actual ?? 'unset' }];
    }
    return [];
  };
  if (flavor === 'mariadb') return firstOff(BINLOG_REQUIREMENTS);
  return [...firstOff(GTID_REQUIREMENTS), ...firstOff(BINLOG_REQUIREMENTS), ...commitOrderProblem(vars)];
}

/**
 * A replica applying transactions on several threads must commit them in the primary's order,
 * else a source reading its binlog sees gaps (Materialize's `ensure_replication_commit_order`).
 */
function commitOrderProblem(vars: SystemVariables): SettingProblem[] {
  const workers = text(vars.replica_parallel_workers) ?? text(vars.slave_parallel_workers);
  if (workers === undefined || workers === '0' || workers === '1') return [];
  if (text(vars.replica_preserve_commit_order) === '1') return [];
  // Materialize falls back to the old name and reports that one; a server without it (8.4) gets the new name.
  const old = text(vars.slave_preserve_commit_order);
  if (old === '1') return [];
  return [old !== undefined ? { setting: 'slave_preserve_commit_order', expected: '1', actual: old } : { setting: 'replica_preserve_commit_order', expected: '1', actual: text(vars.replica_preserve_commit_order) ?? 'unset' }];
}

export const INVALID_SETTINGS = 'Invalid MySQL system replication settings';
export const INVALID_SETTINGS_HINT = 'Set the necessary MySQL database system settings.';

/** Materialize's DETAIL for the settings that are off. */
export function settingsDetail(problems: readonly SettingProblem[]): string {
  return `${INVALID_SETTINGS}: ${problems.map((p) => `${p.setting}: expected ${p.expected}, got ${p.actual}`).join('; ')}`;
}

/** Schemas Materialize leaves out of `FOR ALL TABLES` unless a reference names one. */
export const SYSTEM_SCHEMAS: readonly string[] = ['information_schema', 'mysql', 'performance_schema', 'sys'];

/** Does the request name a system schema (so the table listing must include them)? */
export function referencesSystemSchemas(refs: UpstreamReferences): boolean {
  switch (refs.kind) {
    case 'all':
      return false;
    case 'schemas':
      return refs.schemas.some((s) => SYSTEM_SCHEMAS.includes(s));
    case 'tables':
      return refs.tables.some((t) => t.length >= 2 && SYSTEM_SCHEMAS.includes(t[t.length - 2]!));
  }
}

export interface UpstreamTable {
  readonly schema: string;
  readonly name: string;
}

/** Materialize's fake database name for MySQL, whose schemas are its databases: `mysql.shop.orders`. */
const MYSQL_DATABASE_FAKE_NAME = 'mysql';

/**
 * The tables a source's references resolve to among the upstream's, or Materialize's error for
 * the first that does not resolve. `tables` is what the server lists (without system schemas
 * unless `referencesSystemSchemas`).
 */
export function resolveReferences(tables: readonly UpstreamTable[], refs: UpstreamReferences): { tables: UpstreamTable[] } | { error: string; hint?: string } {
  let out: UpstreamTable[];
  switch (refs.kind) {
    case 'all':
      out = [...tables];
      break;
    case 'schemas': {
      const present = new Set(tables.map((t) => t.schema));
      const missing = [...new Set(refs.schemas)].filter((s) => !present.has(s)).sort();
      if (missing.length) return { error: `no tables found in referenced schemas: ${missing.map((s) => `"${s}"`).join(', ')}`, hint: tablesHint(tables) };
      out = tables.filter((t) => refs.schemas.includes(t.schema));
      break;
    }
    case 'tables': {
      out = [];
      for (const name of refs.tables) {
        const found = resolveOne(tables, name);
        if ('error' in found) return { ...found, hint: tablesHint(tables) };
        out.push(found.table);
      }
      break;
    }
  }
  if (out.length === 0) {
    return {
      error: `MySQL source must ingest at least one table, but ${referencesText(refs)} matched none`,
      // Materialize's hint for an empty database: MySQL lists only the tables the user may read.
      hint: 'No tables were found to replicate. This could be because the user does not have privileges on the intended tables.',
    };
  }
  return { tables: out };
}

/** Which tables there are, so a mistyped name is easy to fix (our words: Materialize gives no hint here). */
function tablesHint(tables: readonly UpstreamTable[]): string {
  if (tables.length === 0) return 'The connection\'s user can see no tables on the MySQL server.';
  const shown = tables.slice(0, 10).map((t) => objectName([t.schema, t.name]));
  return `The MySQL server has ${shown.join(', ')}${tables.length > shown.length ? ` and ${tables.length - shown.length} more` : ''}.`;
}

/** One to three parts (`orders`, `shop.orders`, `mysql.shop.orders`); a bare name must be in one schema only. */
function resolveOne(tables: readonly UpstreamTable[], name: readonly string[]): { table: UpstreamTable } | { error: string } {
  const shown = objectName(name);
  const notFound = { error: `reference to ${shown} not found in source` };
  if (name.length < 1 || name.length > 3) return notFound;
  const item = name[name.length - 1]!;
  const schema = name.length >= 2 ? name[name.length - 2] : undefined;
  if (name.length === 3 && name[0] !== MYSQL_DATABASE_FAKE_NAME) return notFound;
  const candidates = tables.filter((t) => t.name === item && (schema === undefined || t.schema === schema));
  if (candidates.length === 0) return notFound;
  if (candidates.length > 1) return { error: `reference ${shown} is ambiguous, consider specifying an additional layer of qualification` };
  return { table: candidates[0]! };
}

function referencesText(refs: UpstreamReferences): string {
  switch (refs.kind) {
    case 'all':
      return 'FOR ALL TABLES';
    case 'schemas':
      return `FOR SCHEMAS (${refs.schemas.map((s) => objectName([s])).join(', ')})`;
    case 'tables':
      return `FOR TABLES (${refs.tables.map((t) => objectName(t)).join(', ')})`;
  }
}
