/**
 * Per-operation latency of the SDK calls a pipeline makes (DynamoDB, DynamoDB Streams, SQS), taken
 * by a middleware on its clients: the breakdown that says whether time goes to the emulators.
 */
import type { Pipeline } from '../../local/pipeline';
import { now, summarize } from './stats';

type Handler = (args: unknown) => Promise<unknown>;
interface Stack {
  add(mw: (next: Handler, context: { commandName?: string }) => Handler, options: { step: 'initialize'; name: string }): void;
}

export interface OperationLatency {
  readonly operation: string;
  readonly calls: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly totalMs: number;
}

export class SdkLatency {
  private samples = new Map<string, number[]>();

  constructor(pipelines: readonly Pipeline[]) {
    for (const p of pipelines) this.attach(p);
  }

  attach(p: Pipeline): void {
    {
      for (const [service, client] of [['dynamodb', p.clients.ddb], ['streams', p.clients.streams], ['sqs', p.clients.sqs]] as const) {
        (client as unknown as { middlewareStack: Stack }).middlewareStack.add(
          (next, context) => async (args) => {
            const t0 = now();
            try {
              return await next(args);
            } finally {
              const op = `${service === 'dynamodb' ? '' : `${service}:`}${String(context.commandName ?? '?').replace(/Command$/, '')}`;
              const list = this.samples.get(op) ?? [];
              list.push(now() - t0);
              this.samples.set(op, list);
            }
          },
          { step: 'initialize', name: `benchSdkLatency-${service}` },
        );
      }
    }
  }

  /** The operations seen since the last call, busiest first; then starts over. */
  take(): OperationLatency[] {
    const out = [...this.samples].map(([operation, xs]) => {
      const s = summarize(xs);
      return { operation, calls: xs.length, p50Ms: Math.round(s.p50 * 10) / 10, p99Ms: Math.round(s.p99 * 10) / 10, totalMs: Math.round(xs.reduce((a, b) => a + b, 0)) };
    });
    this.samples = new Map();
    return out.sort((a, b) => b.totalMs - a.totalMs);
  }
}
