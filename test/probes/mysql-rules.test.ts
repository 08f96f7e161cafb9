/**
 * What Materialize requires of a MySQL server and of a source's table references
 * (shared/probes/mysql-rules.ts), on the values a server answers: MySQL's variables here (no
 * MySQL server runs on this machine; the MariaDB ones are also exercised for real in
 * test/integration/mysql-source.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { flavorOf, referencesSystemSchemas, replicationSettingProblems, requiredVariables, resolveReferences, settingsDetail, type SystemVariables } from '../../shared/probes/mysql-rules';

/** A MySQL 8.0 server set up as Materialize's guide says (mysql2 answers log_bin as a number). */
const READY_MYSQL: SystemVariables = {
  gtid_mode: 'ON',
  enforce_gtid_consistency: 'ON',
  gtid_next: 'AUTOMATIC',
  log_bin: 1,
  binlog_format: 'ROW',
  binlog_row_image: 'FULL',
  replica_parallel_workers: 4,
  slave_parallel_workers: 4,
  replica_preserve_commit_order: 1,
  slave_preserve_commit_order: 1,
};

describe('MySQL replication settings', () => {
  it('tells MariaDB from MySQL by @@version', () => {
    expect(flavorOf('10.11.19-MariaDB-0+deb12u1-log')).toBe('mariadb');
    expect(flavorOf('8.0.36')).toBe('mysql');
    expect(flavorOf('5.7.44-log')).toBe('mysql');
    // MariaDB has none of MySQL's GTID variables: asking for them would fail the query.
    expect(requiredVariables('mariadb')).toEqual(['log_bin', 'binlog_format', 'binlog_row_image']);
    expect(requiredVariables('mysql')).toEqual(['gtid_mode', 'enforce_gtid_consistency', 'gtid_next', 'log_bin', 'binlog_format', 'binlog_row_image']);
  });

  it('accepts a server set up as Materialize asks', () => {
    expect(replicationSettingProblems('mysql', READY_MYSQL)).toEqual([]);
    expect(replicationSettingProblems('mariadb', { log_bin: 1, binlog_format: 'ROW', binlog_row_image: 'FULL' })).toEqual([]);
  });

  it('reports the first setting off in each of Materialize\'s groups, GTIDs first, with its DETAIL', () => {
    const problems = replicationSettingProblems('mysql', { ...READY_MYSQL, gtid_mode: 'OFF', enforce_gtid_consistency: 'OFF', binlog_format: 'STATEMENT', binlog_row_image: 'MINIMAL' });
    expect(problems).toEqual([
      { setting: 'gtid_mode', expected: 'ON', actual: 'OFF' },
      { setting: 'binlog_format', expected: 'ROW', actual: 'STATEMENT' },
    ]);
    expect(settingsDetail(problems)).toBe('Invalid MySQL system replication settings: gtid_mode: expected ON, got OFF; binlog_format: expected ROW, got STATEMENT');
  });

  it('reads each requirement on its own: log_bin off, GTID consistency only WARN, a manual gtid_next', () => {
    expect(replicationSettingProblems('mysql', { ...READY_MYSQL, log_bin: 0 })).toEqual([{ setting: 'log_bin', expected: '1', actual: '0' }]);
    expect(replicationSettingProblems('mysql', { ...READY_MYSQL, enforce_gtid_consistency: 'WARN' })).toEqual([{ setting: 'enforce_gtid_consistency', expected: 'ON', actual: 'WARN' }]);
    expect(replicationSettingProblems('mysql', { ...READY_MYSQL, gtid_next: 'ANONYMOUS' })).toEqual([{ setting: 'gtid_next', expected: 'AUTOMATIC', actual: 'ANONYMOUS' }]);
    // Compared exactly, as Materialize does.
    expect(replicationSettingProblems('mysql', { ...READY_MYSQL, binlog_format: 'row' })).toEqual([{ setting: 'binlog_format', expected: 'ROW', actual: 'row' }]);
  });

  it('asks a multi-threaded replica to preserve commit order, under the old name as Materialize does', () => {
    expect(replicationSettingProblems('mysql', { ...READY_MYSQL, replica_preserve_commit_order: 0, slave_preserve_commit_order: 0 })).toEqual([{ setting: 'slave_preserve_commit_order', expected: '1', actual: '0' }]);
    // One applier thread (or none): the order is the primary's anyway.
    for (const workers of [0, 1]) {
      expect(replicationSettingProblems('mysql', { ...READY_MYSQL, replica_parallel_workers: workers, slave_parallel_workers: workers, replica_preserve_commit_order: 0, slave_preserve_commit_order: 0 })).toEqual([]);
    }
    // MySQL 5.7 has only the old names; 8.4 only the new ones.
    const old = { ...READY_MYSQL, replica_parallel_workers: undefined, replica_preserve_commit_order: undefined };
    expect(replicationSettingProblems('mysql', { ...old, slave_preserve_commit_order: 'OFF' })).toEqual([{ setting: 'slave_preserve_commit_order', expected: '1', actual: 'OFF' }]);
    expect(replicationSettingProblems('mysql', { ...READY_MYSQL, slave_parallel_workers: undefined, slave_preserve_commit_order: undefined, replica_preserve_commit_order: 0 })).toEqual([
      { setting: 'replica_preserve_commit_order', expected: '1', actual: '0' },
    ]);
  });

  it('holds MariaDB to its binlog settings only', () => {
    expect(replicationSettingProblems('mariadb', { log_bin: 1, binlog_format: 'MIXED', binlog_row_image: 'MINIMAL' })).toEqual([{ setting: 'binlog_format', expected: 'ROW', actual: 'MIXED' }]);
    expect(replicationSettingProblems('mariadb', { log_bin: 0, binlog_format: 'ROW', binlog_row_image: 'FULL', slave_parallel_workers: 8 })).toEqual([{ setting: 'log_bin', expected: '1', actual: '0' }]);
  });
});

describe('MySQL source references', () => {
  const tables = [
    { schema: 'shop', name: 'orders' },
    { schema: 'shop', name: 'items' },
    { schema: 'crm', name: 'orders' },
    { schema: 'crm', name: 'People' },
  ];

  it('resolves one to three parts, the first of three being Materialize\'s fake database "mysql"', () => {
    expect(resolveReferences(tables, { kind: 'tables', tables: [['shop', 'orders'], ['items'], ['mysql', 'crm', 'People']] })).toEqual({ tables: [tables[0], tables[1], tables[3]] });
    expect(resolveReferences(tables, { kind: 'tables', tables: [['db', 'shop', 'orders']] })).toMatchObject({ error: 'reference to db.shop.orders not found in source' });
  });

  it('answers Materialize\'s words for a missing table, an ambiguous one, and a case that does not match, naming what there is', () => {
    expect(resolveReferences(tables, { kind: 'tables', tables: [['shop', 'orders'], ['shop', 'nope']] })).toEqual({
      error: 'reference to shop.nope not found in source',
      hint: 'The MySQL server has shop.orders, shop.items, crm.orders, crm."People".',
    });
    expect(resolveReferences(tables, { kind: 'tables', tables: [['orders']] })).toMatchObject({ error: 'reference orders is ambiguous, consider specifying an additional layer of qualification' });
    // MySQL's table names are case-sensitive on Linux, and Materialize compares them exactly.
    expect(resolveReferences(tables, { kind: 'tables', tables: [['crm', 'people']] })).toMatchObject({ error: 'reference to crm.people not found in source' });
  });

  it('takes every table for FOR ALL TABLES, and refuses an upstream with none', () => {
    expect(resolveReferences(tables, { kind: 'all' })).toEqual({ tables });
    expect(resolveReferences([], { kind: 'all' })).toEqual({
      error: 'MySQL source must ingest at least one table, but FOR ALL TABLES matched none',
      hint: 'No tables were found to replicate. This could be because the user does not have privileges on the intended tables.',
    });
  });

  it('takes the tables of FOR SCHEMAS, and names the schemas with none', () => {
    expect(resolveReferences(tables, { kind: 'schemas', schemas: ['crm'] })).toEqual({ tables: [tables[2], tables[3]] });
    expect(resolveReferences(tables, { kind: 'schemas', schemas: ['zz', 'shop', 'aa'] })).toMatchObject({ error: 'no tables found in referenced schemas: "aa", "zz"' });
  });

  it('lists system schemas only when a reference names one', () => {
    expect(referencesSystemSchemas({ kind: 'all' })).toBe(false);
    expect(referencesSystemSchemas({ kind: 'tables', tables: [['shop', 'orders'], ['mysql', 'user']] })).toBe(true);
    expect(referencesSystemSchemas({ kind: 'tables', tables: [['user']] })).toBe(false);
    expect(referencesSystemSchemas({ kind: 'schemas', schemas: ['performance_schema'] })).toBe(true);
  });
});
