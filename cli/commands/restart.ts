/**
 * `ddlctl restart <name>`: `ALTER SOURCE name RESTART` or `ALTER SINK name RESTART` (the way out of
 * `failed` without drop and recreate, docs/sql-reference.md), whichever kind the name is.
 */
import type { SqlClient } from '../client';
import { CliError, EXIT } from '../errors';
import { nameParts } from '../meta';
import { formatResult } from '../render';

const literal = (s: string) => `'${s.replace(/'/g, "''")}'`;
const ident = (s: string) => `"${s.replace(/"/g, '""')}"`;

interface Candidate {
  readonly kind: 'source' | 'sink';
  readonly name: string;
  readonly schema: string;
  readonly database: string | null;
}

/**
 * The name as the user typed it, read two ways: the object's exact name (`my src`, as SHOW SOURCES
 * prints it), or a SQL name (`sales.orders_src`, `"My Src"`: dotted parts, unquoted ones folded).
 * Both are only ever compared as string literals, never pasted into SQL.
 */
function readings(name: string): { schema?: string; database?: string; name: string }[] {
  const out: { schema?: string; database?: string; name: string }[] = [{ name }];
  const parts = nameParts(name);
  if (typeof parts !== 'string' && !parts.some((p) => p.wild)) {
    const v = parts.map((p) => p.value);
    const last = v.at(-1)!;
    if (v.length === 1 && last !== name) out.push({ name: last });
    if (v.length === 2) out.push({ schema: v[0]!, name: last });
    if (v.length === 3) out.push({ database: v[0]!, schema: v[1]!, name: last });
  }
  return out;
}

/** Which statement restarts `name`: the object found by its exact name, every part of it quoted. */
export async function restartStatement(client: SqlClient, name: string, kind?: 'source' | 'sink'): Promise<string> {
  const found: Candidate[] = [];
  for (const r of readings(name)) {
    const where = [`o.name = ${literal(r.name)}`, ...(r.schema ? [`sc.name = ${literal(r.schema)}`] : []), ...(r.database ? [`d.name = ${literal(r.database)}`] : [])].join(' AND ');
    const from = (rel: string, k: 'source' | 'sink') =>
      `SELECT '${k}' AS kind, o.name, sc.name AS schema, d.name AS database FROM ${rel} o JOIN mz_schemas sc ON sc.id = o.schema_id LEFT JOIN mz_databases d ON d.id = sc.database_id WHERE ${where}`;
    const kinds = kind ? [kind] : (['source', 'sink'] as const);
    const rows = (await client.records(kinds.map((k) => from(k === 'source' ? 'mz_sources' : 'mz_sinks', k)).join(' UNION ALL '))) as unknown as Candidate[];
    if (rows.length) {
      found.push(...rows);
      break;
    }
  }
  const kinds = new Set(found.map((f) => f.kind));
  if (kinds.size > 1) throw new CliError(`${name} names a source and a sink: say which with --source or --sink`, EXIT.usage);
  if (found.length > 1) throw new CliError(`${name} names ${found.length} ${found[0]!.kind}s (in ${found.map((f) => [f.database, f.schema].filter(Boolean).join('.')).join(', ')}): qualify it with its schema`, EXIT.usage);
  const hit = found[0];
  if (!hit) throw new CliError(`no ${kind ?? 'source or sink'} named ${name}`);
  const qualified = [hit.database, hit.schema, hit.name].filter((x): x is string => x !== null && x !== undefined).map(ident).join('.');
  return `ALTER ${hit.kind.toUpperCase()} ${qualified} RESTART`;
}

/** Runs the restart and prints the server's answer; the exit code. */
export async function restart(client: SqlClient, name: string, o: { source?: boolean; sink?: boolean }): Promise<number> {
  if (o.source && o.sink) throw new CliError('--source and --sink exclude each other', EXIT.usage);
  const statement = await restartStatement(client, name, o.source ? 'source' : o.sink ? 'sink' : undefined);
  const r = await client.run(statement);
  const first = r.results[0];
  if (!first) throw new CliError(`${statement}: HTTP ${r.status}`);
  console.log(formatResult(first, statement));
  return 'error' in first ? EXIT.failed : EXIT.ok;
}
