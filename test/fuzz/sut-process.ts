/**
 * The system under test, in a child process of the fuzzer (see sandbox.ts): a pipeline without
 * workers (its HTTP API on a free port) plus the same SqlApi engine driven directly over IPC.
 * In its own process so that an input which hangs or kills the engine (an endless loop, a V8
 * fatal error, an out-of-memory) is counted as a failure instead of ending the fuzz run.
 */
import { startPipeline } from '../../local/pipeline';
import { SnapshotCachingStore, inProcessApi, preludeInProcess, runInProcess } from './harness';
import type { ParentMessage, ChildMessage, WireRequest } from './sandbox';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const send = (m: ChildMessage) => process.send!(m);
const fromWire = (r: WireRequest) => ({ body: typeof r.body === 'string' ? r.body : Buffer.from(r.body.hex, 'hex'), contentType: r.contentType, headers: r.headers });

const o = JSON.parse(process.env.FUZZ_SUT_OPTIONS ?? '{}') as { dynamodbEndpoint: string; sqsEndpoint: string; prefix: string };
const p = await startPipeline({ dynamodbEndpoint: o.dynamodbEndpoint, sqsEndpoint: o.sqsEndpoint, prefix: o.prefix, port: 0, workers: false, profile: 'fast' });
const store = new SnapshotCachingStore(p.clients.doc, p.config.catalogTable);
const api = inProcessApi(store, p.secrets);

process.on('message', (m: ParentMessage) => {
  void (async () => {
    switch (m.type) {
      case 'tenant': {
        const password = await p.passwords.create(m.tenant);
        await preludeInProcess(api, store, m.tenant);
        send({ type: 'tenant', id: m.id, password });
        return;
      }
      case 'run':
        send({ type: 'verdict', id: m.id, verdict: await runInProcess(api, store, m.tenant, fromWire(m.req)) });
        return;
      case 'invalidate':
        store.invalidate(m.tenant);
        return;
      case 'stop':
        await p.stop();
        process.exit(0);
    }
  })().catch((err: unknown) => send({ type: 'failed', id: 'id' in m ? m.id : -1, message: `${(err as Error)?.name}: ${(err as Error)?.message}` }));
});
process.on('disconnect', () => process.exit(0));
send({ type: 'ready', url: p.url! });
