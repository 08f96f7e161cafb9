/**
 * View bodies the first reader (node-sql-parser) rejects are read again by PostgreSQL's own
 * parser once it is loaded. Its own file: the parser, once loaded, stays loaded in the process.
 */
import { describe, expect, it } from 'vitest';
import { SqlSyntaxError } from '../../shared/errors';
import { loadPgParser, pgRelations } from '../../shared/sql/pg-parser';
import { UnreadableViewBody } from '../../shared/errors';
import { relationsReferenced } from '../../shared/sql/view-deps';

const BEYOND_FIRST_READER = [
  ["VALUES ('a', 'b'), ('c', 'd')", []],
  ['SELECT DISTINCT ON (teacher_id) id FROM sections GROUP BY id', [['sections']]],
  ['SELECT 2 OPERATOR(pg_catalog.+) x FROM Sch.T', [['sch', 't']]],
  ['SELECT * FROM teachers grp, LATERAL (SELECT id FROM sections s WHERE s.teacher_id = grp.id LIMIT 3) l', [['teachers'], ['sections']]],
] as const;

describe("PostgreSQL's parser for view bodies", () => {
  it('is not loaded until asked: an unreadable body says it has not tried it yet', () => {
    const e = (() => {
      try {
        relationsReferenced(BEYOND_FIRST_READER[0][0]);
      } catch (err) {
        return err;
      }
    })();
    expect(e).toBeInstanceOf(UnreadableViewBody);
    expect((e as UnreadableViewBody).triedPostgres).toBe(false);
  });

  it('reads what the first reader rejects, with CTEs scoped to their query', async () => {
    expect(await loadPgParser()).toBeDefined();
    for (const [query, relations] of BEYOND_FIRST_READER) expect(relationsReferenced(query), query).toEqual(relations);
    expect(pgRelations('WITH x AS (SELECT * FROM a) SELECT * FROM x, (SELECT * FROM x) y, "Q".b WHERE EXISTS (WITH z AS (SELECT 1) SELECT * FROM z, x)')).toEqual([['Q', 'b'], ['a']]);
    // A name that is a CTE in one branch only is a relation in the other.
    expect(pgRelations('SELECT * FROM (WITH t AS (SELECT 1) SELECT * FROM t) a, t')).toEqual([['t']]);
  });

  it('still refuses what neither parser reads, with the position of the first reader', async () => {
    await loadPgParser();
    const query = "SELECT * FROM t WHERE ts + INTERVAL '30' minutes >= mz_now()";
    expect(() => relationsReferenced(query, { basePosition: 10 })).toThrow(SqlSyntaxError);
    try {
      relationsReferenced(query);
    } catch (e) {
      expect((e as UnreadableViewBody).triedPostgres).toBe(true);
    }
  });
});
