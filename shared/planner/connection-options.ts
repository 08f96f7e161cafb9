/**
 * A connection's option checks that need no upstream system, run before the connection is planned:
 * which options its type takes (in Materialize's order and words, XX000), then its type's own
 * checks (shared/connectors: Kafka's security settings and brokers, the schema registry's URL and
 * TLS identity, an SSH tunnel's host and user, ...; src/sql/src/plan/statement/ddl/connection.rs).
 * Pure.
 */
import { connectionOf, sqlWords, type CheckedOption } from '../connectors';
import { PlanError, SQLSTATE } from '../errors';
import type { OptionValue, SqlOption } from '../sql/ast';
import { foreignOptionNames } from '../sql/options';
import { optionString } from './options';

/** Materialize answers these as plan errors (SQLSTATE XX000); ours carry the option's position. */
function invalid(message: string, position: number): PlanError {
  return new PlanError(message, { code: SQLSTATE.internalError, position });
}

/**
 * The parser reads any connection type's option names; Materialize's planner then refuses the
 * ones this type does not take, all of them in one message (XX000), after names are resolved.
 */
export function checkOptionsTaken(connectionType: string, options: readonly SqlOption[]): void {
  const spec = connectionOf(connectionType)?.connection.options;
  if (!spec) return;
  const foreign = foreignOptionNames(spec, options.map((o) => o.name));
  if (foreign.length === 0) return;
  const first = options.find((o) => o.name === foreign[0])!;
  throw invalid(`${sqlWords(connectionOf(connectionType)!)} connections do not support ${foreign.join(', ')} values`, first.position);
}

/** Throws Materialize's error for the first problem with a connection's options, if any (its type's check). */
export function validateConnectionOptions(type: string, options: readonly SqlOption[], at: number): void {
  const c = connectionOf(type)?.connection;
  if (c && 'check' in c) c.check(options.map(checkedOption), at);
}

/** Every string literal a value holds: itself, a list's items, a broker's address. */
function strings(v: OptionValue): string[] {
  return v.kind === 'list' ? v.items.flatMap(strings) : v.kind === 'string' ? [v.value] : v.kind === 'broker' ? [v.address] : [];
}

/** An option as the connector types' checks read it (shared/connectors/types.ts). */
export function checkedOption(o: SqlOption): CheckedOption {
  const nested = o.value.kind === 'privatelink' ? o.value.options.map((x) => x.name) : [];
  return { name: o.name, position: o.position, kind: o.value.kind, text: optionString(o.value), strings: strings(o.value), ...(nested.length ? { nested } : {}) };
}
