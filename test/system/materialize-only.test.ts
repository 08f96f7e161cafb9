import { describe, expect, it } from 'vitest';
import { PlanError, SQLSTATE } from '../../shared/errors';
import { materializeOnlyError, materializeRelation, materializeSchemaItems } from '../../shared/system/materialize-only';
import { evaluateShow, systemRelationName, systemSchemaOf } from '../../shared/system/evaluate';
import { parse } from '../../shared/sql/parser';

const unknownTable = (name: string) => new PlanError(`unknown catalog item '${name}'`, { code: SQLSTATE.undefinedTable, position: 14 });
const unknownColumn = (name: string) => new PlanError(`column "${name}" does not exist`, { code: SQLSTATE.undefinedColumn, position: 7 });

describe("Materialize's system relations we do not have", () => {
  it('resolves names as Materialize does: mz_catalog and pg_catalog searched, mz_internal named', () => {
    expect(materializeRelation(['mz_audit_events'])).toBe('mz_catalog.mz_audit_events');
    expect(materializeRelation(['pg_am'])).toBe('pg_catalog.pg_am');
    expect(materializeRelation(['materialize', 'mz_internal', 'mz_comments'])).toBe('mz_internal.mz_comments');
    expect(materializeRelation(['mz_comments'])).toBeUndefined();
    expect(materializeRelation(['no_such_relation'])).toBeUndefined();
  });

  it('answers 0A000 for a relation Materialize has, keeping the position; anything else stands', () => {
    const e = materializeOnlyError(unknownTable('mz_internal.mz_comments'), ['mz_internal', 'mz_comments'], undefined);
    expect(e).toMatchObject({ code: SQLSTATE.featureNotSupported, message: 'system table mz_internal.mz_comments is not supported by this control plane', position: 14 });
    expect(materializeOnlyError(unknownTable('mz_nope'), ['mz_nope'], undefined)).toBeUndefined();
    expect(materializeOnlyError(new Error('x'), ['mz_roles'], undefined)).toBeUndefined();
  });

  it('answers 0A000 for a column Materialize declares on a relation we have, not for a typo', () => {
    expect(systemRelationName(['mz_tables'])).toBe('mz_catalog.mz_tables');
    const e = materializeOnlyError(unknownColumn('redacted_create_sql'), ['mz_tables'], systemRelationName(['mz_tables']));
    expect(e).toMatchObject({ code: SQLSTATE.featureNotSupported, message: 'column "redacted_create_sql" of mz_catalog.mz_tables is not supported by this control plane', position: 7 });
    expect(materializeOnlyError(unknownColumn('zzz'), ['mz_tables'], 'mz_catalog.mz_tables')).toBeUndefined();
  });

  it('SHOW ... FROM a system schema lists its relations of that kind', () => {
    const [show] = parse('SHOW VIEWS FROM mz_introspection').map((p) => p.statement);
    expect(systemSchemaOf(['mz_introspection'])).toBe('mz_introspection');
    expect(systemSchemaOf(['other_db', 'mz_internal'])).toBeUndefined();
    const rel = evaluateShow(show as Extract<typeof show, { kind: 'show' }>, { snapshot: undefined as never, replicaStatuses: [], effects: [], connectorStatuses: [], history: [] }, materializeSchemaItems);
    const names = rel.rows.map((r) => r[0]);
    expect(names).toContain('mz_compute_frontiers');
    expect(names).toEqual([...names].sort());
    expect(names.length).toBe(materializeSchemaItems('mz_introspection').filter((i) => i.kind === 'view').length);
  });
});
