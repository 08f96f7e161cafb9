/**
 * Which statements of Materialize's tests are a control plane's business. Decided from the
 * statement text alone (not from our answer), so the API cannot excuse itself from a case by
 * calling it out of scope.
 */

/** Statement kinds that read or write data, or set session state: the data plane's, not ours. */
const OUTSIDE_FIRST_WORDS = new Set([
  'insert', 'update', 'delete', 'copy', 'subscribe', 'tail', 'declare', 'fetch', 'close', 'values', 'table', 'with', 'prepare', 'execute',
  'deallocate', 'discard', 'set', 'reset', 'explain', 'abort', 'savepoint', 'release', 'end',
]);

/** Relations of the system catalog: a SELECT over them is a catalog read we serve. */
const SYSTEM_RELATION = /\b(?:from|join)\s+(?:(?:"?mz_catalog"?|"?mz_internal"?|"?pg_catalog"?|"?information_schema"?|"?mz_introspection"?)\s*\.|"?mz_[a-z_]+"?\b|"?pg_[a-z_]+"?\b)/i;

export type CaseClass = 'ddl' | 'catalog_read' | 'outside';

export function classify(sql: string): CaseClass {
  const text = sql.replace(/--[^\n]*/g, ' ').trim();
  const first = (/^\(*\s*([a-z_]+)/i.exec(text)?.[1] ?? '').toLowerCase();
  if (first === 'explain' && /^explain\s+effects\b/i.test(text)) return 'ddl';
  if (first === 'show') {
    // SHOW <session variable> reads session state; SHOW <object kind> reads the catalog.
    return /^show\s+(?:create\s|clusters?\b|cluster\s+replicas\b|materialized\s+views\b|connections\b|databases\b|indexes\b|objects\b|schemas\b|secrets\b|sinks\b|sources\b|tables\b|views\b|columns\b|types\b|roles\b|subsources\b|privileges\b|default\s+privileges\b|role\s+membership\b|network\s+policies\b|continual\s+tasks\b|all\b)/i.test(text)
      ? 'catalog_read'
      : 'outside';
  }
  // `SELECT ... FROM (SHOW ...)`: Materialize serves a SHOW where a relation goes; it reads what the SHOW reads.
  const showSubquery = /\bfrom\s*\(\s*(show\b[^)]*)\)/i.exec(text);
  if (first === 'select' && showSubquery) return classify(showSubquery[1]!);
  if (first === 'select') return SYSTEM_RELATION.test(text) ? 'catalog_read' : 'outside';
  if (OUTSIDE_FIRST_WORDS.has(first)) return 'outside';
  return 'ddl';
}

/** A SELECT (a query, of the catalog or beyond it), as opposed to DDL, SHOW and the rest. */
export function isQuery(sql: string): boolean {
  return /^\(*\s*select\b/i.test(sql.replace(/--[^\n]*/g, ' ').trim());
}
