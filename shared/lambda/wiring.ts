/**
 * Builds each Lambda's dependencies from a validated Config: one module per function (api.ts,
 * authorizer.ts, router.ts, executor.ts, sweeper.ts), so that a function's bundle holds (and its
 * cold start imports) only what that function uses. The functions/ entry points import those
 * modules directly; the local runtime and tests, which run everything, import them all from here.
 */
export { apiHandler } from './api';
export { authorizerHandler } from './authorizer';
export { makeDataPlane } from './data-plane';
export { executorHandler } from './executor';
export { routerHandler } from './router';
export { awsSecretStore } from './secrets';
export { makeSweeper, sweeperHandler } from './sweeper';
export { statusIngestHandler } from './status-ingest';
