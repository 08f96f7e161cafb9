import '../../shared/lambda/stack-traces';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { makeDynamoClients } from '../../shared/clients/dynamodb';
import { makeSqsClient } from '../../shared/clients/sqs';
import { makeLogger } from '../../shared/lambda/logger';
import { loadReporterConfig, referenceReporterHandler } from '../../shared/lambda/reference-reporter';
import { probeNetworkPolicy } from '../../shared/probes/addresses';
import { realProber } from '../../shared/probes/lazy';
import { AwsSecretStore } from '../../shared/secrets/aws-store';

const config = loadReporterConfig(process.env);
const clients = { region: config.region };
export const handler = referenceReporterHandler(config, { ...makeDynamoClients(clients), sqs: makeSqsClient(clients) }, makeLogger('reference-reporter'), {
  prober: realProber({ network: probeNetworkPolicy(config.probeNetworks) }),
  secrets: new AwsSecretStore(new SecretsManagerClient(clients), config.secretNamePrefix),
});
