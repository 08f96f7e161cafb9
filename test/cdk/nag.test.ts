/**
 * cdk-nag (AwsSolutions pack, cdk-nag 3: a policy validation plugin) over the whole app, for
 * both data plane variants: zero unacknowledged findings of any severity, and every
 * acknowledgement carries a reason. Bundling is off: the rules read the template only.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type App, Stack, Validations } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import {
  API_GATEWAY_CLOUDWATCH_ROLE_CONTEXT,
  CORS_ALLOW_ORIGINS_CONTEXT,
  DATA_PLANE_TOKEN_SECRET_ARN_CONTEXT,
  DATA_PLANE_URL_CONTEXT,
  DdlControlPlaneStack,
  LOCALSTACK_CONTEXT,
  PGWIRE_CONTEXT,
  PGWIRE_TLS_SECRET_ARN_CONTEXT,
} from '../../cdk/stack';
import { BUNDLING_STACKS, testApp } from './helpers';

interface Violation {
  readonly ruleName: string;
  readonly severity: string;
  readonly violatingConstructs: { readonly constructPath: string }[];
}
interface ValidationReport {
  readonly pluginReports: { readonly pluginName: string; readonly violations: Violation[] }[];
}

/** The Postgres wire endpoint on (ECS Fargate, an NLB, a VPC). */
const PGWIRE = { [PGWIRE_CONTEXT]: 'true', [PGWIRE_TLS_SECRET_ARN_CONTEXT]: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:ddl/pgwire-tls-AbCdEf' };

/**
 * Lets synth finish and write the report instead of throwing at the first error, so that an
 * assertion can show every finding.
 */
const REPORT_ONLY = { '@aws-cdk/core:failSynthOnValidationErrors': false };

/** Synthesizes with the AwsSolutions pack and returns every unacknowledged finding. */
function nagFindings(app: App): string[] {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  const assembly = app.synth();
  const report = JSON.parse(readFileSync(join(assembly.directory, 'validation-report.json'), 'utf8')) as ValidationReport;
  return report.pluginReports.flatMap((p) =>
    p.violations.flatMap((v) => v.violatingConstructs.map((c) => `${v.severity} ${v.ruleName} at ${c.constructPath}`)),
  );
}

/**
 * Every acknowledgement recorded in the tree: path, rule id, reason. CDK records an id without
 * a plugin namespace as `Annotation::<id>`; cdk-nag strips that prefix when it matches findings.
 */
function acknowledgements(root: IConstruct): { path: string; id: string; reason: string }[] {
  return root.node
    .findAll()
    .flatMap((c) =>
      c.node.metadata
        .filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
        .flatMap((m) => Object.entries(m.data as Record<string, string>).map(([id, reason]) => ({
            path: c.node.path,
            id: id.replace(/^annotation::/i, ''),
            reason,
          })),),
    );
}

describe.each([
  ['reference data plane (default)', {}],
  ['external data plane (context dataPlaneUrl)', { [DATA_PLANE_URL_CONTEXT]: 'https://dataplane.example.com' }],
  [
    'external data plane with a token secret (context dataPlaneTokenSecretArn)',
    {
      [DATA_PLANE_URL_CONTEXT]: 'https://dataplane.example.com',
      [DATA_PLANE_TOKEN_SECRET_ARN_CONTEXT]: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:ddl/dataplane-token-AbCdEf',
    },
  ],
  ['CORS (context corsAllowOrigins)', { [CORS_ALLOW_ORIGINS_CONTEXT]: 'https://console.example.com,http://localhost:5173' }],
  ['LocalStack mode (context localstack)', { [LOCALSTACK_CONTEXT]: 'true' }],
  ['with the account\'s API Gateway CloudWatch role (context apiGatewayCloudWatchRole)', { [API_GATEWAY_CLOUDWATCH_ROLE_CONTEXT]: 'true' }],
  ['with the Postgres wire endpoint (context pgwire, pgwireTlsSecretArn)', PGWIRE],
])('AwsSolutions checks, %s', (_variant, context) => {
  it('report no unacknowledged error or warning', () => {
    // Prepare
    const app = testApp({ ...context, ...REPORT_ONLY, [BUNDLING_STACKS]: [] });
    const stack = new DdlControlPlaneStack(app, 'DdlControlPlane');

    // Act
    const findings = nagFindings(app);

    // Assess
    expect(findings).toEqual([]);
    const annotations = Annotations.fromStack(stack);
    expect(annotations.findError('*', Match.stringLikeRegexp('AwsSolutions-.*'))).toEqual([]);
    expect(annotations.findWarning('*', Match.stringLikeRegexp('AwsSolutions-.*'))).toEqual([]);
  });
});

describe('acknowledgements', () => {
  it('are the documented ones, each with a specific reason', () => {
    // Prepare
    const app = testApp({ [BUNDLING_STACKS]: [] });
    new DdlControlPlaneStack(app, 'DdlControlPlane');

    // Act
    const acks = acknowledgements(app);
    const summary = [...new Set(acks.map((a) => `${a.id} @ ${a.path.replace(/Executor-\w+|StreamRouter\/Router|DdlApi\/(Ddl|Authorizer)|Sweeper\/Sweeper|StatusIngest\/(StatusIngest|Reporter)/, '<fn>')}`))];

    // Assess
    for (const ack of acks) expect(ack.reason.length, `${ack.id} at ${ack.path}`).toBeGreaterThan(60);
    expect(summary.sort()).toEqual(
      [
        'AwsSolutions-APIG3 @ DdlControlPlane/DdlApi/Api/DeploymentStage.v1',
        'AwsSolutions-APIG4 @ DdlControlPlane/DdlApi/Api/Default/api/health/GET',
        'AwsSolutions-APIG6 @ DdlControlPlane/DdlApi/Api/DeploymentStage.v1',
        'AwsSolutions-COG4 @ DdlControlPlane/DdlApi/Api/Default/api/health/GET',
        'AwsSolutions-COG4 @ DdlControlPlane/DdlApi/Api/Default/api/sql/POST',
        'AwsSolutions-IAM5[Resource::*] @ DdlControlPlane/<fn>/XRayWrite',
        'AwsSolutions-IAM5[Resource::*] @ DdlControlPlane/<fn>/Executor/XRayWrite',
        'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:ddl-control-plane/DdlControlPlane/*] @ DdlControlPlane/<fn>/SecretStore',
        'AwsSolutions-IAM5[Resource::*] @ DdlControlPlane/<fn>/SecretStoreList',
        'AwsSolutions-L1 @ DdlControlPlane/<fn>/Function',
        'AwsSolutions-L1 @ DdlControlPlane/<fn>/Executor/Function',
        'AwsSolutions-SQS3 @ DdlControlPlane/StreamRouter/OnFailure',
      ].sort(),
    );
  });

  it('with the Postgres wire endpoint, the stack\'s plus the endpoint\'s own, each with a specific reason', () => {
    // Prepare
    const key = (a: { path: string; id: string }) => `${a.id} @ ${a.path}`;
    const withPgwire = testApp({ ...PGWIRE, [BUNDLING_STACKS]: [] });
    new DdlControlPlaneStack(withPgwire, 'DdlControlPlane');
    const without = testApp({ [BUNDLING_STACKS]: [] });
    new DdlControlPlaneStack(without, 'DdlControlPlane');

    // Act
    const before = new Set(acknowledgements(without).map(key));
    // CDK's own constructs acknowledge CloudFormation-Validate rules (the flow log's, the VPC's AZ lookup): theirs, not ours.
    const added = acknowledgements(withPgwire).filter((a) => !before.has(key(a)) && a.id.startsWith('AwsSolutions-'));

    // Assess
    for (const ack of added) expect(ack.reason.length, key(ack)).toBeGreaterThan(60);
    expect([...new Set(added.map(key))].sort()).toEqual(
      [
        'AwsSolutions-EC23 @ DdlControlPlane/Pgwire/LoadBalancerSecurityGroup',
        'AwsSolutions-ECS2 @ DdlControlPlane/Pgwire/Task',
        'AwsSolutions-ECS4 @ DdlControlPlane/Pgwire/Cluster',
        'AwsSolutions-ELB2 @ DdlControlPlane/Pgwire/LoadBalancer',
        'AwsSolutions-IAM5[Resource::*] @ DdlControlPlane/Pgwire/ExecutionRole/DefaultPolicy',
        'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:ddl-control-plane/DdlControlPlane/*] @ DdlControlPlane/Pgwire/SecretStore',
      ].sort(),
    );
  });

  it('with CORS, are the same: cdk-nag recognises the preflight methods (no authorizer) as CORS', () => {
    // Prepare
    const key = (a: { path: string; id: string }) => `${a.id} @ ${a.path}`;
    const withCors = testApp({ [CORS_ALLOW_ORIGINS_CONTEXT]: 'https://console.example.com', [BUNDLING_STACKS]: [] });
    new DdlControlPlaneStack(withCors, 'DdlControlPlane');
    const withoutCors = testApp({ [BUNDLING_STACKS]: [] });
    new DdlControlPlaneStack(withoutCors, 'DdlControlPlane');

    // Act + Assess
    expect(acknowledgements(withCors).map(key).sort()).toEqual(acknowledgements(withoutCors).map(key).sort());
  });

  it('the harness sees findings when there are some (negative control)', () => {
    // Prepare
    const app = testApp(REPORT_ONLY);
    const stack = new Stack(app, 'Unsafe');
    new sqs.Queue(stack, 'PlainQueue', { encryption: sqs.QueueEncryption.UNENCRYPTED });

    // Act
    const findings = nagFindings(app);

    // Assess
    expect(findings).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/AwsSolutions-SQS3 at Unsafe\/PlainQueue/),
        expect.stringMatching(/AwsSolutions-SQS4 at Unsafe\/PlainQueue/),
      ]),
    );
  });
});
