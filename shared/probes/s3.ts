/**
 * AWS connections and S3 sources and sinks: HeadBucket (or ListBuckets) with the connection's own
 * static keys, never the process's credentials.
 */
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { HeadBucketCommand, ListBucketsCommand, S3Client } from '@aws-sdk/client-s3';
import { guardedLookup, resolveForProbe, type ProbeNetworkPolicy } from './addresses';
import { opt, type Options } from './options';
import { addressRefused, errorChain, fail, isTimeout, messageOf, ok, osError, timedOut } from './outcome';
import type { ConnectionProbeInput, ConnectorProbe, ProbeNamespace, ProbeResult } from './types';


export async function probeS3(conn: ConnectionProbeInput, timeoutMs: number, signal: AbortSignal, network: ProbeNetworkPolicy, namespace: ProbeNamespace, bucket: string | undefined): Promise<ProbeResult> {
  const o = conn.options;
  const accessKeyId = opt(o, 'ACCESS KEY ID') ?? conn.secrets['ACCESS KEY ID'];
  // Without static keys (ASSUME ROLE ARN, or nothing) there is nothing we may probe with: the
  // process's own credentials must never be sent to a user-chosen ENDPOINT.
  if (!accessKeyId) return ok(namespace);
  const secretAccessKey = conn.secrets['SECRET ACCESS KEY'] ?? '';
  const sessionToken = conn.secrets['SESSION TOKEN'] ?? opt(o, 'SESSION TOKEN');
  const endpoint = opt(o, 'ENDPOINT');
  let endpointHost: string | undefined;
  try {
    endpointHost = endpoint ? new URL(endpoint).hostname : undefined;
  } catch {
    endpointHost = undefined;
  }
  if (endpointHost !== undefined && (await resolveForProbe(endpointHost, network)).refused) return addressRefused(namespace, s3Target(conn));
  const lookup = network.addresses === 'any' ? undefined : guardedLookup(network);
  const client = new S3Client({
    region: opt(o, 'REGION') ?? 'us-east-1',
    ...(endpoint ? { endpoint, forcePathStyle: true } : {}),
    credentials: { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) },
    maxAttempts: 1,
    requestHandler: {
      connectionTimeout: timeoutMs,
      requestTimeout: timeoutMs,
      throwOnRequestTimeout: true,
      ...(lookup ? { httpAgent: new HttpAgent({ lookup }), httpsAgent: new HttpsAgent({ lookup }) } : {}),
    },
  });
  try {
    if (bucket) await client.send(new HeadBucketCommand({ Bucket: bucket }), { abortSignal: signal });
    else await client.send(new ListBucketsCommand({}), { abortSignal: signal });
    return ok(namespace);
  } catch (err) {
    return s3Failure(err, namespace, s3Target(conn), bucket);
  } finally {
    client.destroy();
  }
}

function s3Failure(err: unknown, namespace: ProbeNamespace, target: string, bucket: string | undefined): ProbeResult {
  if ([...errorChain(err)].some((x) => x.code === 'EPROBEADDRESS')) return addressRefused(namespace, target);
  const e = err as { name?: unknown; $metadata?: { httpStatusCode?: number } };
  const status = e?.$metadata?.httpStatusCode;
  const name = typeof e?.name === 'string' ? e.name : '';
  if (bucket && (status === 404 || name === 'NotFound' || name === 'NoSuchBucket')) {
    return fail(namespace, `bucket "${bucket}" does not exist`, { fatal: true, hint: 'Create the bucket, or check the BUCKET option and the REGION of the connection' });
  }
  if (status === 403 || ['Forbidden', 'AccessDenied', 'InvalidAccessKeyId', 'SignatureDoesNotMatch', 'InvalidClientTokenId', 'ExpiredToken'].includes(name)) {
    return fail(namespace, `access denied${name && name !== 'Forbidden' ? ` (${name})` : ''}${bucket ? ` to bucket "${bucket}"` : ''}`, {
      fatal: true,
      hint: 'Check ACCESS KEY ID, the SECRET ACCESS KEY secret and the permissions of the key',
    });
  }
  if (status === 301 || name === 'PermanentRedirect' || name === 'AuthorizationHeaderMalformed') {
    return fail(namespace, `bucket "${bucket ?? ''}" is not in this REGION`, { fatal: true, hint: 'Set REGION to the region of the bucket' });
  }
  // Before the timeout check: the SDK renames ECONNRESET and EPIPE to TimeoutError.
  const os = osError(err);
  if (os) return fail(namespace, `error connecting to ${target}: ${os}`);
  if (isTimeout(err) || name === 'AbortError' || name === 'RequestTimeout') return timedOut(namespace, target);
  if (status !== undefined) return fail(namespace, `unexpected HTTP ${status} from ${target}${name ? ` (${name})` : ''}`);
  return fail(namespace, `error connecting to ${target}: ${messageOf(err)}`);
}

/** `BUCKET 'b'` or `URI 's3://b/prefix'` on a source or sink. */
export function bucketOf(options: Options): string | undefined {
  const b = opt(options, 'BUCKET');
  if (b) return b;
  const uri = opt(options, 'URI');
  const m = uri ? /^s3:\/\/([^/]+)/i.exec(uri) : null;
  return m?.[1];
}

/** What a timeout message names: the endpoint's host, or the region's S3 endpoint. */
function s3Target(conn: ConnectionProbeInput): string {
  const endpoint = opt(conn.options, 'ENDPOINT');
  if (endpoint) {
    try {
      return new URL(endpoint).host;
    } catch {
      return endpoint;
    }
  }
  return `s3.${opt(conn.options, 'REGION') ?? 'us-east-1'}.amazonaws.com`;
}

/** An AWS connection's probe (its credentials, `aws:`), and an S3 source's or sink's (the bucket, `s3:`). */
export const AWS_PROBE: ConnectorProbe<'aws'> = {
  type: 'aws',
  connection: (conn, c) => probeS3(conn, c.timeoutMs, c.signal, c.network, 'aws', opt(conn.options, 'BUCKET')),
  source: (conn, c, options) => probeS3(conn, c.timeoutMs, c.signal, c.network, 's3', bucketOf(options) ?? opt(conn.options, 'BUCKET')),
  sink: (conn, c, options) => probeS3(conn, c.timeoutMs, c.signal, c.network, 's3', bucketOf(options) ?? opt(conn.options, 'BUCKET')),
  target: s3Target,
};
