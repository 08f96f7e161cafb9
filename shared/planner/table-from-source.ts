/**
 * `CREATE TABLE ... FROM SOURCE`: which upstream output of a source a new table exports, with
 * Materialize's purification checks and words. Pure: the source comes from the caller's snapshot.
 */
import type { ObjectOf, TableSource } from '../catalog/model';
import { generatorOf, generatesKeys, keyedSource, sourceOf, type GeneratedColumn } from '../connectors';
import { NotSupportedError, PlanError, SQLSTATE } from '../errors';
import type { Statement } from '../sql/ast';
import { objectName as printName } from '../sql/printer';
import { mz } from '../mz-errors';
import { checkSourceEncoding, renameColumns } from './source-sink-checks';
import { checkPartitionBy } from './types';

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
    if (!Object.hasOwn(upstream, table) || (s.reference.length > 1 && s.reference[s.reference.length - 2] !== generator)) {
      throw new PlanError(`reference to ${printName(s.reference)} not found in source`, {
        code: SQLSTATE.invalidParameterValue,
        position: at,
        hint: `LOAD GENERATOR ${generator!.toUpperCase()} has the tables ${Object.keys(upstream).sort().join(', ')}.`,
      });
    }
    reference = table;
  }
  // Then plan_create_table_from_source: the encoding, the column list renaming the first columns, no name twice.
  const list = s.columns && { label: `source table ${printName(s.name)}`, names: s.columns };
  checkSourceEncoding(s, generatesKeys(type, source.spec.options.GENERATOR), at, list);
  // A load generator's columns are Materialize's; an upstream's are known to the ingestion, not to the catalog (no upstream is read at plan time).
  const known = generator === undefined ? undefined : upstream ? upstream[reference as keyof typeof upstream] : spec?.columns;
  const names = known ? renameColumns(known.map((c) => c.name), list ?? { label: '', names: [] }, at) : (s.columns ?? []);
  const duplicate = names.find((n, i) => names.indexOf(n) !== i);
  if (duplicate !== undefined) throw mz.ColumnSpecifiedMoreThanOnce(duplicate).at(at);
  const columns = names.map((name, i) => {
    const c: GeneratedColumn | undefined = known?.[i];
    return { name, type: c?.type ?? 'unknown', notNull: c !== undefined && !c.nullable };
  });
  // WITH (PARTITION BY (...)): a prefix of the columns, of types whose encoding keeps their order.
  if (known) checkPartitionBy(columns.map((c) => ({ name: c.name, type: { name: [c.type], typmod: [], arrayDimensions: 0 } })), s.withOptions);
  return { fromSource: { sourceId: source.id, reference }, columns };
}
