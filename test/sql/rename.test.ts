/**
 * The rename rules of Materialize's create_stmt_rename_refs / create_stmt_rename_schema_refs
 * (src/sql/src/ast/transform.rs), over a body's tokens: each case states a rule of that code, the
 * items resolving as in a catalog with `materialize.public.t`, `materialize.public.u` and
 * `materialize.s.t`.
 */
import { describe, expect, it } from 'vitest';
import { nameChains, renameItemInQuery, renameSchemaInQuery, type FullName } from '../../shared/sql/rename';

const ITEMS: Record<string, FullName> = {
  't': { database: 'materialize', schema: 'public', item: 't' },
  'public.t': { database: 'materialize', schema: 'public', item: 't' },
  'materialize.public.t': { database: 'materialize', schema: 'public', item: 't' },
  'u': { database: 'materialize', schema: 'public', item: 'u' },
  's.t': { database: 'materialize', schema: 's', item: 't' },
  'materialize.s.t': { database: 'materialize', schema: 's', item: 't' },
};
const resolve = (n: readonly string[]) => ITEMS[n.join('.')];
const T: FullName = ITEMS.t!;

describe('name chains', () => {
  it('tells items, qualifiers, functions and bare names apart', () => {
    const roles = nameChains('WITH c (x) AS (SELECT a FROM t) SELECT t.a, f(b) AS y, c.* FROM t AS z JOIN u USING (k), c').map((c) => [c.parts.map((p) => p.value).join('.'), c.role]);
    expect(roles).toEqual([
      ['c', 'bare'],
      ['x', 'bare'],
      ['a', 'expr'],
      ['t', 'item'],
      ['t.a', 'expr'],
      ['f', 'function'],
      ['b', 'expr'],
      ['y', 'bare'],
      ['c', 'expr'],
      ['t', 'item'],
      ['z', 'bare'],
      ['u', 'item'],
      ['k', 'bare'],
      ['c', 'item'],
    ]);
  });
});

describe('renaming an item in a body', () => {
  it('renames the items that resolve to it and the qualifiers that name it', () => {
    expect(renameItemInQuery('SELECT t.a, b FROM t WHERE t.b > 1', T, 'orders', resolve)).toEqual({ ok: true, text: 'SELECT orders.a, b FROM orders WHERE orders.b > 1' });
    expect(renameItemInQuery('SELECT t.* FROM public.t', T, 'orders', resolve)).toEqual({ ok: true, text: 'SELECT orders.* FROM public.orders' });
  });

  it('quotes a new name that needs it', () => {
    expect(renameItemInQuery('SELECT a FROM t', T, 'Big Orders', resolve)).toEqual({ ok: true, text: 'SELECT a FROM "Big Orders"' });
  });

  it('leaves another item of the same name alone', () => {
    expect(renameItemInQuery('SELECT a FROM s.t', T, 'w', resolve)).toEqual({ ok: true, text: 'SELECT a FROM s.t' });
  });

  it('refuses a new name the body already uses, in any role (fail_on)', () => {
    expect(renameItemInQuery('SELECT a AS w FROM t', T, 'w', resolve)).toEqual({
      ok: false,
      message: 'found reference to "w"; cannot rename "t" to any identity used in any existing view definitions',
    });
    // The stored definition names every item with its schema: a schema's name is taken too.
    expect(renameItemInQuery('SELECT a FROM t', T, 'public', resolve)).toMatchObject({ ok: false, message: expect.stringContaining('found reference to "public"') });
  });

  it('refuses the old name as a column, an alias or a function', () => {
    expect(renameItemInQuery('SELECT u.t FROM t, u', T, 'w', resolve)).toEqual({ ok: false, message: '"t" potentially used ambiguously as item and column' });
    expect(renameItemInQuery('SELECT x.a FROM u AS t, t AS x', T, 'w', resolve)).toEqual({ ok: false, message: '"t" potentially used ambiguously as item and alias or column' });
    expect(renameItemInQuery('SELECT t(a) FROM t', T, 'w', resolve)).toEqual({ ok: false, message: '"t" potentially used ambiguously as item and database, schema, or function' });
  });

  it('needs the schema in every qualifier when two items of the name are read', () => {
    expect(renameItemInQuery('SELECT t.a FROM public.t, s.t AS st', T, 'w', resolve)).toEqual({ ok: false, message: '"t" is not sufficiently qualified to support renaming' });
    expect(renameItemInQuery('SELECT public.t.a, s.t.a AS b FROM public.t, s.t', T, 'w', resolve)).toEqual({ ok: true, text: 'SELECT public.w.a, s.t.a AS b FROM public.w, s.t' });
  });
});

describe('renaming a schema in a body', () => {
  it('renames the schema part of the names that spell it', () => {
    expect(renameSchemaInQuery('SELECT x.a FROM s.t AS x, materialize.s.t AS y', 'materialize', 's', 's2', resolve)).toEqual({ ok: true, text: 'SELECT x.a FROM s2.t AS x, materialize.s2.t AS y' });
  });

  it('refuses a column qualified by schema and item without the database', () => {
    expect(renameSchemaInQuery('SELECT s.t.a FROM s.t', 'materialize', 's', 's2', resolve)).toEqual({ ok: false, message: 'ambiguous reference to schema named s' });
    expect(renameSchemaInQuery('SELECT materialize.s.t.a FROM s.t', 'materialize', 's', 's2', resolve)).toEqual({ ok: true, text: 'SELECT materialize.s2.t.a FROM s2.t' });
  });
});
