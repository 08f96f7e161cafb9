/**
 * A scripted prober for tests of what consumes probe results (purification, the sweeper's
 * status transitions): answers come from a map keyed by the upstream's address, default ok.
 *
 *   prober.set('db.internal', { ok: false, namespace: 'postgres', error: 'db error: ...', fatal: true });
 *   prober.set('db.internal/mz_source', ...)   // only sources and sinks on that PUBLICATION / TOPIC
 */
import { namespaceOf } from './namespace';
import type { ConnectionProbeInput, ProbeResult, Prober, UpstreamReferences } from './types';

export type ProbeKind = 'connection' | 'source' | 'sink';

export interface ProbeCall {
  readonly kind: ProbeKind;
  readonly conn: ConnectionProbeInput;
  readonly options?: Readonly<Record<string, string>>;
  readonly references?: UpstreamReferences;
}

export class ScriptedProber implements Prober {
  private readonly answers = new Map<string, ProbeResult>();
  /** Every probe asked for, in order. */
  readonly calls: ProbeCall[] = [];

  set(key: string, result: ProbeResult): this {
    this.answers.set(key, result);
    return this;
  }

  delete(key: string): this {
    this.answers.delete(key);
    return this;
  }

  clear(): this {
    this.answers.clear();
    return this;
  }

  probeConnection(conn: ConnectionProbeInput): Promise<ProbeResult> {
    this.calls.push({ kind: 'connection', conn });
    return Promise.resolve(this.answer(conn));
  }

  probeSource(conn: ConnectionProbeInput, sourceOptions: Readonly<Record<string, string>>, references?: UpstreamReferences): Promise<ProbeResult> {
    this.calls.push({ kind: 'source', conn, options: sourceOptions, ...(references ? { references } : {}) });
    return Promise.resolve(this.answer(conn, sourceOptions.PUBLICATION ?? sourceOptions.TOPIC));
  }

  probeSink(conn: ConnectionProbeInput, sinkOptions: Readonly<Record<string, string>>): Promise<ProbeResult> {
    this.calls.push({ kind: 'sink', conn, options: sinkOptions });
    return Promise.resolve(this.answer(conn, sinkOptions.TOPIC));
  }

  private answer(conn: ConnectionProbeInput, object?: string): ProbeResult {
    for (const address of addressesOf(conn)) {
      const hit = (object !== undefined ? this.answers.get(`${address}/${object}`) : undefined) ?? this.answers.get(address);
      if (hit) return hit;
    }
    return { ok: true, namespace: namespaceOf(conn.type) };
  }
}

/** HOST, each broker (with and without its port), the full BROKERS list, URL, ENDPOINT. */
function addressesOf(conn: ConnectionProbeInput): string[] {
  const o = conn.options;
  const out: string[] = [];
  for (const k of ['HOST', 'URL', 'ENDPOINT']) if (o[k]) out.push(o[k]);
  for (const k of ['BROKER', 'BROKERS']) {
    const v = o[k];
    if (!v) continue;
    out.push(v);
    for (const b of v.split(',').map((s) => s.trim())) out.push(b, b.replace(/:\d+$/, ''));
  }
  return out;
}
