/** Factories for the data-plane tests: a reference data plane on its own table, owners, specs, fake servers. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../local/emulators';
import { ensureTable } from '../../local/resources';
import { makeClients } from '../../shared/aws';
import type { ResourceKind, ResourceOwner, ResourceSpecs } from '../../shared/dataplane/contract';
import { FaultInjector } from '../../shared/dataplane/faults';
import { ReferenceDataPlane } from '../../shared/dataplane/reference';
import { DATAPLANE_TABLE } from '../../shared/definitions';
import type { RetryPolicy } from '../../shared/effects/retry-policies';
import { uniquePrefix } from '../helpers/pipeline';
import { dynamodbEndpoint } from '../helpers/endpoints';

/** The `dataplane.http` shape, spent in milliseconds. */
export const FAST_POLICY: RetryPolicy = { name: 'dataplane.http', initialDelayMs: 5, factor: 2, capMs: 20, budget: 3 };

export async function referenceDataPlane(label: string, faults?: FaultInjector): Promise<ReferenceDataPlane> {
  const clients = makeClients({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoints: { dynamodb: dynamodbEndpoint() } });
  const table = `${uniquePrefix(label)}dataplane`;
  await ensureTable(clients.ddb, DATAPLANE_TABLE, table);
  return new ReferenceDataPlane(clients.doc, table, faults ? { faults } : {});
}

export function newTenant(): string {
  return `t${randomBytes(4).toString('hex')}`;
}

const OBJECT_KIND: Record<ResourceKind, string> = {
  replica: 'cluster_replica',
  dataflow: 'materialized_view',
  collection: 'source',
  ingestion: 'source',
  export: 'sink',
};

export function owner(tenant: string, kind: ResourceKind, objectId = `u${randomBytes(3).toString('hex')}`): ResourceOwner {
  return { tenant, objectId, objectKind: OBJECT_KIND[kind], objectName: `materialize.public.${objectId}` };
}

export const SPECS: { readonly [K in ResourceKind]: ResourceSpecs[K] } = {
  replica: { clusterId: 'u1', size: '25cc' },
  dataflow: { clusterId: 'u1', objectKind: 'materialized_view', inputs: ['u2', 'u3'] },
  collection: { objectKind: 'source', readPolicy: { kind: 'lag', lagMs: 1_000 } },
  ingestion: { clusterId: null, connector: { type: 'postgres', options: { PUBLICATION: 'mz_source' }, secretRefs: { PASSWORD: 'u9' } } },
  export: { clusterId: 'u1', from: 'u4', connector: { type: 'kafka', options: { TOPIC: 'out' }, secretRefs: {} } },
};

export interface FakeServer {
  readonly url: string;
  readonly requests: { method: string; path: string; headers: IncomingMessage['headers']; body: string }[];
  stop(): Promise<void>;
}

/** A tiny HTTP server answering with `handler`; records every request. `n` counts from 1. */
export async function fakeServer(handler: (res: ServerResponse, n: number, req: IncomingMessage) => void): Promise<FakeServer> {
  const requests: FakeServer['requests'] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
    handler(res, requests.length, req);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}
