/**
 * `EXPLAIN EFFECTS FOR` takes every statement that changes the catalog. The record below names
 * every statement kind (a new kind is a compile error here until it is sorted) with one example
 * of it, or null when it changes nothing; DDL_KINDS must hold exactly the kinds with an example.
 */
import { describe, expect, it } from 'vitest';
import type { StatementKind } from '../../shared/sql/ast';
import { DDL_KINDS, parse } from '../../shared/sql/parser';

const EXAMPLES: Record<StatementKind, string | null> = {
  create_cluster: "CREATE CLUSTER c (SIZE = '25cc')",
  create_cluster_replica: "CREATE CLUSTER REPLICA c.r1 (SIZE = '25cc')",
  create_database: 'CREATE DATABASE d',
  create_schema: 'CREATE SCHEMA s',
  create_secret: "CREATE SECRET s AS 'x'",
  alter_secret: "ALTER SECRET s AS 'y'",
  alter_source: 'ALTER SOURCE pg ADD SUBSOURCE public.items',
  create_connection: "CREATE CONNECTION k TO KAFKA (BROKER 'b:9092')",
  alter_connection: "ALTER CONNECTION k SET (BROKER = 'b2:9092')",
  validate_connection: null,
  query: null,
  set_variable: null,
  reset_variable: null,
  show_variable: null,
  create_source: 'CREATE SOURCE s FROM LOAD GENERATOR COUNTER',
  create_webhook_source: 'CREATE SOURCE w FROM WEBHOOK BODY FORMAT TEXT',
  create_sink: "CREATE SINK k FROM t INTO KAFKA CONNECTION k (TOPIC 't') FORMAT JSON ENVELOPE DEBEZIUM",
  create_table: 'CREATE TABLE t (a int)',
  create_table_from_source: 'CREATE TABLE t FROM SOURCE s',
  create_view: 'CREATE VIEW v AS SELECT 1',
  create_materialized_view: 'CREATE MATERIALIZED VIEW mv AS SELECT 1',
  create_index: 'CREATE INDEX i ON t (a)',
  create_type: 'CREATE TYPE ints AS LIST (ELEMENT TYPE = int4)',
  drop: 'DROP TABLE t',
  alter_rename: 'ALTER TABLE t RENAME TO u',
  alter_owner: 'ALTER TABLE t OWNER TO r',
  alter_set_cluster: 'ALTER MATERIALIZED VIEW mv SET CLUSTER c',
  alter_swap: 'ALTER SCHEMA s SWAP WITH s2',
  alter_retain_history: "ALTER TABLE t SET (RETAIN HISTORY = FOR '1h')",
  alter_table_add_column: 'ALTER TABLE t ADD COLUMN b text',
  comment: "COMMENT ON TABLE t IS 'x'",
  alter_restart: 'ALTER SOURCE s RESTART',
  alter_cluster: "ALTER CLUSTER c SET (SIZE = '50cc')",
  alter_apply_replacement: 'ALTER MATERIALIZED VIEW mv APPLY REPLACEMENT mv_r',
  create_role: 'CREATE ROLE r',
  alter_role: 'ALTER ROLE r INHERIT',
  drop_role: 'DROP ROLE r',
  grant_role: 'GRANT r TO s',
  revoke_role: 'REVOKE r FROM s',
  grant_privileges: 'GRANT SELECT ON TABLE t TO r',
  revoke_privileges: 'REVOKE SELECT ON TABLE t FROM r',
  alter_default_privileges: 'ALTER DEFAULT PRIVILEGES FOR ROLE r GRANT SELECT ON TABLES TO s',
  drop_owned: 'DROP OWNED BY r',
  reassign_owned: 'REASSIGN OWNED BY r TO s',
  create_network_policy: "CREATE NETWORK POLICY np (RULES (r (ACTION = 'allow', DIRECTION = 'ingress', ADDRESS = '0.0.0.0/0')))",
  alter_network_policy: "ALTER NETWORK POLICY np SET (RULES (r (ACTION = 'allow', DIRECTION = 'ingress', ADDRESS = '0.0.0.0/0')))",
  drop_network_policy: 'DROP NETWORK POLICY np',
  alter_sink_from: 'ALTER SINK s SET FROM t',
  alter_system_set: 'ALTER SYSTEM SET cluster = c',
  alter_system_reset: 'ALTER SYSTEM RESET cluster',
  show_create: null,
  show: null,
  select: null,
  start_transaction: null,
  commit: null,
  rollback: null,
  explain_effects: null,
};

const ddl = Object.entries(EXAMPLES).filter((e): e is [StatementKind, string] => e[1] !== null);

describe('EXPLAIN EFFECTS FOR', () => {
  it('DDL_KINDS holds exactly the statement kinds that change the catalog', () => {
    expect([...DDL_KINDS].sort()).toEqual(ddl.map(([k]) => k).sort());
  });

  it.each(ddl)('explains %s', (kind, sql) => {
    expect(parse(sql)[0]!.statement.kind).toBe(kind);
    const [explained] = parse(`EXPLAIN EFFECTS FOR ${sql}`);
    expect(explained!.statement).toMatchObject({ kind: 'explain_effects', statement: { kind } });
  });

  it('also RESET (RETAIN HISTORY) and ALTER SOURCE ... REFRESH REFERENCES', () => {
    for (const sql of ['ALTER TABLE t RESET (RETAIN HISTORY)', 'ALTER SOURCE pg REFRESH REFERENCES']) {
      expect(parse(`EXPLAIN EFFECTS FOR ${sql}`)[0]!.statement.kind).toBe('explain_effects');
    }
  });
});
