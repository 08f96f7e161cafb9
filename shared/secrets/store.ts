/**
 * Secret values go only to a secret store — never into the catalog, an effect, a response, a log
 * line or an error. The DDL handler puts a value (keyed by secret id and generation) before the
 * commit; the secrets executor then makes the committed generation the current one and removes
 * older ones; a secret whose commit never happened (no live catalog secret refers to it) is an
 * orphan the sweeper's full pass removes after its grace period (shared/sweeper/full-pass.ts).
 */
export interface SecretVersionList {
  readonly secretId: string;
  readonly generations: readonly number[];
  /** When a value of this secret was last stored or relabelled (ISO 8601): the orphan collector's grace period starts here. */
  readonly changedAt?: string;
}

export interface SecretStore {
  /** Idempotent: putting the same generation twice stores it once. */
  put(tenant: string, secretId: string, generation: number, value: string): Promise<void>;
  has(tenant: string, secretId: string, generation: number): Promise<boolean>;
  /** Reads a value, for the data plane's connectors (never for a response). */
  get(tenant: string, secretId: string, generation: number): Promise<string | undefined>;
  /** Removes every generation below `keep` (or all of them when `keep` is undefined). */
  prune(tenant: string, secretId: string, keep?: number): Promise<void>;
  list(tenant: string): Promise<SecretVersionList[]>;
}
