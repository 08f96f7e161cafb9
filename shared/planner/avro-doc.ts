/**
 * A sink's Avro `DOC ON` options, as Materialize resolves, purifies and plans them: each names a
 * type or relation (`DOC ON TYPE t`) or one of its columns (`DOC ON COLUMN t.c`), which must
 * exist; the `COMMENT`s on the sink's relation and on the items it references join them
 * (purify_create_sink_avro_doc_on_options), unless an option already documents the same
 * object for the same schema; and the value must be a string. `DOC ON` documents both the key and
 * the value schema, `KEY DOC ON` / `VALUE DOC ON` one of them and win over it there. The other
 * schema registry options' values are checked in the same pass, as Materialize checks them. Pure.
 */
import { isItemKind, type CatalogObject, type CatalogSnapshot, type ItemObject } from '../catalog/model';
import { PlanError, SQLSTATE } from '../errors';
import type { DocOnTarget, Format, FormatSpecifier, SqlOption } from '../sql/ast';
import { docOnText } from '../sql/printer';
import { DEFAULT_SCOPE, findItem, KIND_LABEL, type NameScope, RELATION_KINDS, unknownItem, wrongType } from './names';

/** One documented object of a schema: a type or relation (no `column`) or a column of one. */
export interface AvroDoc {
  readonly objectId: string;
  readonly column?: string;
  readonly doc: string;
}

/** What the sink's generated key and value schemas document. */
export interface AvroDocs {
  readonly key: readonly AvroDoc[];
  readonly value: readonly AvroDoc[];
}

type Schema = 'all' | 'key' | 'value';

const SCHEMA_OF: Readonly<Record<string, Schema>> = { 'DOC ON': 'all', 'KEY DOC ON': 'key', 'VALUE DOC ON': 'value' };
const NAME_OF: Readonly<Record<Schema, string>> = { all: 'DOC ON', key: 'KEY DOC ON', value: 'VALUE DOC ON' };

/** The column names of an item, where the catalog knows them (a table's, a record type's). */
function columnsOf(o: ItemObject): readonly string[] | 'none' | undefined {
  if (o.kind === 'table') return o.spec.fromSource && o.spec.columns.some((c) => c.type === 'unknown') ? undefined : o.spec.columns.map((c) => c.name);
  if (o.kind === 'type') return o.spec.category === 'record' ? o.spec.fields.map((f) => f.name) : 'none';
  // A view's, a source's or a materialized view's columns come from its query or upstream.
  if ((RELATION_KINDS as readonly string[]).includes(o.kind)) return undefined;
  return 'none';
}

/** Resolves a `DOC ON` target as Materialize's name resolution does (unknown item, unknown column, no columns). */
function resolveTarget(view: CatalogSnapshot, target: DocOnTarget, position: number, scope: NameScope): { item: ItemObject; column?: string } {
  const name = target.kind === 'type' ? target.name : target.relation;
  const item = findItem(view, name, position, scope);
  if (!item) throw unknownItem(name, position);
  if (item.kind !== 'type' && !(RELATION_KINDS as readonly string[]).includes(item.kind)) throw wrongType(item, 'relation or type', position);
  if (target.kind === 'type') return { item };
  const columns = columnsOf(item);
  if (columns === 'none') {
    throw new PlanError(`${KIND_LABEL[item.kind]} "${view.qualifiedName(item).join('.')}" does not have columns`, { code: SQLSTATE.internalError, position });
  }
  if (columns && !columns.includes(target.column)) {
    throw new PlanError(`column "${item.name}.${target.column}" does not exist`, { code: SQLSTATE.undefinedColumn, position });
  }
  return { item, column: target.column };
}

const keyOf = (schema: Schema, objectId: string, column: string | undefined) => `${schema}\u0000${objectId}\u0000${column ?? ''}`;

/**
 * Resolves the `DOC ON` options of every Avro format read through a schema registry, and adds
 * the comments of `from` and of the items it references: the format as purified, which SHOW
 * CREATE SINK shows (the added options name their objects in full, as Materialize's do).
 */
export function purifyAvroDocs(view: CatalogSnapshot, format: FormatSpecifier | undefined, from: CatalogObject, scope: NameScope = DEFAULT_SCOPE): FormatSpecifier | undefined {
  if (!format) return undefined;
  const purify = (f: Format, schema: Schema): Format => {
    if (f.kind !== 'avro' || f.csrConnection === undefined) return f;
    const given = new Set<string>();
    for (const o of f.csrOptions) {
      if (!o.docOn) continue;
      const { item, column } = resolveTarget(view, o.docOn, o.position, scope);
      given.add(keyOf(SCHEMA_OF[o.name]!, item.id, column));
    }
    const added: SqlOption[] = [];
    const position = f.csrOptions[0]?.position ?? 0;
    // The relation and what it references directly (the types of its columns, what it reads).
    const objects = [...from.dependsOn.map((id) => view.get(id)), from].filter((o): o is ItemObject => o !== undefined && isItemKind(o.kind));
    for (const o of objects) {
      const qualified = view.qualifiedName(o);
      const name = NAME_OF[schema];
      if (o.comment !== undefined && !given.has(keyOf(schema, o.id, undefined))) {
        added.push({ name, docOn: { kind: 'type', name: qualified }, value: { kind: 'string', value: o.comment }, position });
      }
      const columns = columnsOf(o);
      for (const column of Array.isArray(columns) ? columns : []) {
        const comment = o.columnComments?.[column];
        if (comment === undefined || given.has(keyOf(schema, o.id, column))) continue;
        added.push({ name, docOn: { kind: 'column', relation: qualified, column }, value: { kind: 'string', value: comment }, position });
      }
    }
    return added.length ? { ...f, csrOptions: [...f.csrOptions, ...added] } : f;
  };
  return format.kind === 'bare' ? { ...format, format: purify(format.format, 'all') } : { ...format, key: purify(format.key, 'key'), value: purify(format.value, 'value') };
}

const COMPATIBILITY_LEVELS = new Set(['BACKWARD', 'BACKWARD_TRANSITIVE', 'FORWARD', 'FORWARD_TRANSITIVE', 'FULL', 'FULL_TRANSITIVE', 'NONE']);

/** Materialize's check of a schema registry option's value (CsrConfigOptionExtracted), other than DOC ON's. */
function checkCsrValue(o: SqlOption): void {
  const invalid = (why: string) => new PlanError(`invalid ${o.name} option value: ${why}`, { code: SQLSTATE.internalError, position: o.position });
  const v = o.value;
  switch (o.name) {
    case 'NULL DEFAULTS':
      if (v.kind !== 'none' && v.kind !== 'boolean') throw invalid('cannot use value as boolean');
      return;
    case 'AVRO KEY FULLNAME':
    case 'AVRO VALUE FULLNAME':
      if (v.kind !== 'none' && v.kind !== 'string') throw invalid('cannot use value as string');
      return;
    case 'KEY COMPATIBILITY LEVEL':
    case 'VALUE COMPATIBILITY LEVEL':
      if (v.kind === 'none') return;
      if (v.kind !== 'string') throw invalid('must be a string');
      if (!COMPATIBILITY_LEVELS.has(v.value.toUpperCase())) throw invalid(`invalid compatibility level: ${v.value.toUpperCase()}`);
      return;
  }
}

/**
 * The docs of the key and value schemas from a purified format's `DOC ON` options, with
 * Materialize's checks of every schema registry option's value, in the order given
 * (`invalid DOC ON TYPE t option value: cannot be empty`, `invalid NULL DEFAULTS option value:
 * cannot use value as boolean`). `undefined` when there are no docs.
 */
export function planCsrConfig(view: CatalogSnapshot, format: FormatSpecifier | undefined, scope: NameScope = DEFAULT_SCOPE): AvroDocs | undefined {
  if (!format) return undefined;
  const key = new Map<string, AvroDoc>();
  const value = new Map<string, AvroDoc>();
  const common = new Map<string, AvroDoc>();
  for (const f of format.kind === 'bare' ? [format.format] : [format.key, format.value]) {
    if (f.kind !== 'avro' || f.csrConnection === undefined) continue;
    for (const o of f.csrOptions) {
      if (!o.docOn) {
        checkCsrValue(o);
        continue;
      }
      const label = `${o.name} ${docOnText(o.docOn)}`;
      if (o.value.kind === 'none') throw new PlanError(`invalid ${label} option value: cannot be empty`, { code: SQLSTATE.internalError, position: o.position });
      if (o.value.kind !== 'string') throw new PlanError(`invalid ${label} option value: cannot use value as string`, { code: SQLSTATE.internalError, position: o.position });
      const { item, column } = resolveTarget(view, o.docOn, o.position, scope);
      const doc: AvroDoc = column !== undefined ? { objectId: item.id, column, doc: o.value.value } : { objectId: item.id, doc: o.value.value };
      const target = keyOf('all', item.id, column);
      const schema = SCHEMA_OF[o.name]!;
      (schema === 'key' ? key : schema === 'value' ? value : common).set(target, doc);
    }
  }
  // A common doc fills each schema where that schema has none of its own.
  for (const [target, doc] of common) {
    if (!key.has(target)) key.set(target, doc);
    if (!value.has(target)) value.set(target, doc);
  }
  if (key.size === 0 && value.size === 0) return undefined;
  return { key: [...key.values()], value: [...value.values()] };
}
