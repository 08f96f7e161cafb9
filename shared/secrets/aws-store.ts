/**
 * AWS Secrets Manager as the secret store: one secret per catalog secret, named
 * `ddl-control-plane/<tenant>/<secretId>`, one version per generation, found by its staging label
 * `g<N>`.
 *
 * Every put makes a new version with a fresh UUID as its version id (ClientRequestToken): a
 * version is immutable, and AWS refuses a known version id with a different value. An id derived
 * from (secret, generation) alone would be refused whenever a generation is put twice with two
 * values — after a commit that failed (conflict, 54000, crash) the next request puts the same
 * generation again — and ids derived by padding collided outright (generation 10 and generation 1).
 * The SDK resends the same id on its own retries, so those stay idempotent; a put repeated by us
 * adds a version and moves the label to it, and Secrets Manager deprecates unlabelled versions.
 * https://docs.aws.amazon.com/secretsmanager/latest/apireference/API_PutSecretValue.html
 */
import {
  CreateSecretCommand,
  DeleteSecretCommand,
  GetSecretValueCommand,
  ListSecretVersionIdsCommand,
  ListSecretsCommand,
  PutSecretValueCommand,
  ResourceExistsException,
  ResourceNotFoundException,
  UpdateSecretVersionStageCommand,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { randomUUID } from 'node:crypto';
import type { SecretStore, SecretVersionList } from './store';

export const SECRET_NAME_PREFIX = 'ddl-control-plane';
const name = (tenant: string, secretId: string) => `${SECRET_NAME_PREFIX}/${tenant}/${secretId}`;
const stage = (generation: number) => `g${generation}`;

export class AwsSecretStore implements SecretStore {
  constructor(private readonly sm: SecretsManagerClient) {}

  async put(tenant: string, secretId: string, generation: number, value: string): Promise<void> {
    const SecretId = name(tenant, secretId);
    const versionId = randomUUID();
    try {
      await this.sm.send(new CreateSecretCommand({ Name: SecretId, SecretString: value, ClientRequestToken: versionId, Tags: [{ Key: 'managed-by', Value: SECRET_NAME_PREFIX }] }));
      await this.sm.send(new UpdateSecretVersionStageCommand({ SecretId, VersionStage: stage(generation), MoveToVersionId: versionId }));
      return;
    } catch (err) {
      if (!(err instanceof ResourceExistsException)) throw err;
    }
    await this.sm.send(new PutSecretValueCommand({ SecretId, SecretString: value, ClientRequestToken: versionId, VersionStages: [stage(generation)] }));
  }

  async has(tenant: string, secretId: string, generation: number): Promise<boolean> {
    return (await this.get(tenant, secretId, generation)) !== undefined;
  }

  async get(tenant: string, secretId: string, generation: number): Promise<string | undefined> {
    try {
      const r = await this.sm.send(new GetSecretValueCommand({ SecretId: name(tenant, secretId), VersionStage: stage(generation) }));
      return r.SecretString;
    } catch (err) {
      if (err instanceof ResourceNotFoundException) return undefined;
      throw err;
    }
  }

  async prune(tenant: string, secretId: string, keep?: number): Promise<void> {
    if (keep === undefined) {
      try {
        await this.sm.send(new DeleteSecretCommand({ SecretId: name(tenant, secretId), ForceDeleteWithoutRecovery: true }));
      } catch (err) {
        if (!(err instanceof ResourceNotFoundException)) throw err;
      }
      return;
    }
    // Older versions lose their stage and are deprecated by Secrets Manager itself.
    const versions = await this.sm.send(new ListSecretVersionIdsCommand({ SecretId: name(tenant, secretId) }));
    for (const v of versions.Versions ?? []) {
      for (const st of v.VersionStages ?? []) {
        const g = /^g(\d+)$/.exec(st)?.[1];
        if (g !== undefined && Number(g) < keep) {
          await this.sm.send(new UpdateSecretVersionStageCommand({ SecretId: name(tenant, secretId), VersionStage: st, RemoveFromVersionId: v.VersionId }));
        }
      }
    }
  }

  async list(tenant: string): Promise<SecretVersionList[]> {
    const out: SecretVersionList[] = [];
    let next: string | undefined;
    do {
      const r = await this.sm.send(new ListSecretsCommand({ Filters: [{ Key: 'name', Values: [`${SECRET_NAME_PREFIX}/${tenant}/`] }], NextToken: next }));
      for (const s of r.SecretList ?? []) {
        const id = s.Name?.split('/').pop();
        if (!id) continue;
        const gens = Object.values(s.SecretVersionsToStages ?? {})
          .flat()
          .map((st) => /^g(\d+)$/.exec(st)?.[1])
          .filter((g): g is string => g !== undefined)
          .map(Number);
        const changed = s.LastChangedDate ?? s.CreatedDate;
        out.push({ secretId: id, generations: gens.sort((a, b) => a - b), ...(changed ? { changedAt: changed.toISOString() } : {}) });
      }
      next = r.NextToken;
    } while (next);
    return out;
  }
}
