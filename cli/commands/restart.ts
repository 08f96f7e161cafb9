/**
 * `ddlctl restart <name>`: `ALTER SOURCE name RESTART` or `ALTER SINK name RESTART` (the way out of
 * `failed` without drop and recreate, docs/sql-reference.md), whichever kind the name is.
 */
import type { SqlClient } from '../client';
import { CliError, EXIT } from '../errors';
import { formatResult } from '../render';

/** The object name a lookup compares: the last part of a possibly qualified name, unquoted (case kept) or folded to lower case. */
export function lookupName(name: string): string {
  const last = /(?:^|\.)("(?:[^"]|"")*"|[^."]+)$/.exec(name.trim())?.[1] ?? name.trim();
  return last.startsWith('"') ? last.slice(1, -1).replace(/""/g, '"') : last.toLowerCase();
}

const literal = (s: string) => `'${s.replace(/'/g, "''")}'`;

/** Which statement restarts `name`: asks the catalog unless `kind` says. */
export async function restartStatement(client: SqlClient, name: string, kind?: 'source' | 'sink'): Promise<string> {
  let k = kind;
  if (!k) {
    const key = literal(lookupName(name));
    const [sources, sinks] = await Promise.all([client.records(`SELECT id FROM mz_sources WHERE name = ${key}`), client.records(`SELECT id FROM mz_sinks WHERE name = ${key}`)]);
    if (sources.length && sinks.length) throw new CliError(`${name} names a source and a sink: say which with --source or --sink`, EXIT.usage);
    if (!sources.length && !sinks.length) throw new CliError(`no source or sink named ${name}`);
    k = sources.length ? 'source' : 'sink';
  }
  return `ALTER ${k.toUpperCase()} ${name} RESTART`;
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
