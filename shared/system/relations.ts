/**
 * The shape of a SHOW's answer (shared/system/evaluate.ts): columns with one of four types, and
 * positional rows. System relations themselves are defined by column name in
 * ./catalog-relations.ts and ./pg-relations.ts and answered by the SQL engine.
 */

export type Value = string | number | boolean | null;
export type ColumnType = 'text' | 'int8' | 'bool' | 'timestamptz';

export interface Column {
  readonly name: string;
  readonly type: ColumnType;
}

export interface Relation {
  readonly columns: readonly Column[];
  readonly rows: readonly (readonly Value[])[];
  /** What the reader should know that no column carries (a SHOW's notices). */
  readonly notices?: readonly string[];
}

export const col = (name: string, type: ColumnType = 'text'): Column => ({ name, type });
