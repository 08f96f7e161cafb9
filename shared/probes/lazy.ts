/**
 * A prober that loads its clients (pg, kafkajs, the S3 SDK) on first use: most DDL requests
 * never probe, and a Lambda's cold start should not pay for those libraries.
 */
import type { RealProberOptions } from './real';
import type { ConnectionProbeInput, Prober, ProbeResult } from './types';

export function lazyProber(load: () => Promise<Prober>): Prober {
  let loading: Promise<Prober> | undefined;
  const get = () => (loading ??= load());
  return {
    probeConnection: async (conn: ConnectionProbeInput): Promise<ProbeResult> => (await get()).probeConnection(conn),
    probeSource: async (conn, options, references) => (await get()).probeSource(conn, options, references),
    probeSink: async (conn, options) => (await get()).probeSink(conn, options),
  };
}

/** The real prober, loaded lazily. */
export function realProber(options: RealProberOptions = {}): Prober {
  return lazyProber(async () => new (await import('./real')).RealProber(options));
}
