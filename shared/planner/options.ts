/** Reading a statement's `WITH (...)`-style options against what the statement accepts. */
import { PlanError, SQLSTATE } from '../errors';
import type { OptionValue, SqlOption } from '../sql/ast';

export type OptionType = 'string' | 'uint' | 'boolean' | 'any';

export interface OptionSpec {
  readonly [name: string]: OptionType;
}

/** Validates names (unknown, duplicated) and types; returns name → value. */
export function readOptions(options: readonly SqlOption[], spec: OptionSpec, what: string): Map<string, OptionValue> {
  const out = new Map<string, OptionValue>();
  const valid = Object.keys(spec);
  for (const o of options) {
    const type = spec[o.name];
    if (type === undefined) {
      throw new PlanError(`unknown ${what} option ${o.name}`, {
        code: SQLSTATE.syntaxError,
        position: o.position,
        hint: `Valid options: ${valid.join(', ')}.`,
      });
    }
    if (out.has(o.name)) {
      throw new PlanError(`${o.name} specified more than once`, { code: SQLSTATE.syntaxError, position: o.position });
    }
    checkType(o, type);
    out.set(o.name, o.value);
  }
  return out;
}

function checkType(o: SqlOption, type: OptionType): void {
  const v = o.value;
  const bad = (expected: string) =>
    new PlanError(`invalid value for ${o.name}: expected ${expected}`, { code: SQLSTATE.invalidParameterValue, position: o.position });
  switch (type) {
    case 'string':
      if (v.kind !== 'string' && v.kind !== 'ident') throw bad('a string');
      return;
    case 'uint':
      if (v.kind !== 'number' || !/^[0-9]+$/.test(v.value)) throw bad('a non-negative integer');
      return;
    case 'boolean':
      if (v.kind !== 'boolean' && v.kind !== 'none') throw bad('a boolean');
      return;
    case 'any':
      return;
  }
}

export function optionString(v: OptionValue | undefined): string | undefined {
  if (!v) return undefined;
  switch (v.kind) {
    case 'string':
    case 'ident':
    case 'number':
      return v.value;
    case 'boolean':
      return String(v.value);
    case 'none':
      return 'true';
    case 'secret':
    case 'object':
      return v.name.join('.');
    case 'list':
      return v.items.map(optionString).join(', ');
    case 'refresh':
      return undefined;
    case 'broker':
      return v.address;
    case 'privatelink':
      return v.connection.join('.');
    case 'refresh_schedule':
      return v.hydrationTimeEstimate === undefined ? 'ON REFRESH' : `ON REFRESH (HYDRATION TIME ESTIMATE = '${v.hydrationTimeEstimate}')`;
  }
}
