/**
 * Operator commands (redrive, check, tenants, passwords) talk to DynamoDB and SQS directly, not
 * to the SQL API: locally through the running `npm start` (runtime.json), against a deployed
 * stack through the flags (`--table`, ...) and the standard AWS credential chain and
 * `AWS_REGION` / `AWS_ENDPOINT_URL*` variables.
 */
import { makeClients, type Clients } from '../shared/aws';
import type { Config } from '../shared/config';
import { CONTROLLERS, ENV, type Controller } from '../shared/definitions';
import { requireRuntime, type GlobalOptions } from './connection';
import { CliError, EXIT } from './errors';

export interface AwsOptions {
  /** The catalog table of a deployed stack (output CatalogTableName). */
  readonly table?: string;
  readonly region?: string;
}

export interface Target {
  readonly clients: Clients;
  readonly catalogTable: string;
  /** Where the target is, for messages. */
  readonly where: string;
  /** The local runtime's configuration (absent against AWS). */
  readonly config?: Config;
  close(): void;
}

/** Any credentials do for DynamoDB Local (-sharedDb) and the SQS emulator: local/emulators.ts LOCAL_CREDENTIALS. */
const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

export function target(g: GlobalOptions, o: AwsOptions, what: string): Target {
  let clients: Clients;
  if (o.table) {
    const region = o.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
    if (!region) throw new CliError('set --region or AWS_REGION to reach the deployed stack', EXIT.usage);
    clients = makeClients({ region });
    return { clients, catalogTable: o.table, where: `table ${o.table} in ${region}`, close: () => destroy(clients) };
  }
  const info = requireRuntime(g, what);
  clients = makeClients({ region: info.region, credentials: LOCAL_CREDENTIALS, endpoints: { dynamodb: info.dynamodbEndpoint, sqs: info.sqsEndpoint } });
  return { clients, catalogTable: info.config.catalogTable, where: `the local runtime (${info.url})`, config: info.config, close: () => destroy(clients) };
}

function destroy(c: Clients): void {
  c.ddb.destroy();
  c.sqs.destroy();
  c.streams.destroy();
}

export function parseControllers(value: string | undefined): Controller[] {
  if (value === undefined) return [...CONTROLLERS];
  if (!(CONTROLLERS as readonly string[]).includes(value)) throw new CliError(`unknown controller ${JSON.stringify(value)}: one of ${CONTROLLERS.join(', ')}`, EXIT.usage);
  return [value as Controller];
}

/** A controller's queue and DLQ: the flags (one controller), else the runtime, else QUEUE_URL_<C> / DLQ_URL_<C>. */
export function queuesOf(t: Target, c: Controller, flags: { queueUrl?: string; dlqUrl?: string }, env: NodeJS.ProcessEnv = process.env): { queueUrl?: string; dlqUrl?: string } {
  return {
    queueUrl: flags.queueUrl ?? t.config?.queueUrls[c] ?? env[ENV.queueUrl(c)],
    dlqUrl: flags.dlqUrl ?? t.config?.dlqUrls[c] ?? env[ENV.dlqUrl(c)],
  };
}
