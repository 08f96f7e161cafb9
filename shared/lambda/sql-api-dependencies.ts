/**
 * What the SQL API runs on in AWS, built once from a validated Config: the DynamoDB clients
 * (catalog, app passwords), SQS for the fast path of committed effects, the Secrets Manager secret
 * store and the connection prober, the latter two loaded on first use. The DDL Lambda
 * (functions/ddl-api) and the Postgres wire endpoint's Fargate task (functions/pgwire-server) both
 * build their `SqlApi` from this, so a statement runs on the same stores, prober, secret store and
 * fast-path sender through either door, and both get the grants of `grantSqlApi`
 * (cdk/constructs/ddl-api.ts).
 */
import type { Config } from '../config';
import { probeNetworkPolicy } from '../probes/addresses';
import { realProber } from '../probes/lazy';
import type { Prober } from '../probes/types';
import type { SecretStore } from '../secrets/store';
import { type DynamoClients, makeDynamoClients } from '../clients/dynamodb';
import { lazySqsClient, type SqsSender } from '../clients/lazy';
import { lazyAwsFingerprintKey, lazyAwsSecretStore } from './lazy-secrets';
import type { FingerprintKey } from '../secrets/fingerprint-key';

export interface SqlApiDependencies {
  /** SQS loads on the fast path's first send: a read never loads it. */
  readonly clients: DynamoClients & { readonly sqs: SqsSender };
  readonly secrets: SecretStore;
  readonly prober: Prober;
  /** The Idempotency-Key fingerprint's key (a Secrets Manager secret under the stack's prefix, read on the first keyed request). */
  readonly fingerprintKey: FingerprintKey;
}

export function awsSqlApiDependencies(cfg: Config): SqlApiDependencies {
  const clients = { region: cfg.region };
  return {
    clients: { ...makeDynamoClients(clients), sqs: lazySqsClient(clients) },
    secrets: lazyAwsSecretStore(cfg),
    // Where probes may connect: PROBE_NETWORKS (`-c probeNetworks=private`), as for the sweeper and the reporter.
    prober: realProber({ network: probeNetworkPolicy(cfg.probeNetworks) }),
    fingerprintKey: lazyAwsFingerprintKey(cfg),
  };
}
