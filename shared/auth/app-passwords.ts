/**
 * App passwords: long random tokens `ddlp_<16 hex id><64 hex secret>` (a 256-bit secret).
 * Stored only as a SHA-256 hash under their public id; a slow hash would buy nothing for random
 * tokens and would dominate every request's latency. Compared in constant time.
 * The same code runs in the local runtime and in the Lambda authorizer.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { AuthError } from '../errors';
import { PasswordStore } from '../catalog/password-store';
import { CatalogStore } from '../catalog/store';
import { scramVerifier, tenantSalt } from '../wire/scram';

const PREFIX = 'ddlp_';
const TOKEN_RE = /^ddlp_([0-9a-f]{16})([0-9a-f]{64})$/;
/** Tenant names go into keys and URLs: keep them plain. */
export const TENANT_RE = /^[a-z0-9][a-z0-9_-]{0,62}$/;

export interface Principal {
  readonly tenant: string;
  readonly tokenId: string;
  /**
   * The role a password made for one acts as (not a superuser); absent: the password acts as the
   * role materialize with superuser rights, as the bootstrap password does (Materialize's admin).
   */
  readonly role?: string;
}

/**
 * Who a principal acts as in the catalog: its role, and whether it is a superuser. A password made
 * for the system role mz_system acts as mz_system, a superuser as Materialize's system user is
 * (src/sql/src/session/user.rs: `kind` is Superuser for the system user): what it creates, mz_system owns.
 */
export function actorOf(p: { readonly role?: string }): { readonly role: string; readonly superuser: boolean } {
  if (p.role === undefined) return { role: 'materialize', superuser: true };
  return { role: p.role, superuser: p.role === SYSTEM_ROLE };
}
const SYSTEM_ROLE = 'mz_system';

export function sha256(s: string): string {
  return createHash('sha256').update(s, 'utf8').digest('hex');
}

/** The lookup id of a token; a password not in our format (e.g. a chosen DDL_APP_PASSWORD) gets one derived from its hash. */
export function tokenId(password: string): string {
  const m = TOKEN_RE.exec(password);
  return m ? m[1]! : sha256(`id:${password}`).slice(0, 16);
}

export function generateAppPassword(): string {
  return `${PREFIX}${randomBytes(8).toString('hex')}${randomBytes(32).toString('hex')}`;
}

/** Reads `Authorization: Bearer <password>` or `Basic base64(tenant:password)`. */
export function parseAuthorization(header: string | undefined): { password: string; tenant?: string } {
  if (!header) throw new AuthError('missing Authorization header: send "Bearer <app password>" or HTTP Basic with the tenant as user');
  const [scheme, ...rest] = header.trim().split(/\s+/);
  const value = rest.join(' ');
  if (/^bearer$/i.test(scheme ?? '') && value) return { password: value };
  if (/^basic$/i.test(scheme ?? '') && value) {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw new AuthError('malformed HTTP Basic credentials');
    return { tenant: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
  }
  throw new AuthError('unsupported Authorization scheme: use Bearer or Basic');
}

export interface AppPasswordsOptions {
  /**
   * How long a warm authorizer remembers a password record it found (ms; 0 = read every time).
   * Only found records are kept — a new password works at once — and the hash is still compared
   * on every request. Like API Gateway's authorizer result cache, a revoked password could keep
   * working this long in an instance that has seen it.
   */
  readonly cacheTtlMs?: number;
  readonly clock?: () => number;
}

/** Password records are immutable once written; a minute of caching saves a read per request. */
export const DEFAULT_PASSWORD_CACHE_TTL_MS = 60_000;
const MAX_CACHED_PASSWORDS = 10_000;

export class AppPasswords {
  private readonly cache = new Map<string, { item: { tenant: string; hash: string; role?: string }; until: number }>();
  private readonly ttlMs: number;
  private readonly clock: () => number;
  private readonly passwords: PasswordStore;
  private readonly catalog: CatalogStore;

  constructor(doc: DynamoDBDocumentClient, table: string, options: AppPasswordsOptions = {}) {
    this.passwords = new PasswordStore(doc, table);
    this.catalog = new CatalogStore(doc, table, { snapshotCacheObjects: 0 });
    this.ttlMs = options.cacheTtlMs ?? DEFAULT_PASSWORD_CACHE_TTL_MS;
    this.clock = options.clock ?? Date.now;
  }

  /** The stored record of a token id, from the cache while fresh. */
  private async record(id: string): Promise<{ tenant: string; hash: string; role?: string } | undefined> {
    const now = this.clock();
    const hit = this.cache.get(id);
    if (hit && hit.until > now) return hit.item;
    this.cache.delete(id);
    const item = await this.passwords.get(id);
    if (item && this.ttlMs > 0) {
      if (this.cache.size >= MAX_CACHED_PASSWORDS) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(id, { item: { tenant: item.tenant, hash: item.hash, ...(item.role !== undefined ? { role: item.role } : {}) }, until: now + this.ttlMs });
    }
    return item;
  }

  /**
   * A new app password of `tenant`. `role`: the role it acts as (a service account's); without
   * one it acts as the role materialize with superuser rights, like the bootstrap password.
   */
  async create(tenant: string, password = generateAppPassword(), description = '', o: { readonly role?: string } = {}): Promise<string> {
    if (!TENANT_RE.test(tenant)) throw new AuthError(`invalid tenant name ${JSON.stringify(tenant)}: use lowercase letters, digits, _ and -`);
    if (o.role !== undefined && (o.role === '' || Buffer.byteLength(o.role) > 255)) throw new AuthError('invalid role name: give 1 to 255 bytes');
    const now = new Date().toISOString();
    await this.catalog.registerTenant(tenant, now);
    await this.catalog.ensureTenantCatalog(tenant, now);
    const role = o.role !== undefined ? { role: o.role } : {};
    await this.passwords.put(tokenId(password), { tenant, hash: sha256(password), description, createdAt: now, ...role });
    // The verifier pgwire's SCRAM-SHA-256 checks (only now is the password itself at hand).
    await this.passwords.putScram(tenant, tokenId(password), { ...scramVerifier(password, tenantSalt(tenant)), ...role });
    return password;
  }

  /** The tenant's SCRAM verifiers, for a pgwire login (read every time: a revoked password stops at once). */
  async scramVerifiers(tenant: string): Promise<{ tokenId: string; storedKey: string; serverKey: string; role?: string }[]> {
    if (!TENANT_RE.test(tenant)) return [];
    return this.passwords.listScram(tenant);
  }

  /** A cleartext password (pgwire): the tenant it belongs to, or AuthError. */
  async verifyPassword(password: string, tenant?: string): Promise<Principal> {
    return this.verify(`Bearer ${password}`).then((p) => {
      if (tenant !== undefined && p.tenant !== tenant) throw new AuthError('invalid app password');
      return p;
    });
  }

  /** Removes the password with this token id (a warm authorizer elsewhere may accept it until its cache entry expires). */
  async revoke(id: string): Promise<void> {
    await this.passwords.delete(id);
    this.cache.delete(id);
  }

  async verify(authorization: string | undefined): Promise<Principal> {
    const { password, tenant } = parseAuthorization(authorization);
    const id = tokenId(password);
    const item = await this.record(id);
    const given = Buffer.from(sha256(password), 'hex');
    const stored = Buffer.from(item?.hash ?? sha256(`absent:${password}`), 'hex');
    const ok = timingSafeEqual(given, stored) && item !== undefined;
    if (!ok) throw new AuthError('invalid app password');
    if (tenant !== undefined && tenant !== item.tenant) throw new AuthError('invalid app password');
    return { tenant: item.tenant, tokenId: id, ...(item.role !== undefined ? { role: item.role } : {}) };
  }
}
