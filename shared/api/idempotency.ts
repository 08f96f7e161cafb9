/**
 * Idempotency-Key: a retried request gets the first request's answer for 24 hours without
 * committing again. The record itself is the catalog store's (it commits in the same transaction
 * as the change); this module decides what a request with a key answers.
 */
import { createHash, createHmac } from 'node:crypto';
import type { CatalogStore } from '../catalog/store';
import { RequestError, SQLSTATE } from '../errors';
import type { FingerprintKey } from '../secrets/fingerprint-key';
import { errorResponse, type ApiResponse } from './answer';

/** A request's key and what its record remembers of the body. */
export interface IdempotencyClaim {
  readonly key: string;
  readonly fingerprint: string;
}

type IdempotencyRecords = Pick<CatalogStore, 'getIdempotency' | 'recordIdempotency'>;

export class IdempotentAnswers {
  constructor(
    private readonly store: IdempotencyRecords,
    private readonly clock: () => Date,
    private readonly fingerprintKey?: FingerprintKey,
  ) {}

  async claim(key: string, body: string): Promise<IdempotencyClaim> {
    return { key, fingerprint: await this.fingerprint(body) };
  }

  /**
   * The answer already recorded for this key (replayed), a 422 if the key came with another body,
   * or nothing: the request runs. Asked on every attempt, since a concurrent request with the
   * same key may have just committed.
   */
  async recorded(tenant: string, claim: IdempotencyClaim): Promise<ApiResponse | undefined> {
    const seen = await this.store.getIdempotency(tenant, claim.key, this.clock());
    if (!seen) return undefined;
    if (seen.fingerprint !== claim.fingerprint) {
      return errorResponse(
        new RequestError(422, 'Idempotency-Key was already used with a different request body', {
          code: SQLSTATE.invalidParameterValue,
          hint: 'Use a new key for a new request.',
        }),
      );
    }
    return { status: seen.status, body: JSON.parse(seen.body), replayed: true };
  }

  /**
   * After a failed attempt: a twin request with this key may have committed between our check and
   * our plan (and made ours fail, e.g. on its own new name): its recorded answer is the answer.
   */
  async twin(tenant: string, claim: IdempotencyClaim): Promise<ApiResponse | undefined> {
    const twin = await this.store.getIdempotency(tenant, claim.key, this.clock());
    return twin && twin.fingerprint === claim.fingerprint ? { status: twin.status, body: JSON.parse(twin.body), replayed: true } : undefined;
  }

  /**
   * A keyed request that changed nothing still records its answer, so that a retry — or a
   * concurrent twin that planned after another twin committed — answers the same. Returns the
   * twin's answer if one was recorded first.
   */
  async record(tenant: string, claim: IdempotencyClaim, response: ApiResponse): Promise<ApiResponse | undefined> {
    const recorded = await this.store.recordIdempotency(tenant, { ...claim, status: response.status, body: JSON.stringify(response.body) }, this.clock());
    return recorded ? { status: recorded.status, body: JSON.parse(recorded.body), replayed: true } : undefined;
  }

  /**
   * What the record remembers of the body: an HMAC under the deployment's key
   * (shared/secrets/fingerprint-key.ts), so the table never holds a plain hash of a body that may
   * carry a secret value. Without a key (in-process test harnesses only) a plain SHA-256.
   */
  private async fingerprint(body: string): Promise<string> {
    const key = await this.fingerprintKey?.();
    return (key ? createHmac('sha256', key) : createHash('sha256')).update(body, 'utf8').digest('hex');
  }
}
