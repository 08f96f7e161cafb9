import { ArnFormat, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { deploymentNames } from '../../shared/definitions';
import type { SecretStore } from '../../shared/secrets/store';

/**
 * Every secret a stack's control plane stores is named under this prefix, its own
 * (`ddl-control-plane/<stack name>/<tenant>/<secretId>`): the functions get it in
 * `SECRET_NAME_PREFIX` (shared/secrets/aws-store.ts), and their grants cover it alone, so no
 * stack's role can touch another stack's secrets. Ends in `/`.
 */
export function secretNamePrefix(scope: Construct): string {
  return `${deploymentNames(Stack.of(scope).stackName).secretNamePrefix}/`;
}

/** A method of the secret store (shared/secrets/store.ts). */
export type SecretStoreMethod = keyof SecretStore;

/**
 * The Secrets Manager calls `AwsSecretStore` (shared/secrets/aws-store.ts) makes, by method, as
 * the IAM actions they need. A function is granted the methods its code calls, nothing more.
 * https://docs.aws.amazon.com/service-authorization/latest/reference/list_awssecretsmanager.html
 */
export const SECRET_STORE_ACCESS = {
  /**
   * `CreateSecret` (with a `managed-by` tag, which needs `TagResource` too), then
   * `UpdateSecretVersionStage` to label the first version; `PutSecretValue` when it exists.
   */
  put: [
    'secretsmanager:CreateSecret',
    'secretsmanager:TagResource',
    'secretsmanager:UpdateSecretVersionStage',
    'secretsmanager:PutSecretValue',
  ],
  /** `get`: `GetSecretValue` of the generation's version stage. */
  has: ['secretsmanager:GetSecretValue'],
  get: ['secretsmanager:GetSecretValue'],
  /** `DeleteSecret` (all generations), or `ListSecretVersionIds` + `UpdateSecretVersionStage` (older ones). */
  prune: ['secretsmanager:DeleteSecret', 'secretsmanager:ListSecretVersionIds', 'secretsmanager:UpdateSecretVersionStage'],
  /** `ListSecrets` filtered by name: an action with no resource-level permissions. */
  list: ['secretsmanager:ListSecrets'],
} as const satisfies Record<SecretStoreMethod, readonly string[]>;

/** Actions that AWS authorizes on `Resource: "*"` only. */
const UNSCOPED_ACTIONS: readonly string[] = ['secretsmanager:ListSecrets'];

/** The IAM actions of the given secret store methods: [on the prefix's secrets, on `*`]. */
export function secretStoreActions(methods: readonly SecretStoreMethod[]): { scoped: string[]; unscoped: string[] } {
  const all = [...new Set(methods.flatMap((m) => SECRET_STORE_ACCESS[m]))].sort();
  return { scoped: all.filter((a) => !UNSCOPED_ACTIONS.includes(a)), unscoped: all.filter((a) => UNSCOPED_ACTIONS.includes(a)) };
}

/**
 * Lets `role` call the given secret store methods: see {@link grantSecretActions}.
 */
export function grantSecretStore(scope: Construct, role: iam.IRole, methods: readonly SecretStoreMethod[]): iam.Policy[] {
  const { scoped, unscoped } = secretStoreActions(methods);
  return grantSecretActions(scope, role, [...scoped, ...unscoped]);
}

/**
 * Lets `role` perform Secrets Manager actions for the secret store: one policy `SecretStore` under
 * `scope` on the stack's own secrets only ({@link secretNamePrefix}), and, for `ListSecrets`, a policy
 * `SecretStoreList` of its own on `*`, so that its cdk-nag acknowledgement covers that one
 * statement and nothing else.
 */
export function grantSecretActions(scope: Construct, role: iam.IRole, actions: readonly string[]): iam.Policy[] {
  const all = [...new Set(actions)].sort();
  const scoped = all.filter((a) => !UNSCOPED_ACTIONS.includes(a));
  const unscoped = all.filter((a) => UNSCOPED_ACTIONS.includes(a));
  const policies: iam.Policy[] = [];
  const prefix = secretNamePrefix(scope);
  if (scoped.length > 0) {
    const policy = new iam.Policy(scope, 'SecretStore', {
      roles: [role],
      statements: [
        new iam.PolicyStatement({
          actions: scoped,
          resources: [
            Stack.of(scope).formatArn({
              service: 'secretsmanager',
              resource: 'secret',
              resourceName: `${prefix}*`,
              arnFormat: ArnFormat.COLON_RESOURCE_NAME,
            }),
          ],
        }),
      ],
    });
    Validations.of(policy).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:${prefix}*]`,
      reason: `Secrets are named after catalog objects (${prefix}<tenant>/<secret id>), so their names are not known at deploy time; access is confined to this stack's name prefix ${prefix} (the trailing * also covers the random suffix Secrets Manager appends to every secret ARN).`,
    });
    policies.push(policy);
  }
  if (unscoped.length > 0) {
    const policy = new iam.Policy(scope, 'SecretStoreList', {
      roles: [role],
      statements: [new iam.PolicyStatement({ actions: unscoped, resources: ['*'] })],
    });
    Validations.of(policy).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'secretsmanager:ListSecrets supports no resource-level permissions; AWS requires Resource "*" (https://docs.aws.amazon.com/service-authorization/latest/reference/list_awssecretsmanager.html). The call filters by the stack name prefix of its secrets, and it returns metadata only, never a secret value.',
    });
    policies.push(policy);
  }
  return policies;
}
