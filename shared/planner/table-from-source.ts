/**
 * `CREATE TABLE ... FROM SOURCE`: which upstream output of a source a new table exports, with
 * Materialize's purification checks and words. Pure: the source comes from the caller's snapshot.
 */
import type { ObjectOf, TableSource } from '../catalog/model';
import { generatorOf, keyedSource, sourceOf } from '../connectors';
import { NotSupportedError, PlanError, SQLSTATE } from '../errors';
import type { Statement } from '../sql/ast';
import { objectName as printName } from '../sql/printer';

type S = Extract<Statement, { kind: 'create_table_from_source' }>;

export interface TableExport {
  readonly fromSource: TableSource;
  readonly columns: readonly { readonly name: string; readonly type: string; readonly notNull: boolean }[];
}

/** What the table exports from `source`, or a PlanError in Materialize's words. */
export function planTableExport(s: S, source: ObjectOf<'source'>, at: number): TableExport {
  const type = source.spec.sourceType;
  const form = sourceOf(type)?.source;
  if (form?.form === 'statement') {
    throw new NotSupportedError(`CREATE TABLE ... FROM SOURCE of ${type} source ${source.name}: a ${type} source has no upstream tables`, { position: at });
  }
  // The KEY VALUE load generator has keys too: INCLUDE KEY and ENVELOPE apply to it (Materialize's tests use both).
  const keyed = keyedSource(type, source.spec.options);
  const formats = form?.form === 'connection' && form.formats;
  if ((s.format && !formats) || ((s.envelope || s.includeMetadata.length) && !keyed)) {
    throw new PlanError(`FORMAT, INCLUDE and ENVELOPE apply to tables from Kafka sources only (INCLUDE and ENVELOPE also from LOAD GENERATOR KEY VALUE); ${source.name} is a ${type} source`, {
      code: SQLSTATE.invalidParameterValue,
      position: at,
    });
  }
  const generator = form?.form === 'generator' ? (source.spec.options.GENERATOR ?? '').toLowerCase() : undefined;
  const spec = generatorOf(generator);
  const upstream = spec?.tables;
  const multiOutput = (form !== undefined && 'upstreamTables' in form) || upstream !== undefined;
  if (multiOutput && !s.reference) {
    throw new PlanError('multi-output sources require an external reference', {
      code: SQLSTATE.invalidParameterValue,
      position: at,
      hint: `Name the upstream table: CREATE TABLE ... FROM SOURCE ${source.name} (REFERENCE <table>).`,
    });
  }
  let reference = s.reference ? s.reference.join('.') : '';
  if (upstream && s.reference) {
    // A load generator's tables may be named bare or qualified (`mz_load_generators.tpch.orders`).
    const table = s.reference[s.reference.length - 1]!;
    if (!upstream.includes(table) || (s.reference.length > 1 && s.reference[s.reference.length - 2] !== generator)) {
      throw new PlanError(`reference to ${printName(s.reference)} not found in source`, {
        code: SQLSTATE.invalidParameterValue,
        position: at,
        hint: `LOAD GENERATOR ${generator!.toUpperCase()} has the tables ${upstream.join(', ')}.`,
      });
    }
    reference = table;
  }
  const known = generator !== undefined && !upstream ? spec?.columns : undefined;
  const names = s.columns ?? known?.map((c) => c.name) ?? [];
  if (known && s.columns && s.columns.length > known.length) {
    throw new PlanError(`source ${source.name} has ${known.length} columns, but ${s.columns.length} column names were given`, { code: SQLSTATE.invalidTableDefinition, position: at });
  }
  const seen = new Set<string>();
  for (const n of names) {
    if (seen.has(n)) throw new PlanError(`column "${n}" specified more than once`, { code: SQLSTATE.duplicateColumn, position: at });
    seen.add(n);
  }
  // Upstream column types are known to the ingestion, not to the catalog (no upstream is read at plan time).
  const columns = names.map((name, i) => ({ name, type: known?.[i]?.type ?? 'unknown', notNull: false }));
  return { fromSource: { sourceId: source.id, reference }, columns };
}
