/**
 * docs/controller-contract.openapi.json is the contract other data planes implement, so it must
 * describe what our client really sends and our server really answers. This suite records real
 * traffic (HttpDataPlane → dataplane-server → ReferenceDataPlane) and validates every request and
 * response body against the document's schemas, and checks that the server and the schemas
 * accept and reject the same request bodies.
 */
import { readFileSync } from 'node:fs';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SPEC_SCHEMAS, startDataPlaneServer, type DataPlaneServer } from '../../local/dataplane-server';
import { RESOURCE_KINDS, type ResourceKind } from '../../shared/dataplane/contract';
import { FaultInjector } from '../../shared/dataplane/faults';
import { HttpDataPlane } from '../../shared/dataplane/http-client';
import type { ReferenceDataPlane } from '../../shared/dataplane/reference';
import { FAST_POLICY, newTenant, owner, referenceDataPlane, SPECS } from './fixtures';

const DOC_PATH = new URL('../../docs/controller-contract.openapi.json', import.meta.url);
const doc = JSON.parse(readFileSync(DOC_PATH, 'utf8'));
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

// The document is one schema resource, so its '#/components/...' references resolve as written.
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema({ $id: 'contract', components: doc.components });

function component(ref: string): ValidateFunction {
  expect(ref).toMatch(/^#\/components\/schemas\//);
  const v = ajv.getSchema(`contract${ref}`);
  if (!v) throw new Error(`no schema ${ref}`);
  return v;
}

function valid(ref: string, value: unknown): { ok: boolean; errors: string } {
  const v = component(ref);
  const ok = v(value) as boolean;
  return { ok, errors: ajv.errorsText(v.errors) };
}

function deref<T = any>(o: any): T {
  if (!o?.$ref) return o;
  const parts = (o.$ref as string).replace(/^#\//, '').split('/');
  return parts.reduce((acc: any, k) => acc?.[k], doc) as T;
}

function operations(): { path: string; method: string; op: any }[] {
  return Object.entries(doc.paths).flatMap(([path, item]: [string, any]) =>
    METHODS.filter((m) => item[m]).map((method) => ({ path, method, op: item[method] })),
  );
}

/** The operation a request went to: literal segments must match, `{param}` takes one segment. */
function operationFor(method: string, pathname: string) {
  const segments = pathname.split('/');
  const found = operations().filter(({ path, method: m }) => {
    const t = path.split('/');
    return m === method.toLowerCase() && t.length === segments.length && t.every((s, i) => s.startsWith('{') || s === segments[i]);
  });
  expect(found, `${method} ${pathname}`).toHaveLength(1);
  const { path, op } = found[0]!;
  const params = Object.fromEntries(path.split('/').flatMap((s, i) => (s.startsWith('{') ? [[s.slice(1, -1), decodeURIComponent(segments[i]!)]] : [])));
  return { path, op, params };
}

function bodySchemaRef(content: any): string {
  const schema = content?.['application/json']?.schema;
  expect(schema?.$ref, 'bodies are component schemas').toBeTypeOf('string');
  return schema.$ref;
}

describe('the document', () => {
  it('is OpenAPI 3.1 with the JSON Schema 2020-12 dialect', () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.jsonSchemaDialect).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(doc.info.title).toBeTruthy();
    expect(doc.info.version).toBeTruthy();
  });

  it('resolves every $ref', () => {
    const refs: string[] = [];
    (function walk(o: unknown): void {
      if (Array.isArray(o)) o.forEach(walk);
      else if (o && typeof o === 'object') for (const [k, v] of Object.entries(o)) k === '$ref' ? refs.push(v as string) : walk(v);
    })(doc);
    expect(refs.length).toBeGreaterThan(20);
    for (const r of refs) expect(deref({ $ref: r }), r).toBeDefined();
  });

  it('compiles every component schema', () => {
    for (const name of Object.keys(doc.components.schemas)) expect(() => component(`#/components/schemas/${name}`)).not.toThrow();
  });

  it('has the five operations of the contract plus health, each with a unique operationId', () => {
    const ids = operations().map((o) => o.op.operationId);
    expect(ids.sort()).toEqual(['drop', 'ensure', 'getHealth', 'observe', 'setReadPolicy']);
  });

  it('declares every path parameter', () => {
    for (const [path, item] of Object.entries(doc.paths) as [string, any][]) {
      const declared = (item.parameters ?? []).map((p: any) => deref(p).name).sort();
      expect(declared, path).toEqual([...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort());
    }
  });

  it('secures everything with a bearer token except health', () => {
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
    for (const { op } of operations()) expect(op.security, op.operationId).toEqual(op.operationId === 'getHealth' ? [] : undefined);
  });

  it('answers 200 and the contract error statuses on every write', () => {
    for (const { op } of operations().filter((o) => o.method !== 'get')) {
      expect(Object.keys(op.responses).sort(), op.operationId).toEqual(['200', '400', '401', '404', '408', '409', '413', '422', '429', '5XX'].sort());
      for (const [status, r] of Object.entries(op.responses) as [string, any][]) {
        expect(bodySchemaRef(deref(r).content)).toBe(status === '200' ? '#/components/schemas/ApplyResult' : '#/components/schemas/Error');
      }
    }
  });

  it('maps every resource kind to its spec schema, and the kind enum matches RESOURCE_KINDS', () => {
    expect(doc.components.schemas.ResourceKind.enum).toEqual(RESOURCE_KINDS);
    expect(Object.keys(doc.components.schemas.ResourceSpec['x-spec-by-kind'])).toEqual(RESOURCE_KINDS);
    for (const kind of RESOURCE_KINDS) expect(valid(doc.components.schemas.ResourceSpec['x-spec-by-kind'][kind], SPECS[kind]).ok, kind).toBe(true);
  });

  it('its spec schemas have exactly the fields the server accepts (the server is checked against the contract types at compile time)', () => {
    for (const kind of RESOURCE_KINDS) {
      const schema = deref({ $ref: doc.components.schemas.ResourceSpec['x-spec-by-kind'][kind] });
      const shape = SPEC_SCHEMAS[kind].shape as Record<string, { safeParse(v: unknown): { success: boolean } }>;
      expect(schema.additionalProperties, kind).toBe(false);
      expect(Object.keys(schema.properties).sort(), kind).toEqual(Object.keys(shape).sort());
      const required = Object.keys(shape).filter((k) => !shape[k]!.safeParse(undefined).success);
      expect([...schema.required].sort(), kind).toEqual(required.sort());
    }
  });

  it('its request examples are valid', () => {
    for (const { op } of operations()) {
      const content = op.requestBody?.content?.['application/json'];
      for (const [name, ex] of Object.entries(content?.examples ?? {}) as [string, any][]) {
        expect(valid(content.schema.$ref, ex.value), `${op.operationId} example ${name}`).toEqual({ ok: true, errors: 'No errors' });
      }
    }
  });
});

describe('real traffic conforms to the document', () => {
  interface Exchange {
    method: string;
    url: URL;
    request?: unknown;
    status: number;
    response: unknown;
  }
  const TOKEN = 'openapi-token';
  const faults = new FaultInjector();
  const exchanges: Exchange[] = [];
  let ref: ReferenceDataPlane;
  let server: DataPlaneServer;

  beforeAll(async () => {
    ref = await referenceDataPlane('openapi', faults);
    server = await startDataPlaneServer({ dataPlane: ref, port: 0, token: TOKEN });
    const realFetch = globalThis.fetch;
    const spy = vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
      const res = await realFetch(input, init);
      const text = await res.clone().text();
      exchanges.push({
        method: init?.method ?? 'GET',
        url: new URL(String(input)),
        ...(typeof init?.body === 'string' ? { request: JSON.parse(init.body) } : {}),
        status: res.status,
        response: JSON.parse(text),
      });
      return res;
    });

    // Act: every operation, its no-ops, and its errors, as the client sends them
    try {
      const dp = new HttpDataPlane(server.url, { token: TOKEN, policy: FAST_POLICY });
      const tenant = newTenant();
      for (const kind of RESOURCE_KINDS) await dp.ensure(kind, owner(tenant, kind, `${kind}-1`), 2, SPECS[kind]);
      await dp.ensure('replica', owner(tenant, 'replica', 'replica-1'), 1, SPECS.replica);
      await dp.drop('replica', owner(tenant, 'replica', 'replica-1'), 3);
      await dp.drop('dataflow', owner(tenant, 'dataflow', 'never-made'), 1);
      await dp.setReadPolicy(owner(tenant, 'collection', 'collection-1'), 2, { kind: 'lag', lagMs: 30_000 });
      await dp.setReadPolicy(owner(tenant, 'collection', 'missing'), 1, { kind: 'lag', lagMs: 1 }).catch(() => undefined);
      await dp.ensure('replica', owner(tenant, 'replica', 'bad'), 1, { clusterId: 'u1' } as never).catch(() => undefined);
      faults.failNext(1, 'transient');
      await dp.ensure('replica', owner(tenant, 'replica', 'retried'), 1, SPECS.replica);
      await new HttpDataPlane(server.url, { token: 'wrong', policy: FAST_POLICY }).observe(tenant).catch(() => undefined);
      await ref.putForeignResource(tenant, 'replica', 'hand-made', { size: 'xl' });
      await ref.setHealth(tenant, 'ingestion', 'ingestion-1', { healthy: false, error: 'kafka: broker unreachable' });
      await dp.observe(tenant);
      await fetch(`${server.url}/v1/health`);
    } finally {
      spy.mockRestore();
    }
  });
  afterAll(async () => {
    await server.stop();
  });

  it('covered every operation and the statuses the server produces', () => {
    const seen = new Set(exchanges.map((e) => `${operationFor(e.method, e.url.pathname).op.operationId} ${e.status}`));
    expect([...seen].sort()).toEqual(
      ['drop 200', 'ensure 200', 'ensure 400', 'ensure 503', 'getHealth 200', 'observe 200', 'observe 401', 'setReadPolicy 200', 'setReadPolicy 422'].sort(),
    );
  });

  it('every request body the client sent validates (except the one built invalid, which the schema rejects too)', () => {
    for (const e of exchanges.filter((x) => x.request !== undefined)) {
      const { op, params } = operationFor(e.method, e.url.pathname);
      const bodyRef = bodySchemaRef(op.requestBody.content);
      const result = valid(bodyRef, e.request);
      const spec = op.operationId === 'ensure' ? valid(doc.components.schemas.ResourceSpec['x-spec-by-kind'][params.kind!], (e.request as any).spec) : { ok: true, errors: '' };
      const expectValid = e.status !== 400;
      expect(result.ok && spec.ok, `${e.method} ${e.url.pathname}: ${result.errors} ${spec.errors}`).toBe(expectValid);
    }
  });

  it('every response validates against the schema declared for its status', () => {
    for (const e of exchanges) {
      const { op } = operationFor(e.method, e.url.pathname);
      const declared = op.responses[String(e.status)] ?? op.responses[`${String(e.status)[0]}XX`];
      expect(declared, `${op.operationId} declares ${e.status}`).toBeDefined();
      const result = valid(bodySchemaRef(deref(declared).content), e.response);
      expect(result.ok, `${op.operationId} ${e.status}: ${result.errors}`).toBe(true);
    }
  });

  it('error bodies say transient exactly for the transient statuses', () => {
    for (const e of exchanges.filter((x) => x.status >= 400)) {
      expect((e.response as any).error.transient, `${e.status}`).toBe(e.status === 408 || e.status === 429 || e.status >= 500);
    }
  });

  it('documents every field observe returns', () => {
    const observed = exchanges.find((e) => e.url.pathname.endsWith('/resources') && e.status === 200)!.response as { resources: Record<string, unknown>[] };
    const documented = Object.keys(doc.components.schemas.ObservedResource.properties);
    const returned = new Set(observed.resources.flatMap((r) => Object.keys(r)));
    expect(returned.size).toBeGreaterThan(10);
    for (const key of returned) expect(documented, key).toContain(key);
  });
});

describe('the server and the schemas agree on what a valid ensure body is', () => {
  let server: DataPlaneServer;
  beforeAll(async () => {
    server = await startDataPlaneServer({ dataPlane: await referenceDataPlane('openapi-agree'), port: 0 });
  });
  afterAll(async () => {
    await server.stop();
  });

  const tenant = newTenant();
  const o = (kind: ResourceKind) => owner(tenant, kind, `${kind}-x`);
  const cases: [string, ResourceKind, unknown][] = [
    ...RESOURCE_KINDS.map((k): [string, ResourceKind, unknown] => [`a valid ${k}`, k, { owner: o(k), generation: 1, spec: SPECS[k] }]),
    ['an index with its read policy', 'dataflow', { owner: o('dataflow'), generation: 1, spec: { ...SPECS.dataflow, objectKind: 'index', readPolicy: { kind: 'lag', lagMs: 500 } } }],
    ['generation 0', 'replica', { owner: o('replica'), generation: 0, spec: SPECS.replica }],
    ['no generation', 'replica', { owner: o('replica'), spec: SPECS.replica }],
    ['a negative generation', 'replica', { owner: o('replica'), generation: -1, spec: SPECS.replica }],
    ['a fractional generation', 'replica', { owner: o('replica'), generation: 1.5, spec: SPECS.replica }],
    ['a string generation', 'replica', { owner: o('replica'), generation: '1', spec: SPECS.replica }],
    ['no owner', 'replica', { generation: 1, spec: SPECS.replica }],
    ['an owner without a name', 'replica', { owner: { ...o('replica'), objectName: undefined }, generation: 1, spec: SPECS.replica }],
    ['an extra owner field', 'replica', { owner: { ...o('replica'), uid: 'x' }, generation: 1, spec: SPECS.replica }],
    ['an extra body field', 'replica', { owner: o('replica'), generation: 1, spec: SPECS.replica, force: true }],
    ['a collection spec as a replica', 'replica', { owner: o('replica'), generation: 1, spec: SPECS.collection }],
    ['an export spec as an ingestion', 'ingestion', { owner: o('ingestion'), generation: 1, spec: SPECS.export }],
    ['a collection without a read policy', 'collection', { owner: o('collection'), generation: 1, spec: { objectKind: 'source' } }],
    ['a read policy of another kind', 'collection', { owner: o('collection'), generation: 1, spec: { objectKind: 'source', readPolicy: { kind: 'time', lagMs: 1 } } }],
    ['a string lag', 'collection', { owner: o('collection'), generation: 1, spec: { objectKind: 'source', readPolicy: { kind: 'lag', lagMs: '1' } } }],
    ['an unknown connector type', 'ingestion', { owner: o('ingestion'), generation: 1, spec: { ...SPECS.ingestion, connector: { ...SPECS.ingestion.connector, type: 'mysql' } } }],
    ['a non-string option', 'export', { owner: o('export'), generation: 1, spec: { ...SPECS.export, connector: { ...SPECS.export.connector, options: { PARTITIONS: 3 } } } }],
    ['an unknown dataflow object kind', 'dataflow', { owner: o('dataflow'), generation: 1, spec: { ...SPECS.dataflow, objectKind: 'view' } }],
    ['an empty replica size', 'replica', { owner: o('replica'), generation: 1, spec: { ...SPECS.replica, size: '' } }],
    ['a null cluster for a replica', 'replica', { owner: o('replica'), generation: 1, spec: { ...SPECS.replica, clusterId: null } }],
  ];

  it.each(cases)('%s', async (_what, kind, body) => {
    // Act
    const res = await fetch(`${server.url}/v1/tenants/${tenant}/resources/${kind}/${kind}-x`, { method: 'PUT', body: JSON.stringify(body) });
    const schemaOk = valid('#/components/schemas/EnsureRequest', body).ok && valid(doc.components.schemas.ResourceSpec['x-spec-by-kind'][kind], (body as any).spec).ok;

    // Assess
    expect(res.status === 200, `server said ${res.status}: ${await res.text()}`).toBe(schemaOk);
  });
});
