/**
 * The AWS connection probe against the S3 API that the SQS emulator (fauxqs) also serves,
 * path-style on the same endpoint the global setup started.
 */
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { LOCAL_PROBE_POLICY } from '../../shared/probes/addresses';
import { RealProber } from '../../shared/probes/real';
import type { ConnectionProbeInput } from '../../shared/probes/types';
import { refusedPort, silentServer, timed } from './net';

const TIMEOUT_MS = 1_000;
const prober = new RealProber({ timeoutMs: TIMEOUT_MS, network: LOCAL_PROBE_POLICY });
const endpoint = inject('sqsEndpoint');
const bucket = `probe-${randomUUID().slice(0, 8)}`;
const SECRET_KEY = 'wJalrXUtnFEMI-probe-secret';

let s3: S3Client;

beforeAll(async () => {
  s3 = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
});

afterAll(() => s3?.destroy());

function aws(options: Record<string, string> = {}): ConnectionProbeInput {
  return {
    type: 'aws',
    options: { REGION: 'us-east-1', ENDPOINT: endpoint, 'ACCESS KEY ID': 'AKIAPROBE', ...options },
    secrets: { 'SECRET ACCESS KEY': SECRET_KEY },
  };
}

describe('aws (S3) probe', () => {
  it('is ok when the endpoint answers ListBuckets', async () => {
    expect(await prober.probeConnection(aws())).toEqual({ ok: true, namespace: 'aws' });
  });

  it('is ok with a BUCKET that exists', async () => {
    expect(await prober.probeConnection(aws({ BUCKET: bucket }))).toEqual({ ok: true, namespace: 'aws' });
  });

  it('fails fatally on a BUCKET that does not exist', async () => {
    const r = await prober.probeConnection(aws({ BUCKET: 'no-such-bucket-here' }));
    expect(r).toMatchObject({ ok: false, namespace: 'aws', fatal: true, error: 'bucket "no-such-bucket-here" does not exist' });
    expect(r.hint).toMatch(/BUCKET/);
  });

  it('checks the bucket of a sink or source URI under the s3 namespace', async () => {
    expect(await prober.probeSink(aws(), { URI: `s3://${bucket}/exports/` })).toEqual({ ok: true, namespace: 's3' });
    expect(await prober.probeSink(aws(), { URI: 's3://missing-bucket/exports/' })).toMatchObject({ ok: false, namespace: 's3', fatal: true, error: 'bucket "missing-bucket" does not exist' });
    expect(await prober.probeSource(aws(), { BUCKET: 'missing-bucket' })).toMatchObject({ ok: false, namespace: 's3', fatal: true });
  });

  it('reports a refused endpoint as transient, at once, without the secret key', async () => {
    // Prepare
    const port = await refusedPort();
    // Act
    const { result, ms } = await timed(() => prober.probeConnection(aws({ ENDPOINT: `http://127.0.0.1:${port}` })));
    // Assess
    expect(result).toEqual({ ok: false, namespace: 'aws', error: `error connecting to 127.0.0.1:${port}: Connection refused (os error 111)`, fatal: false });
    expect(ms).toBeLessThan(TIMEOUT_MS);
    expect(JSON.stringify(result)).not.toContain(SECRET_KEY);
  });

  it('times out on an endpoint that never answers, within timeoutMs plus a second', async () => {
    const silent = await silentServer();
    try {
      const { result, ms } = await timed(() => prober.probeConnection(aws({ ENDPOINT: `http://127.0.0.1:${silent.port}`, BUCKET: bucket })));
      expect(result).toEqual({ ok: false, namespace: 'aws', error: `timed out connecting to 127.0.0.1:${silent.port}`, fatal: false });
      expect(ms).toBeLessThan(TIMEOUT_MS + 1_000);
    } finally {
      await silent.close();
    }
  });

  it('does not probe without static keys (never sends ambient credentials to a chosen endpoint)', async () => {
    const port = await refusedPort();
    const r = await prober.probeConnection({ type: 'aws', options: { REGION: 'us-east-1', ENDPOINT: `http://127.0.0.1:${port}`, 'ASSUME ROLE ARN': 'arn:aws:iam::1:role/r' }, secrets: {} });
    expect(r).toEqual({ ok: true, namespace: 'aws' });
  });
});
