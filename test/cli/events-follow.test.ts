/**
 * `ddlctl events --follow` against a scripted fetch: Ctrl-C during a poll ends it quietly; a
 * server that stops answering for a while (a restart, a busy machine) is polled again without a
 * word; one that stays unreachable is reported, with the same message as any other command.
 */
import { describe, expect, it } from 'vitest';
import { SqlClient, UnreachableError } from '../../cli/client';
import { printEvents } from '../../cli/commands/events';

const conn = { url: 'http://127.0.0.1:9', password: 'pw', passwordFrom: 'a test' };

const event = (seq: number) => ({
  seq,
  id: `e${seq}`,
  source: 'ddl-control-plane',
  detailType: 'Connector Status Changed',
  time: '2026-12-02T00:00:00.000Z',
  detail: { event_id: `e${seq}`, tenant: 't', object_id: 'u1', object_name: 'shop', object_kind: 'source', from: 'starting', to: 'running', error: null, hints: [] },
});

const page = (seqs: number[], next: number) => new Response(JSON.stringify({ events: seqs.map(event), next }), { status: 200 });
const refused = () => Promise.reject(new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } }));

/** A fetch that answers from `script` in order (the last entry repeats), recording each `after` asked for. */
function scripted(script: ((init: RequestInit) => Promise<Response>)[]) {
  const asked: number[] = [];
  const impl = (async (url: string, init: RequestInit) => {
    asked.push(Number(new URL(url).searchParams.get('after')));
    return script[Math.min(asked.length - 1, script.length - 1)]!(init);
  }) as unknown as typeof fetch;
  return { client: new SqlClient(conn, impl), asked };
}

describe('ddlctl events --follow', () => {
  it('ends quietly when Ctrl-C aborts a poll on its way, with what it printed', async () => {
    const stop = new AbortController();
    const lines: string[] = [];
    const { client } = scripted([
      async () => page([1, 2], 2),
      // The next poll hangs until it is aborted, as fetch does.
      (init) =>
        new Promise((_, reject) => {
          init.signal!.addEventListener('abort', () => reject(new DOMException('This operation was aborted', 'AbortError')));
          stop.abort();
        }),
    ]);
    await expect(printEvents(client, { follow: true, json: false, after: 0, interval: 0.01, signal: stop.signal, print: (l) => lines.push(l) })).resolves.toBe(2);
    expect(lines).toHaveLength(2);
  });

  it('polls a server that stopped answering again, quietly, and goes on from where it was', async () => {
    const stop = new AbortController();
    const lines: string[] = [];
    const { client, asked } = scripted([
      async () => page([1], 1),
      refused,
      refused,
      async () => page([2], 2),
      async () => {
        stop.abort();
        return page([], 2);
      },
    ]);
    await expect(printEvents(client, { follow: true, json: true, after: 0, interval: 0.01, signal: stop.signal, print: (l) => lines.push(l) })).resolves.toBe(2);
    expect(lines.map((l) => (JSON.parse(l) as { seq: number }).seq)).toEqual([1, 2]);
    // Nothing skipped, nothing printed twice: each retry asks after the last event printed.
    expect(asked).toEqual([0, 1, 1, 1, 2]);
  });

  it('reports a server that stays unreachable, once the grace period is over', async () => {
    const { client, asked } = scripted([refused]);
    const run = printEvents(client, { follow: true, json: false, after: 0, interval: 0.01, giveUpAfterMs: 200, print: () => undefined });
    await expect(run).rejects.toThrow(UnreachableError);
    await expect(run).rejects.toThrow(/cannot reach http:\/\/127\.0\.0\.1:9: ECONNREFUSED/);
    expect(asked.length).toBeGreaterThan(1);
  });

  it('without --follow, reports an unreachable server at once', async () => {
    const { client, asked } = scripted([refused]);
    await expect(printEvents(client, { follow: false, json: false, after: 0, interval: 1, print: () => undefined })).rejects.toThrow(/cannot reach/);
    expect(asked).toEqual([0]);
  });

  it('does not retry an answer it refuses (a wrong password)', async () => {
    const { client, asked } = scripted([async () => new Response('{}', { status: 401 })]);
    await expect(printEvents(client, { follow: true, json: false, after: 0, interval: 0.01, print: () => undefined })).rejects.toThrow(/refused the app password/);
    expect(asked).toEqual([0]);
  });
});
