/**
 * The secret store's IAM table (cdk/constructs/secret-store.ts) against the calls the real
 * adapter (shared/secrets/aws-store.ts) makes: every branch of every method is run against a
 * client that records the commands instead of sending them (there is no Secrets Manager emulator
 * in the test setup), and the recorded calls, as IAM actions, must be exactly the table's line.
 * Then what `grantSecretStore` makes of it, and what cdk-nag says about that.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ResourceExistsException, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { Stack, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { grantSecretStore, SECRET_STORE_ACCESS, secretNamePrefix, type SecretStoreMethod, secretStoreActions } from '../../cdk/constructs/secret-store';
import { loadConfig } from '../../shared/config';
import { CONTROLLERS, deploymentNames, ENV } from '../../shared/definitions';
import { AwsSecretStore, SECRET_NAME_PREFIX as STORE_PREFIX } from '../../shared/secrets/aws-store';
import { fakeResolve, identityStatements, testApp } from './helpers';

const queueEnv = () => Object.fromEntries(CONTROLLERS.map((c) => [ENV.queueUrl(c), `http://queue/${c}`]));

type Reply = (input: Record<string, unknown>) => unknown;

/** A client that answers each command by name and records it as the IAM action(s) it needs. */
function recordingClient(replies: Readonly<Record<string, Reply>>): { client: SecretsManagerClient; actions: Set<string> } {
  const actions = new Set<string>();
  const client = {
    send: async (command: { constructor: { name: string }; input: Record<string, unknown> }) => {
      const name = command.constructor.name.replace(/Command$/, '');
      actions.add(`secretsmanager:${name}`);
      // Tags on CreateSecret are authorized as TagResource as well.
      // https://docs.aws.amazon.com/secretsmanager/latest/apireference/API_CreateSecret.html
      if (name === 'CreateSecret' && Array.isArray(command.input.Tags) && command.input.Tags.length > 0) {
        actions.add('secretsmanager:TagResource');
      }
      const reply = replies[name];
      if (!reply) throw new Error(`unexpected ${name}`);
      return reply(command.input);
    },
  } as unknown as SecretsManagerClient;
  return { client, actions };
}

const exists = (): never => {
  throw new ResourceExistsException({ message: 'exists', $metadata: {} });
};

/** Every branch of each method, run with its own recording client. */
const BRANCHES: Record<SecretStoreMethod, ((store: AwsSecretStore) => Promise<unknown>)[]> = {
  put: [(s) => s.put('t1', 'u1', 1, 'v'), (s) => s.put('t1', 'u1', 2, 'v')],
  has: [(s) => s.has('t1', 'u1', 1)],
  get: [(s) => s.get('t1', 'u1', 1)],
  prune: [(s) => s.prune('t1', 'u1'), (s) => s.prune('t1', 'u1', 2)],
  list: [(s) => s.list('t1')],
};

function replies(branch: number): Record<string, Reply> {
  return {
    // The first put creates the secret; the second finds it and adds a version.
    CreateSecret: branch === 0 ? () => ({}) : exists,
    UpdateSecretVersionStage: () => ({}),
    PutSecretValue: () => ({}),
    GetSecretValue: () => ({ SecretString: 'v' }),
    DeleteSecret: () => ({}),
    ListSecretVersionIds: () => ({ Versions: [{ VersionId: 'a', VersionStages: ['g1'] }, { VersionId: 'b', VersionStages: ['g2', 'AWSCURRENT'] }] }),
    ListSecrets: () => ({ SecretList: [{ Name: `${STORE_PREFIX}/t1/u1`, SecretVersionsToStages: { a: ['g1'] } }] }),
  };
}

describe('SECRET_STORE_ACCESS', () => {
  it('grants the prefix AwsSecretStore names the stack\'s secrets with, from the SECRET_NAME_PREFIX the stack gives it', async () => {
    // Prepare
    const stack = new Stack(testApp(), 'Staging');
    const cfg = loadConfig({ CATALOG_TABLE: 'c', DATAPLANE_TABLE: 'd', ...queueEnv(), [ENV.secretNamePrefix]: deploymentNames(stack.stackName).secretNamePrefix });
    const { client, actions } = recordingClient(replies(0));
    const names: string[] = [];
    const send = client.send.bind(client) as (c: { input: { SecretId?: string } }) => Promise<unknown>;
    Object.assign(client, {
      send: (c: { input: { SecretId?: string } }) => {
        names.push(String(c.input.SecretId));
        return send(c);
      },
    });

    // Act
    await new AwsSecretStore(client, cfg.secretNamePrefix).get('t1', 'u1', 1);

    // Assess
    expect([...actions]).toEqual(['secretsmanager:GetSecretValue']);
    expect(names).toEqual([`${secretNamePrefix(stack)}t1/u1`]);
    expect(secretNamePrefix(stack)).toBe(`${STORE_PREFIX}/Staging/`);
  });

  it.each(Object.keys(BRANCHES).map((m) => [m as SecretStoreMethod]))('%s: exactly the actions AwsSecretStore needs', async (method) => {
    // Act
    const needed = new Set<string>();
    for (const [i, run] of BRANCHES[method].entries()) {
      const { client, actions } = recordingClient(replies(i));
      await run(new AwsSecretStore(client));
      for (const a of actions) needed.add(a);
    }

    // Assess
    expect([...needed].sort()).toEqual([...SECRET_STORE_ACCESS[method]].sort());
  });

  it('splits ListSecrets (no resource-level permissions) from the actions a secret ARN scopes', () => {
    // Act
    const split = secretStoreActions(['has', 'prune', 'list']);

    // Assess
    expect(split).toEqual({
      scoped: ['secretsmanager:DeleteSecret', 'secretsmanager:GetSecretValue', 'secretsmanager:ListSecretVersionIds', 'secretsmanager:UpdateSecretVersionStage'],
      unscoped: ['secretsmanager:ListSecrets'],
    });
  });
});

describe('grantSecretStore', () => {
  it('scopes to the stack\'s ddl-control-plane/<stack>/*, puts ListSecrets on "*" in a policy of its own, and cdk-nag accepts both with their reasons', () => {
    // Prepare
    const app = testApp({ '@aws-cdk/core:failSynthOnValidationErrors': false });
    const stack = new Stack(app, 'Secrets');
    const role = new iam.Role(stack, 'Role', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));

    // Act
    const policies = grantSecretStore(stack, role, ['put', 'list']);
    const statements = identityStatements(Template.fromStack(stack));
    const report = JSON.parse(readFileSync(join(app.synth().directory, 'validation-report.json'), 'utf8')) as {
      pluginReports: { violations: { ruleName: string; violatingConstructs: { constructPath: string }[] }[] }[];
    };

    // Assess
    expect(policies.map((p) => p.node.id)).toEqual(['SecretStore', 'SecretStoreList']);
    expect(statements.map((s) => ({ actions: [...s.actions].sort(), resources: s.resources.map(fakeResolve) }))).toEqual([
      {
        actions: [...SECRET_STORE_ACCESS.put].sort(),
        resources: ['arn:ref:AWS::Partition:secretsmanager:ref:AWS::Region:ref:AWS::AccountId:secret:ddl-control-plane/Secrets/*'],
      },
      { actions: ['secretsmanager:ListSecrets'], resources: ['*'] },
    ]);
    expect(report.pluginReports.flatMap((p) => p.violations.map((v) => v.ruleName))).toEqual([]);
  });

  it('makes no ListSecrets policy when list is not granted', () => {
    // Prepare
    const stack = new Stack(testApp(), 'Secrets');
    const role = new iam.Role(stack, 'Role', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });

    // Act
    const policies = grantSecretStore(stack, role, ['has', 'prune']);

    // Assess
    expect(policies.map((p) => p.node.id)).toEqual(['SecretStore']);
    expect(identityStatements(Template.fromStack(stack)).flatMap((s) => s.resources)).not.toContain('*');
  });
});
