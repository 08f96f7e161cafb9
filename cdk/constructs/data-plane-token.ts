import * as iam from 'aws-cdk-lib/aws-iam';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { DATAPLANE_TOKEN_SECRET_ARN_ENV } from '../../shared/config';
import type { DdlFunction } from './ddl-function';

/**
 * The one call a function makes to read the external data plane's bearer token
 * (shared/lambda/data-plane-token.ts: GetSecretValue of the secret's current version).
 */
export const DATA_PLANE_TOKEN_ACTIONS: readonly string[] = ['secretsmanager:GetSecretValue'];

/** Why a secret cannot serve as the data plane token secret, or undefined when it can. */
export function dataPlaneTokenSecretProblem(secret: secretsmanager.ISecret | undefined): string | undefined {
  if (secret === undefined || secret.secretFullArn !== undefined) return undefined;
  return 'dataPlaneTokenSecret must be known by its complete ARN (a Secret of this app, or Secret.fromSecretCompleteArn): with a partial ARN or a name, the grant would need a wildcard';
}

/**
 * The environment variable that points a function at the token secret (its ARN, never the token).
 */
export function dataPlaneTokenEnvironment(secret: secretsmanager.ISecret | undefined): Record<string, string> {
  return secret ? { [DATAPLANE_TOKEN_SECRET_ARN_ENV]: secret.secretArn } : {};
}

/**
 * Lets `fn` read the token secret: a policy `DataPlaneToken` under `scope` with GetSecretValue on
 * that secret alone (not `secret.grantRead`, which adds DescribeSecret), and decrypt with its key
 * when it has a customer managed one. The function waits for the policy, so that its first data
 * plane call does not meet an AccessDenied.
 */
export function grantDataPlaneToken(scope: Construct, fn: DdlFunction, secret: secretsmanager.ISecret): iam.Policy {
  const policy = new iam.Policy(scope, 'DataPlaneToken', {
    roles: [fn.role],
    statements: [new iam.PolicyStatement({ actions: [...DATA_PLANE_TOKEN_ACTIONS], resources: [secret.secretArn] })],
  });
  secret.encryptionKey?.grantDecrypt(fn.role);
  fn.function.node.addDependency(policy);
  return policy;
}
