import { describe, expect, it } from 'vitest';
import { MATERIALIZE_SYSTEM_RELATIONS } from '../../shared/sql/materialize-relations';
import { SEARCHED_SYSTEM_NAMES } from '../../shared/sql/searched-system-names';
import { isSystemRelation } from '../../shared/planner/names';

describe("the searched system schemas' names", () => {
  it("are exactly the relations of mz_catalog and pg_catalog in Materialize's list", () => {
    const fromList = new Set(
      Object.keys(MATERIALIZE_SYSTEM_RELATIONS)
        .filter((q) => q.startsWith('mz_catalog.') || q.startsWith('pg_catalog.'))
        .map((q) => q.slice(q.indexOf('.') + 1)),
    );
    expect([...SEARCHED_SYSTEM_NAMES].sort()).toEqual([...fromList].sort());
  });

  it('make an unqualified name a system relation, and leave a user item with an mz_ prefix alone', () => {
    expect(isSystemRelation(['mz_tables'])).toBe(true);
    expect(isSystemRelation(['pg_class'])).toBe(true);
    expect(isSystemRelation(['mz_internal', 'mz_comments'])).toBe(true);
    expect(isSystemRelation(['mz_my_table'])).toBe(false);
    expect(isSystemRelation(['public', 'mz_tables'])).toBe(false);
  });
});
