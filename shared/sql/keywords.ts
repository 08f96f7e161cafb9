/**
 * Words the printer quotes when they are identifiers. The grammar reads any word as a name where
 * a name must stand, so only words that can be taken for a keyword where a name MAY stand need
 * quotes: statement and clause starts, `IF [NOT] EXISTS`, optional names (`CREATE INDEX [name] ON`),
 * literals in expressions and option values (`true`, `null`, `SECRET x`). Over-quoting is always
 * safe; the round-trip fuzz test (identifiers drawn from every keyword) keeps this list honest.
 */
export const KEYWORDS: ReadonlySet<string> = new Set([
  'all', 'alter', 'and', 'as', 'asc', 'begin', 'by', 'cascade', 'check', 'cluster', 'commit', 'connection', 'constraint', 'create',
  'database', 'default', 'desc', 'drop', 'effects', 'envelope', 'exclude', 'exists', 'explain', 'expose', 'false', 'for', 'foreign',
  'format', 'from', 'if', 'ilike', 'in', 'include', 'index', 'into', 'is', 'like', 'limit', 'materialized', 'not', 'null', 'offset',
  'on', 'or', 'order', 'primary', 'replace', 'replica', 'replicas', 'restrict', 'rollback', 'schema', 'secret', 'select', 'show',
  'sink', 'source', 'start', 'table', 'temp', 'temporary', 'to', 'true', 'unique', 'using', 'view', 'where', 'with', 'without',
]);
