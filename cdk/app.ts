import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { DdlControlPlaneStack } from './stack';

/**
 * `npx cdk synth` / `npx cdk deploy`. `-c dataPlaneUrl=https://...` points the executors at an
 * external data plane instead of deploying the reference one (with `-c dataPlaneTokenSecretArn=arn:...`,
 * the Secrets Manager secret holding its bearer token); `-c corsAllowOrigins=https://...`
 * lets browser pages on those origins call the API (CORS); `-c stackName=...` names the stack;
 * `-c apiGatewayCloudWatchRole=true` creates the account's API Gateway CloudWatch role;
 * `-c pgwire=true -c pgwireTlsSecretArn=arn:...` adds the Postgres wire endpoint (ECS Fargate behind
 * a Network Load Balancer; the secret holds its TLS certificate and key);
 * `-c localstack=true` is LocalStack mode (docs/deploy-localstack.md).
 */
const app = new App();
// `-c stackName=...` deploys a second, independent stack (every physical name derives from it).
const stackName: unknown = app.node.tryGetContext('stackName');
new DdlControlPlaneStack(app, stackName === undefined ? 'DdlControlPlane' : String(stackName));
// cdk-nag 3 is a policy validation plugin (cdk-nag 2 was an aspect): findings land in the
// assembly's validation report, and an unacknowledged error fails synth.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
