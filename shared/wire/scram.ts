/**
 * SCRAM-SHA-256 (RFC 5802, RFC 7677) as PostgreSQL runs it: the server side of the exchange, and
 * the verifier an app password is stored as. Pure (node:crypto only).
 *
 * App passwords are random 256-bit tokens, many per tenant, and a SCRAM client never sends its
 * password: so every password of a tenant is salted with the tenant's one salt, and the server
 * checks the client's proof against each of the tenant's verifiers (the proof reveals its
 * ClientKey; the verifier whose StoredKey is H(ClientKey) is the password's). One salt per tenant
 * costs nothing here: salts stop precomputed tables, and a 256-bit random token has none.
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';

export const SCRAM_ITERATIONS = 4096;

export interface ScramVerifier {
  /** base64 */
  readonly storedKey: string;
  /** base64 */
  readonly serverKey: string;
}

const hmac = (key: Buffer, data: string | Buffer) => createHmac('sha256', key).update(data).digest();
const h = (data: Buffer) => createHash('sha256').update(data).digest();

/** The tenant's salt: the same for every password of the tenant (see the top of this file). */
export function tenantSalt(tenant: string): Buffer {
  return createHash('sha256').update(`ddl-control-plane scram salt\u0000${tenant}`).digest().subarray(0, 16);
}

export function scramVerifier(password: string, salt: Buffer, iterations = SCRAM_ITERATIONS): ScramVerifier {
  // SASLprep leaves our passwords (ASCII) as they are.
  const salted = pbkdf2Sync(password.normalize('NFKC'), salt, iterations, 32, 'sha256');
  return { storedKey: h(hmac(salted, 'Client Key')).toString('base64'), serverKey: hmac(salted, 'Server Key').toString('base64') };
}

/** Reads `n,,n=user,r=nonce` (channel binding is not offered: we never advertise -PLUS). */
export function readClientFirst(data: string): { bare: string; nonce: string } | undefined {
  const m = /^([ny])(?:=[^,]*)?,(?:a=[^,]*)?,(.*)$/.exec(data);
  if (!m) return undefined;
  const bare = m[2]!;
  const nonce = /(?:^|,)r=([^,]+)/.exec(bare)?.[1];
  return nonce ? { bare, nonce } : undefined;
}

export interface ScramServerState {
  readonly clientFirstBare: string;
  readonly serverFirst: string;
  readonly nonce: string;
}

export function serverFirst(clientFirst: { bare: string; nonce: string }, salt: Buffer, iterations = SCRAM_ITERATIONS): ScramServerState {
  const nonce = clientFirst.nonce + randomBytes(18).toString('base64');
  return { clientFirstBare: clientFirst.bare, nonce, serverFirst: `r=${nonce},s=${salt.toString('base64')},i=${iterations}` };
}

/**
 * Checks `c=biws,r=...,p=proof` against the candidates; the index of the verifier it proves and
 * the server's final message, or undefined (the same answer whichever way it failed).
 */
export function verifyClientFinal(state: ScramServerState, data: string, candidates: readonly ScramVerifier[]): { index: number; serverFinal: string } | undefined {
  const m = /^(c=[^,]*,r=([^,]*))(?:,.*)?,p=([^,]+)$/.exec(data);
  if (!m || m[2] !== state.nonce) return undefined;
  const withoutProof = m[1]!;
  const proof = Buffer.from(m[3]!, 'base64');
  if (proof.length !== 32) return undefined;
  const authMessage = `${state.clientFirstBare},${state.serverFirst},${withoutProof}`;
  let found = -1;
  candidates.forEach((v, i) => {
    const stored = Buffer.from(v.storedKey, 'base64');
    const signature = hmac(stored, authMessage);
    const clientKey = Buffer.alloc(32);
    for (let k = 0; k < 32; k++) clientKey[k] = proof[k]! ^ signature[k]!;
    // Every candidate is checked, found or not: the time says nothing about which one matched.
    if (timingSafeEqual(h(clientKey), stored) && found < 0) found = i;
  });
  if (found < 0) return undefined;
  const serverSignature = hmac(Buffer.from(candidates[found]!.serverKey, 'base64'), authMessage);
  return { index: found, serverFinal: `v=${serverSignature.toString('base64')}` };
}
