/**
 * An in-memory Secrets Manager for the calls AwsSecretStore makes (there is no Secrets Manager
 * emulator in the test setup). It enforces the rules of the real service that the store's
 * correctness rests on, as documented in the API reference:
 * - a version id (ClientRequestToken) is 32–64 characters;
 * - a version is immutable: reusing a version id with the same value does nothing, with another
 *   value it is refused (ResourceExistsException);
 *   https://docs.aws.amazon.com/secretsmanager/latest/apireference/API_PutSecretValue.html
 * - a staging label is on at most one version; moving one that is attached elsewhere with
 *   UpdateSecretVersionStage needs RemoveFromVersionId;
 *   https://docs.aws.amazon.com/secretsmanager/latest/apireference/API_UpdateSecretVersionStage.html
 * - versions without a label are not listed by ListSecretVersionIds (IncludeDeprecated false).
 */
import {
  InvalidParameterException,
  InvalidRequestException,
  ResourceExistsException,
  ResourceNotFoundException,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';

interface Version {
  readonly id: string;
  readonly value: string;
  stages: string[];
  readonly createdAt: Date;
}

interface Secret {
  readonly name: string;
  readonly createdAt: Date;
  lastChangedAt: Date;
  readonly versions: Map<string, Version>;
}

type Input = Record<string, any>;

export class FakeSecretsManager {
  readonly secrets = new Map<string, Secret>();
  /** Every command name sent, in order. */
  readonly calls: string[] = [];
  now: () => Date = () => new Date();

  get client(): SecretsManagerClient {
    return { send: (command: { constructor: { name: string }; input: Input }) => this.send(command.constructor.name.replace(/Command$/, ''), command.input) } as unknown as SecretsManagerClient;
  }

  private async send(name: string, input: Input): Promise<unknown> {
    this.calls.push(name);
    switch (name) {
      case 'CreateSecret':
        return this.create(input);
      case 'PutSecretValue':
        return this.putValue(input);
      case 'UpdateSecretVersionStage':
        return this.updateStage(input);
      case 'GetSecretValue':
        return this.getValue(input);
      case 'ListSecretVersionIds':
        return { Versions: [...this.secret(input.SecretId).versions.values()].filter((v) => v.stages.length > 0).map((v) => ({ VersionId: v.id, VersionStages: [...v.stages], CreatedDate: v.createdAt })) };
      case 'ListSecrets':
        return this.list(input);
      case 'DeleteSecret':
        this.secret(input.SecretId);
        this.secrets.delete(input.SecretId);
        return {};
      default:
        throw new Error(`the fake Secrets Manager does not know ${name}`);
    }
  }

  private secret(id: string): Secret {
    const s = this.secrets.get(id);
    if (!s) throw new ResourceNotFoundException({ message: "Secrets Manager can't find the specified secret.", $metadata: {} });
    return s;
  }

  private checkToken(token: unknown): string {
    if (typeof token !== 'string' || token.length < 32 || token.length > 64) {
      throw new InvalidParameterException({ message: 'ClientRequestToken must be 32 to 64 characters long.', $metadata: {} });
    }
    return token;
  }

  private create(input: Input): unknown {
    const id = this.checkToken(input.ClientRequestToken);
    if (this.secrets.has(input.Name)) throw new ResourceExistsException({ message: `The operation failed because the secret ${input.Name} already exists.`, $metadata: {} });
    const now = this.now();
    this.secrets.set(input.Name, { name: input.Name, createdAt: now, lastChangedAt: now, versions: new Map([[id, { id, value: input.SecretString, stages: ['AWSCURRENT'], createdAt: now }]]) });
    return { Name: input.Name, VersionId: id };
  }

  private putValue(input: Input): unknown {
    const s = this.secret(input.SecretId);
    const id = this.checkToken(input.ClientRequestToken);
    const existing = s.versions.get(id);
    if (existing) {
      if (existing.value !== input.SecretString) throw new ResourceExistsException({ message: "You can't modify an existing version, you can only create new versions.", $metadata: {} });
      return { VersionId: id, VersionStages: [...existing.stages] };
    }
    const stages: string[] = input.VersionStages ?? ['AWSCURRENT'];
    // Labels given with the put move to the new version.
    for (const v of s.versions.values()) v.stages = v.stages.filter((st) => !stages.includes(st));
    s.versions.set(id, { id, value: input.SecretString, stages: [...stages], createdAt: this.now() });
    s.lastChangedAt = this.now();
    return { VersionId: id, VersionStages: stages };
  }

  private updateStage(input: Input): unknown {
    const s = this.secret(input.SecretId);
    const label: string = input.VersionStage;
    const holder = [...s.versions.values()].find((v) => v.stages.includes(label));
    if (input.RemoveFromVersionId !== undefined && holder?.id !== input.RemoveFromVersionId) {
      throw new InvalidParameterException({ message: `The staging label ${label} is not attached to version ${input.RemoveFromVersionId}.`, $metadata: {} });
    }
    if (input.MoveToVersionId !== undefined) {
      const target = s.versions.get(input.MoveToVersionId);
      if (!target) throw new ResourceNotFoundException({ message: `Version ${input.MoveToVersionId} not found.`, $metadata: {} });
      if (holder && holder !== target && input.RemoveFromVersionId === undefined) {
        throw new InvalidRequestException({ message: `The staging label ${label} is attached to another version; name it in RemoveFromVersionId.`, $metadata: {} });
      }
      if (holder && holder !== target) holder.stages = holder.stages.filter((st) => st !== label);
      if (!target.stages.includes(label)) target.stages.push(label);
    } else if (holder) {
      holder.stages = holder.stages.filter((st) => st !== label);
    }
    s.lastChangedAt = this.now();
    return { Name: s.name };
  }

  private getValue(input: Input): unknown {
    const s = this.secret(input.SecretId);
    const stage: string = input.VersionStage ?? (input.VersionId === undefined ? 'AWSCURRENT' : undefined);
    const v = input.VersionId !== undefined ? s.versions.get(input.VersionId) : [...s.versions.values()].find((x) => x.stages.includes(stage));
    if (!v) throw new ResourceNotFoundException({ message: "Secrets Manager can't find the specified secret value for staging label: " + stage, $metadata: {} });
    return { Name: s.name, VersionId: v.id, SecretString: v.value, VersionStages: [...v.stages] };
  }

  private list(input: Input): unknown {
    const prefixes: string[] = (input.Filters ?? []).filter((f: Input) => f.Key === 'name').flatMap((f: Input) => f.Values as string[]);
    const matching = [...this.secrets.values()].filter((s) => prefixes.every((p) => s.name.startsWith(p)));
    return {
      SecretList: matching.map((s) => ({
        Name: s.name,
        CreatedDate: s.createdAt,
        LastChangedDate: s.lastChangedAt,
        SecretVersionsToStages: Object.fromEntries([...s.versions.values()].filter((v) => v.stages.length > 0).map((v) => [v.id, [...v.stages]])),
      })),
    };
  }
}
