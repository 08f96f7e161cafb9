/**
 * What every SDK client of the control plane is built with. No SDK import here: each client kind
 * has its own module (dynamodb.ts, sqs.ts, streams.ts, secrets-manager.ts), so that a Lambda bundle
 * imports only the client packages its function calls (the `@aws-sdk/*` packages are external to
 * the bundles, and esbuild keeps every import of an external package, used or not).
 */
import type { CallRecorder } from './call-recorder';

export interface ClientOptions {
  readonly region: string;
  readonly endpoints?: { readonly dynamodb?: string; readonly sqs?: string };
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
  /** Records every call (the IAM sufficiency test); none when absent. */
  readonly recorder?: CallRecorder;
  /** Attempts per DynamoDB call, the first included (default 3, the SDK's standard retry mode). */
  readonly dynamoMaxAttempts?: number;
}

/**
 * The SDK client configuration for one service. Endpoints come from the SDK's standard
 * `AWS_ENDPOINT_URL*` variables unless `endpoint` is given (tests and the local runtime).
 */
export function clientConfig(o: ClientOptions, endpoint: string | undefined) {
  return { region: o.region, ...(o.credentials ? { credentials: o.credentials } : {}), maxAttempts: 3, ...(endpoint ? { endpoint } : {}) };
}
