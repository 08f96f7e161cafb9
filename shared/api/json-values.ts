/**
 * Values of the SQL engine's rows (PostgreSQL's text format) as JSON for `POST /api/sql`, the way
 * Materialize's HTTP API gives them (its `TypedDatum::json` with `JsonNumberPolicy::
 * ConvertNumberToString`): numbers as strings of their digits ("Numeric results are converted to
 * strings to avoid possible JavaScript number inaccuracy", its HTTP API docs; a float that is not a
 * number is null), booleans as booleans, jsonb as JSON (numbers inside it stay numbers; a bare
 * number is a string), arrays as JSON arrays of such values, timestamps as Materialize writes them
 * (`"<epoch millis>.<micros>"`), everything else as PostgreSQL's text. Pure.
 */
import { messages, readDataRow, type FieldDesc } from '../wire/protocol';
import { epochText } from './timestamps';

const NUMBER_OIDS: ReadonlySet<number> = new Set([20, 21, 23, 26, 700, 701]);
/** Array type OID → element type OID (the ones the catalog's relations have, and their common kin). */
const ARRAY_ELEMENT: ReadonlyMap<number, number> = new Map([
  [1000, 16], [1001, 17], [1002, 18], [1003, 19], [1005, 21], [1007, 23], [1009, 25], [1014, 1042], [1015, 1043], [1016, 20], [1021, 700], [1022, 701],
  [1028, 26], [1115, 1114], [1182, 1082], [1185, 1184], [1187, 1186], [1231, 1700], [2951, 2950], [3807, 3802], [199, 114],
]);

export function jsonValue(typeOid: number, text: string): unknown {
  if (NUMBER_OIDS.has(typeOid)) return Number.isFinite(Number(text)) ? canonicalNumber(text) : null;
  if (typeOid === 16) return text === 't';
  if (typeOid === 3802 || typeOid === 114) {
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch {
      return text;
    }
    return typeof v === 'number' ? String(v) : v;
  }
  if (typeOid === 1184 || typeOid === 1114) return epochText(text);
  const element = ARRAY_ELEMENT.get(typeOid);
  if (element !== undefined) return parseArray(text, element);
  return text;
}

/** A number's digits as serde_json writes them: PostgreSQL's float text may carry an exponent (`1e+20`) where JSON's has none. */
function canonicalNumber(text: string): string {
  return /^-?\d+$/.test(text) ? text : String(Number(text));
}

/** PostgreSQL's array text format (`{a,"b c",NULL}`, nested braces for more dimensions). */
export function parseArray(text: string, element: number): unknown {
  let i = 0;
  // Optional dimension decoration: `[1:2]={...}`.
  if (text[0] === '[') i = text.indexOf('=') + 1;
  const parse = (): unknown[] => {
    const out: unknown[] = [];
    if (text[i] !== '{') return out;
    i++;
    if (text[i] === '}') {
      i++;
      return out;
    }
    for (;;) {
      if (text[i] === '{') out.push(parse());
      else if (text[i] === '"') {
        let s = '';
        i++;
        while (i < text.length && text[i] !== '"') {
          if (text[i] === '\\') i++;
          s += text[i++];
        }
        i++;
        out.push(jsonValue(element, s));
      } else {
        let j = i;
        while (j < text.length && text[j] !== ',' && text[j] !== '}') j++;
        const raw = text.slice(i, j);
        i = j;
        out.push(raw === 'NULL' ? null : jsonValue(element, raw));
      }
      if (text[i] === ',') {
        i++;
        continue;
      }
      i++; // '}'
      return out;
    }
  };
  return parse();
}

/** The rows of an engine answer (text format) as JSON values. */
export function jsonRows(fields: readonly FieldDesc[], rows: Buffer): unknown[][] {
  const out: unknown[][] = [];
  for (const m of messages(rows)) {
    out.push(readDataRow(m.body).map((v, k) => (v === null ? null : jsonValue(fields[k]!.typeOid, v.toString('utf8')))));
  }
  return out;
}
