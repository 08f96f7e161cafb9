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
import { SECRET_NAME_ROOT } from '../clients/secret-names';
import { randomUUID } from 'node:crypto';
import type { NewestGeneration, SecretStore, SecretVersionList } from './store';

/** The name prefix when none is configured; a deployed stack passes its own (`deploymentNames`). */
export const SECRET_NAME_PREFIX = SECRET_NAME_ROOT;
const stage = (generation: number) => `g${generation}`;

export class AwsSecretStore implements SecretStore, NewestGeneration {
  /** `prefix`: the deployment's secret name prefix (Config.secretNamePrefix), without a trailing `/`. */
  constructor(
    private readonly sm: SecretsManagerClient,
    private readonly prefix: string = SECRET_NAME_PREFIX,
  ) {}

  private name(tenant: string, secretId: string): string {
    return `${this.prefix}/${tenant}/${secretId}`;
  }

  async put(tenant: string, secretId: string, generation: number, value: string): Promise<void> {
    const SecretId = this.name(tenant, secretId);
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
      const r = await this.sm.send(new GetSecretValueCommand({ SecretId: this.name(tenant, secretId), VersionStage: stage(generation) }));
      return r.SecretString;
    } catch (err) {
      if (err instanceof ResourceNotFoundException) return undefined;
      throw err;
    }
  }

  async prune(tenant: string, secretId: string, keep?: number): Promise<void> {
    if (keep === undefined) {
      try {
        await this.sm.send(new DeleteSecretCommand({ SecretId: this.name(tenant, secretId), ForceDeleteWithoutRecovery: true }));
      } catch (err) {
        if (!(err instanceof ResourceNotFoundException)) throw err;
      }
      return;
    }
    // Older versions lose their stage and are deprecated by Secrets Manager itself.
    const versions = await this.sm.send(new ListSecretVersionIdsCommand({ SecretId: this.name(tenant, secretId) }));
    for (const v of versions.Versions ?? []) {
      for (const st of v.VersionStages ?? []) {
        const g = /^g(\d+)$/.exec(st)?.[1];
        if (g !== undefined && Number(g) < keep) {
          await this.sm.send(new UpdateSecretVersionStageCommand({ SecretId: this.name(tenant, secretId), VersionStage: st, RemoveFromVersionId: v.VersionId }));
        }
      }
    }
  }

  async newestGeneration(tenant: string, secretId: string): Promise<number | undefined> {
    try {
      const versions = await this.sm.send(new ListSecretVersionIdsCommand({ SecretId: this.name(tenant, secretId) }));
      const gens = (versions.Versions ?? []).flatMap((v) => (v.VersionStages ?? []).map((st) => /^g(\d+)$/.exec(st)?.[1])).filter((g): g is string => g !== undefined).map(Number);
      return gens.length ? Math.max(...gens) : undefined;
    } catch (err) {
      if (err instanceof ResourceNotFoundException) return undefined;
      throw err;
    }
  }

  async list(tenant: string): Promise<SecretVersionList[]> {
    const out: SecretVersionList[] = [];
    let next: string | undefined;
    do {
      const r = await this.sm.send(new ListSecretsCommand({ Filters: [{ Key: 'name', Values: [`${this.prefix}/${tenant}/`] }], NextToken: next }));
      for (const s of r.SecretList ?? []) {
        // The name filter is a case-insensitive prefix match: keep exactly this tenant's secrets,
        // since the sweeper deletes listed secrets that its catalog does not know.
        const prefix = `${this.prefix}/${tenant}/`;
        const id = s.Name?.startsWith(prefix) ? s.Name.slice(prefix.length) : undefined;
        if (!id || id.includes('/')) continue;
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
