import '../../shared/lambda/stack-traces';
import { loadConfig } from '../../shared/config';
import { apiHandler } from '../../shared/lambda/api';
import { makeLogger } from '../../shared/lambda/logger';
import { awsSqlApiDependencies } from '../../shared/lambda/sql-api-dependencies';

const config = loadConfig(process.env);
// Secrets Manager and the probes' clients load on the first request that needs them; SQS carries
// the fast path of committed effects (shared/router/fast-path.ts). The pgwire task builds the same.
const deps = awsSqlApiDependencies(config);
export const handler = apiHandler(config, deps.clients, makeLogger('ddl-api'), deps.secrets, deps.prober, deps.fingerprintKey);
