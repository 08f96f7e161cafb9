/**
 * What a first deployment needs: two stacks side by side in one account and region (no shared
 * physical name, no role reaching the other's resources), the opt-in API Gateway CloudWatch role,
 * and LocalStack mode, whose template may only use the resource types LocalStack's free image can
 * create (test/cdk/fixtures/localstack-free-resource-types.json, with the date it was checked).
 * Bundling is off: these read the templates only.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Duration } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { AUTHORIZER_LEADING_KEYS, GATEWAY_ERROR_BODIES } from '../../cdk/constructs/ddl-api';
import { REPO_ROOT } from '../../cdk/constructs/ddl-function';
import { API_GATEWAY_CLOUDWATCH_ROLE_CONTEXT, DdlControlPlaneStack, LOCALSTACK_CONTEXT } from '../../cdk/stack';
import { MAX_BODY_BYTES, readRequest } from '../../shared/api/sql-api';
import { CONTROLLERS, deploymentNames, ENV } from '../../shared/definitions';
import type { RequestError } from '../../shared/errors';
import { BUNDLING_STACKS, captureError, identityStatements, logicalId, statementsOfRole, testApp, toArray } from './helpers';

/** Actions with no resource-level permissions: AWS requires `Resource: "*"` for them, in every stack alike. */
const UNSCOPABLE_ACTIONS = new Set(['xray:PutTraceSegments', 'xray:PutTelemetryRecords', 'secretsmanager:ListSecrets']);

type Resources = Record<string, { Type: string; Properties?: Record<string, unknown> }>;

/** Properties that name a resource physically (unique per account and region, or shown as its name). */
const PHYSICAL_NAME_PROPERTIES = ['QueueName', 'TableName', 'LogGroupName', 'Name', 'AlarmName', 'DashboardName', 'TopicName', 'FunctionName', 'RoleName', 'RuleName'];

/** Every physical name a template sets, with what it names; plus the names its functions' environments carry. */
function physicalNames(template: Template): Map<string, string> {
  const names = new Map<string, string>();
  for (const [id, r] of Object.entries(template.toJSON().Resources as Resources)) {
    for (const p of PHYSICAL_NAME_PROPERTIES) {
      const v = r.Properties?.[p];
      if (typeof v === 'string' && r.Type !== 'AWS::IAM::Policy') names.set(v, `${r.Type} ${id}.${p}`);
    }
    if (r.Type === 'AWS::Lambda::Function') {
      const env = ((r.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {}) as Record<string, unknown>;
      for (const key of [ENV.secretNamePrefix, 'POWERTOOLS_METRICS_NAMESPACE']) {
        if (typeof env[key] === 'string') names.set(env[key] as string, `${key} of ${id}`);
      }
    }
  }
  return names;
}

/**
 * A resource or pattern as an ARN-like string, in one account and region: a reference to a
 * resource with a physical name becomes that name's ARN, one without becomes CloudFormation's
 * generated name (`<stack>-<logical id>-<suffix>`), pseudo parameters stay symbolic.
 */
function render(value: unknown, stackName: string, resources: Resources): string {
  if (typeof value === 'string') return value;
  const v = value as Record<string, unknown>;
  const named = (id: string): string => {
    const r = resources[id];
    if (r?.Type === 'AWS::SQS::Queue' && typeof r.Properties?.QueueName === 'string') return `arn:aws:sqs:REGION:ACCOUNT:${r.Properties.QueueName}`;
    return `${stackName}-${id}-GENERATED`;
  };
  if (typeof v.Ref === 'string') return v.Ref.startsWith('AWS::') ? v.Ref.replace('AWS::', '').toUpperCase() : named(v.Ref);
  if (Array.isArray(v['Fn::GetAtt'])) return named((v['Fn::GetAtt'] as string[])[0]!);
  if (Array.isArray(v['Fn::Join'])) {
    const [sep, parts] = v['Fn::Join'] as [string, unknown[]];
    return parts.map((p) => render(p, stackName, resources)).join(sep);
  }
  return JSON.stringify(value);
}

function globMatches(pattern: string, subject: string): boolean {
  const re = new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
  return re.test(subject);
}

/** What each stack owns, as ARN-like strings: its resources, and a secret under its prefix. */
function ownedResources(stack: DdlControlPlaneStack, template: Template): string[] {
  const resources = template.toJSON().Resources as Resources;
  const owned = Object.keys(resources).map((id) => render({ Ref: id }, stack.stackName, resources));
  owned.push(`arn:PARTITION:secretsmanager:REGION:ACCOUNTID:secret:${deploymentNames(stack.stackName).secretNamePrefix}/tenant1/secret1-AbCdEf`);
  return owned;
}

/** Every scoped IAM statement resource of a stack, rendered. */
function grantedPatterns(stack: DdlControlPlaneStack, template: Template): { policy: string; actions: string[]; pattern: string }[] {
  const resources = template.toJSON().Resources as Resources;
  return identityStatements(template)
    .filter((s) => s.statement.Effect === 'Allow')
    .flatMap((s) => {
      const unscopable = s.actions.every((a) => UNSCOPABLE_ACTIONS.has(a));
      return s.resources.filter((r) => !(unscopable && r === '*')).map((r) => ({ policy: s.policy, actions: s.actions, pattern: render(r, stack.stackName, resources) }));
    });
}

describe('two stacks in one account and region', () => {
  const app = testApp({ [BUNDLING_STACKS]: [] });
  const stacks = [new DdlControlPlaneStack(app, 'DdlControlPlane'), new DdlControlPlaneStack(app, 'DdlControlPlaneStaging')] as const;
  const templates = stacks.map((s) => Template.fromStack(s));

  it('share no physical name: queues, secret prefix, metrics namespace, API name, log groups', () => {
    // Act
    const [a, b] = templates.map(physicalNames) as [Map<string, string>, Map<string, string>];

    // Assess: each stack names its queues, secrets, metrics and API after itself; none of them twice.
    for (const [stack, names] of [[stacks[0], a], [stacks[1], b]] as const) {
      const own = deploymentNames(stack.stackName);
      expect([...names.keys()]).toEqual(
        expect.arrayContaining([
          ...CONTROLLERS.flatMap((c) => [own.queueName(c), own.dlqName(c)]),
          own.secretNamePrefix,
          own.metricsNamespace,
          own.apiName,
        ]),
      );
    }
    const shared = [...a.keys()].filter((n) => b.has(n)).map((n) => `${n} (${a.get(n)} / ${b.get(n)})`);
    expect(shared).toEqual([]);
    // Log groups and tables keep CloudFormation's generated names (stack name included).
    for (const t of templates) {
      for (const r of Object.values(t.findResources('AWS::Logs::LogGroup'))) expect(r.Properties?.LogGroupName).toBeUndefined();
      for (const r of Object.values(t.findResources('AWS::DynamoDB::GlobalTable'))) expect(r.Properties?.TableName).toBeUndefined();
    }
  });

  it('have no IAM statement that matches a resource of the other stack', () => {
    // Act
    const crossings = [
      [0, 1],
      [1, 0],
    ].flatMap(([i, j]) => {
      const others = ownedResources(stacks[j!]!, templates[j!]!);
      return grantedPatterns(stacks[i!]!, templates[i!]!).flatMap((g) =>
        others.filter((o) => globMatches(g.pattern, o)).map((o) => `${stacks[i!]!.stackName} ${g.policy} [${g.actions.join(', ')}] ${g.pattern} matches ${o}`),
      );
    });

    // Assess
    expect(crossings).toEqual([]);
  });

  it('the matcher sees a stack\'s own resources in its statements (control)', () => {
    // Act
    const own = ownedResources(stacks[0], templates[0]!);
    const matched = grantedPatterns(stacks[0], templates[0]!).filter((g) => own.some((o) => globMatches(g.pattern, o)));

    // Assess: the secret store grants and the queue grants at least.
    expect(matched.some((g) => g.pattern.includes(':secret:ddl-control-plane/DdlControlPlane/'))).toBe(true);
    expect(matched.some((g) => g.pattern.includes(deploymentNames('DdlControlPlane').queueName('compute')))).toBe(true);
  });
});

describe('stack name', () => {
  it('longer than the queue names allow is refused with the limit', () => {
    // Act
    const error = captureError(() => new DdlControlPlaneStack(testApp({ [BUNDLING_STACKS]: [] }), `D${'x'.repeat(60)}`));

    // Assess
    expect(String(error)).toMatch(/stack name .* is longer than \d+ characters/);
  });
});

describe('authorizer', () => {
  const app = testApp({ [BUNDLING_STACKS]: [] });
  const stack = new DdlControlPlaneStack(app, 'DdlControlPlane', { authorizerCacheTtl: Duration.seconds(30), passwordCache: Duration.seconds(15) });
  const template = Template.fromStack(stack);

  it('reads only app-password records: GetItem on the catalog with a dynamodb:LeadingKeys condition, nothing else on it', () => {
    // Act
    const statements = statementsOfRole(template, logicalId(stack.api.authorizerHandler!.role)).filter((s) => s.actions.some((a) => a.startsWith('dynamodb:')));

    // Assess
    expect(statements.map((s) => ({ actions: s.actions, resources: s.resources, condition: (s.statement as { Condition?: unknown }).Condition }))).toEqual([
      {
        actions: ['dynamodb:GetItem'],
        resources: [{ 'Fn::GetAtt': [logicalId(stack.catalog.table), 'Arn'] }],
        condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['AUTH#*'] } },
      },
    ]);
    expect(AUTHORIZER_LEADING_KEYS).toBe('AUTH#*');
  });

  it('takes its TTL and password cache from the stack props, and the revocation delay is their sum', () => {
    // Assess
    template.hasResourceProperties('AWS::ApiGateway::Authorizer', { AuthorizerResultTtlInSeconds: 30 });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: { [ENV.passwordCacheSeconds]: '15' } },
      Description: 'Checks app passwords (HTTP Basic or Bearer) against the tenant catalog',
    });
    expect(stack.api.revocationDelaySeconds).toBe(45);
  });
});

describe('the account\'s API Gateway CloudWatch role', () => {
  it('is left alone by default', () => {
    // Act
    const template = Template.fromStack(new DdlControlPlaneStack(testApp({ [BUNDLING_STACKS]: [] }), 'DdlControlPlane'));

    // Assess
    template.resourceCountIs('AWS::ApiGateway::Account', 0);
  });

  it('is created on request (context apiGatewayCloudWatchRole), and kept when the stack is deleted', () => {
    // Act
    const template = Template.fromStack(new DdlControlPlaneStack(testApp({ [BUNDLING_STACKS]: [], [API_GATEWAY_CLOUDWATCH_ROLE_CONTEXT]: 'true' }), 'DdlControlPlane'));

    // Assess
    const accounts = Object.values(template.findResources('AWS::ApiGateway::Account'));
    expect(accounts).toHaveLength(1);
    expect(accounts[0]!.DeletionPolicy).toBe('Retain');
    const roleId = (accounts[0]!.Properties.CloudWatchRoleArn as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0]!;
    expect(template.toJSON().Resources[roleId].DeletionPolicy).toBe('Retain');
    // The stage waits for the account setting: API Gateway refuses access logging without it.
    const stage = Object.values(template.findResources('AWS::ApiGateway::Stage'))[0]!;
    expect(toArray(stage.DependsOn)).toContain(Object.keys(template.findResources('AWS::ApiGateway::Account'))[0]);
  });
});

interface SupportedTypes {
  readonly checkedAt: string;
  readonly source: string;
  readonly types: readonly string[];
}

describe('LocalStack mode (context localstack)', () => {
  const supported = JSON.parse(readFileSync(join(REPO_ROOT, 'test', 'cdk', 'fixtures', 'localstack-free-resource-types.json'), 'utf8')) as SupportedTypes;
  const stack = new DdlControlPlaneStack(testApp({ [BUNDLING_STACKS]: [], [LOCALSTACK_CONTEXT]: 'true' }), 'DdlControlPlane');
  const template = Template.fromStack(stack);
  const types = [...new Set(Object.values(template.toJSON().Resources as Resources).map((r) => r.Type))].sort();

  it('uses only resource types LocalStack\'s free image can create, from a list that says when it was checked', () => {
    // Assess
    expect(supported.checkedAt).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(Date.parse(supported.checkedAt)).toBeLessThanOrEqual(Date.now());
    expect(supported.source).toMatch(/localstack/);
    expect(types.filter((t) => !supported.types.includes(t))).toEqual([]);
  });

  it('leaves out the authorizer and the dashboard, which the full stack has (control)', () => {
    // Prepare
    const full = Template.fromStack(new DdlControlPlaneStack(testApp({ [BUNDLING_STACKS]: [] }), 'DdlControlPlane'));
    const fullTypes = new Set(Object.values(full.toJSON().Resources as Resources).map((r) => r.Type));

    // Assess
    expect(fullTypes.has('AWS::ApiGateway::Authorizer') && fullTypes.has('AWS::CloudWatch::Dashboard')).toBe(true);
    expect(supported.types).not.toContain('AWS::ApiGateway::Authorizer');
    expect(supported.types).not.toContain('AWS::CloudWatch::Dashboard');
    expect(types).not.toContain('AWS::ApiGateway::Authorizer');
    expect(types).not.toContain('AWS::CloudWatch::Dashboard');
  });

  it('moves authentication into the DDL function: POST /api/sql has no authorizer, the function checks app passwords', () => {
    // Assess
    template.hasResourceProperties('AWS::ApiGateway::Method', { HttpMethod: 'POST', AuthorizationType: 'NONE' });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: { [ENV.authenticateInFunction]: 'true', [ENV.passwordCacheSeconds]: '60' } },
    });
    expect(stack.api.authorizerHandler).toBeUndefined();
  });
});

describe('request bodies over the DDL function\'s limit', () => {
  it('get the function\'s own 413 body from the gateway too (REQUEST_TOO_LARGE: past Lambda\'s invoke payload or 10 MB)', () => {
    // Prepare: what the function answers to a body one byte over its limit
    const error = captureError(() => readRequest('x'.repeat(MAX_BODY_BYTES + 1), 'application/json')) as RequestError;

    // Act
    const template = Template.fromStack(new DdlControlPlaneStack(testApp({ [BUNDLING_STACKS]: [] }), 'DdlControlPlane'));

    // Assess
    expect(error.status).toBe(413);
    expect(GATEWAY_ERROR_BODIES.bodyTooLarge).toEqual({ error: { message: error.message, code: error.code } });
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'REQUEST_TOO_LARGE',
      StatusCode: '413',
      ResponseTemplates: { 'application/json': JSON.stringify(GATEWAY_ERROR_BODIES.bodyTooLarge) },
    });
  });
});
