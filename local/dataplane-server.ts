/**
 * Serves the controller contract over HTTP (docs/controller-contract.openapi.json) by delegating
 * to any DataPlane — the reference one in practice. An operator can run the reference data plane
 * as a service of its own this way, and tests can point the executors at an HTTP data plane.
 *
 *   npx tsx local/dataplane-server.ts --table <name> [--create-table] [--port 6877]
 *
 * (DynamoDB endpoint and region from the SDK's standard AWS_* variables; DATAPLANE_TOKEN, when
 * set, is the bearer token callers must present.)
 */
import { Command } from 'commander';
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { makeClients } from '../shared/aws';
import { DATA_PLANE_CONNECTOR_TYPES } from '../shared/connectors';
import { RESOURCE_KINDS, type ConnectorSpec, type DataPlane, type ReadPolicy, type ResourceKind, type ResourceOwner, type ResourceSpecs } from '../shared/dataplane/contract';
import { isTransientStatus } from '../shared/dataplane/http-client';
import { ReferenceDataPlane } from '../shared/dataplane/reference';
import { DATAPLANE_TABLE } from '../shared/definitions';
import { DataPlaneError } from '../shared/errors';
import { ensureTable } from './resources';

export interface DataPlaneServerOptions {
  readonly dataPlane: DataPlane;
  /** 0 picks a free port. */
  readonly port: number;
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** When set, every route but /v1/health requires `Authorization: Bearer <token>`. */
  readonly token?: string;
  /** Where unexpected errors (answered with a bare 500) are reported. @default console.error */
  readonly onError?: (err: unknown) => void;
}

export interface DataPlaneServer {
  readonly url: string;
  stop(): Promise<void>;
}

/** Far above any real request (a spec is a few hundred bytes); stops a runaway body early. */
const MAX_BODY_BYTES = 1024 * 1024;

// Request bodies reject unknown fields, so a typo is a 400 instead of a silently ignored setting.
const nonEmpty = z.string().min(1);
const generation = z.int().nonnegative();
const owner = z.strictObject({ tenant: nonEmpty, objectId: nonEmpty, objectKind: nonEmpty, objectName: nonEmpty });
const readPolicy = z.strictObject({ kind: z.literal('lag'), lagMs: z.int().nonnegative() });
const connector = z.strictObject({
  // The contract's connector types, from their descriptors (shared/connectors).
  type: z.enum(DATA_PLANE_CONNECTOR_TYPES),
  options: z.record(z.string(), z.string()),
  secretRefs: z.record(z.string(), z.string()),
});
/** Per kind, the spec `ensure` accepts; the OpenAPI document's `x-spec-by-kind` schemas must agree (test/dataplane/openapi.test.ts). */
export const SPEC_SCHEMAS = {
  replica: z.strictObject({
    clusterId: nonEmpty,
    size: nonEmpty,
    schedule: z.strictObject({ kind: z.literal('on_refresh'), hydrationTimeEstimateMs: z.int().nonnegative() }).optional(),
  }),
  dataflow: z.strictObject({
    clusterId: nonEmpty,
    objectKind: z.enum(['materialized_view', 'index']),
    inputs: z.array(z.string()).readonly(),
    readPolicy: readPolicy.optional(),
    refresh: z
      .strictObject({
        ats: z.array(z.int().nonnegative()).readonly(),
        everies: z.array(z.strictObject({ intervalMs: z.int().positive(), alignedToMs: z.int().nonnegative() })).readonly(),
      })
      .optional(),
    replaces: nonEmpty.optional(),
  }),
  collection: z.strictObject({ objectKind: nonEmpty, readPolicy }),
  ingestion: z.strictObject({ clusterId: z.nullable(nonEmpty), connector }),
  export: z.strictObject({ clusterId: z.nullable(nonEmpty), from: nonEmpty, connector }),
} satisfies Record<ResourceKind, z.ZodType>;

// Compile-time guard: a field added to (or removed from) the contract's types fails to compile
// here until these schemas — and with them the OpenAPI document — follow.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? ([keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? true : false) : false) : false) : false;
const schemasMatchContract: { [K in ResourceKind]: Same<ResourceSpecs[K], z.infer<(typeof SPEC_SCHEMAS)[K]>> } & {
  owner: Same<ResourceOwner, z.infer<typeof owner>>;
  readPolicy: Same<ReadPolicy, z.infer<typeof readPolicy>>;
  connector: Same<ConnectorSpec, z.infer<typeof connector>>;
} = { replica: true, dataflow: true, collection: true, ingestion: true, export: true, owner: true, readPolicy: true, connector: true };
void schemasMatchContract;

const dropBody = z.strictObject({ owner, generation });
const readPolicyBody = z.strictObject({ owner, generation, policy: readPolicy });

/** An answer other than 200, with the message the caller sees; its status alone classes it (isTransientStatus). */
class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export async function startDataPlaneServer(o: DataPlaneServerOptions): Promise<DataPlaneServer> {
  const host = o.host ?? '127.0.0.1';
  const onError = o.onError ?? ((err: unknown) => console.error('data plane server: unexpected error', err));
  const expected = o.token ? digest(`Bearer ${o.token}`) : undefined;
  const server = createServer((req, res) => {
    route(o.dataPlane, expected, req)
      .then((body) => send(res, 200, body))
      .catch((err: unknown) => {
        if (err instanceof HttpError) return send(res, err.status, errorBody(err.message, isTransientStatus(err.status)), err.headers);
        // The contract's classification: transient → 503 (retry), terminal → 422 (mark failed).
        if (err instanceof DataPlaneError) return send(res, err.transient ? 503 : 422, errorBody(err.message, err.transient));
        onError(err);
        // 5xx details never leak; 500 is transient, as any unexpected failure may be.
        send(res, 500, errorBody('internal error', true));
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function route(dp: DataPlane, expected: Buffer | undefined, req: IncomingMessage): Promise<unknown> {
  const method = req.method ?? 'GET';
  const path = new URL(req.url ?? '/', 'http://local').pathname;
  let segments: string[];
  try {
    segments = path.split('/').slice(1).map(decodeURIComponent);
  } catch {
    throw new HttpError(400, `malformed percent-encoding in path ${path}`);
  }
  if (segments[0] !== 'v1') throw new HttpError(404, `no route for ${method} ${path}`);
  if (segments.length === 2 && segments[1] === 'health') {
    allow(method, 'GET');
    return { status: 'ok' };
  }
  if (expected) authorize(expected, req.headers.authorization);
  const [, tenants, tenant, resources, kind, resourceId, action, ...rest] = segments;
  if (tenants !== 'tenants' || !tenant || resources !== 'resources' || rest.length > 0) throw new HttpError(404, `no route for ${method} ${path}`);

  if (kind === undefined) {
    allow(method, 'GET');
    return { resources: await dp.observe(tenant) };
  }
  if (!resourceId) throw new HttpError(404, `no route for ${method} ${path}`);
  if (!isKind(kind)) throw new HttpError(400, `unknown resource kind "${kind}"; expected one of ${RESOURCE_KINDS.join(', ')}`);

  if (action === undefined) {
    allow(method, 'PUT');
    const body = parse(z.strictObject({ owner, generation, spec: SPEC_SCHEMAS[kind] }), await readJson(req), `ensure ${kind}`);
    matchesPath(body.owner, tenant, resourceId);
    return dp.ensure(kind, body.owner, body.generation, body.spec);
  }
  if (action === 'drop') {
    allow(method, 'POST');
    const body = parse(dropBody, await readJson(req), `drop ${kind}`);
    matchesPath(body.owner, tenant, resourceId);
    return dp.drop(kind, body.owner, body.generation);
  }
  if (action === 'read-policy' && kind === 'collection') {
    allow(method, 'PUT');
    const body = parse(readPolicyBody, await readJson(req), 'set read policy');
    matchesPath(body.owner, tenant, resourceId);
    return dp.setReadPolicy(body.owner, body.generation, body.policy);
  }
  throw new HttpError(404, `no route for ${method} ${path}${action === 'read-policy' ? ' (read policies apply to collections only)' : ''}`);
}

function isKind(kind: string): kind is ResourceKind {
  return (RESOURCE_KINDS as readonly string[]).includes(kind);
}

function allow(method: string, expected: string): void {
  if (method !== expected) throw new HttpError(405, `method ${method} not allowed here; use ${expected}`, { allow: expected });
}

/** Compares digests, not the strings: equal length, constant time. */
function authorize(expected: Buffer, header: string | undefined): void {
  if (header && timingSafeEqual(digest(header), expected)) return;
  throw new HttpError(401, header ? 'invalid bearer token' : 'missing bearer token (Authorization: Bearer <token>)', { 'www-authenticate': 'Bearer' });
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

/** The path names the resource; the owner in the body must name the same one. */
function matchesPath(o: { tenant: string; objectId: string }, tenant: string, resourceId: string): void {
  if (o.tenant !== tenant) throw new HttpError(400, `owner.tenant "${o.tenant}" does not match the path's tenant "${tenant}"`);
  if (o.objectId !== resourceId) throw new HttpError(400, `owner.objectId "${o.objectId}" does not match the path's resource id "${resourceId}"`);
}

function parse<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const problems = r.error.issues
    .map((i) => `${i.path.length ? i.path.join('.') : '(body)'}: ${i.code === 'invalid_type' && i.message.endsWith('received undefined') ? 'required' : i.message}`)
    .join('; ');
  throw new HttpError(400, `invalid ${what} request: ${problems}`);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, `request body larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text) throw new HttpError(400, 'request body is empty; expected JSON');
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new HttpError(400, `request body is not valid JSON: ${(err as Error).message}`);
  }
}

function errorBody(message: string, transient: boolean) {
  return { error: { message, transient } };
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** `tsx local/dataplane-server.ts`: the reference data plane as a service of its own. */
async function main(): Promise<void> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const opts = new Command()
    .name('dataplane-server')
    .description('Serve the reference data plane over HTTP (the controller contract)')
    .requiredOption('--table <name>', 'the reference data plane table (also DATAPLANE_TABLE)', process.env.DATAPLANE_TABLE)
    .option('--create-table', 'create the table first if it does not exist')
    .option('--port <port>', 'HTTP port (also PORT)', process.env.PORT ?? '6877')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .parse()
    .opts<{ table: string; createTable?: boolean; port: string; host: string }>();
  const port = Number(opts.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid port ${opts.port}`);
  const clients = makeClients({ region: process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? 'us-east-1' });
  if (opts.createTable) await ensureTable(clients.ddb, DATAPLANE_TABLE, opts.table);
  const token = process.env.DATAPLANE_TOKEN || undefined;
  const server = await startDataPlaneServer({ dataPlane: new ReferenceDataPlane(clients.doc, opts.table), port, host: opts.host, ...(token ? { token } : {}) });
  console.log(`reference data plane (table ${opts.table}) on ${server.url}${token ? ' (bearer token required)' : ' (no token: anyone who can reach it can use it)'}`);
  const shutdown = () => void server.stop().then(() => process.exit(0));
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    console.error((err as Error).message);
    process.exit(1);
  });
}
