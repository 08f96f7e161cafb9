/**
 * Planner parts that few statements need — a materialized view's REFRESH options, a webhook's
 * CHECK, a sink's Avro DOC ON options, the rewriting of dependents' definitions on a RENAME, the
 * token checks of view bodies and index keys — kept off the DDL function's cold start: shared/api/planning.ts loads this module for the
 * statements that need it (occasionalNeeded in ./plan.ts) and passes it to the planner in its context.
 */
export { planRefresh } from './refresh';
export { planWebhookCheck } from './webhook-check';
export { planCsrConfig, purifyAvroDocs } from './avro-doc';
export { checkMaterializable } from './unmaterializable';
export { renameItemInQuery, renameSchemaInQuery } from '../sql/rename';
export { ambiguousAliasColumn, hasRecordWildcard, mixesGroupSizeHints } from '../sql/body-checks';
