/**
 * Sort-key layout of the single catalog table (DESIGN.md, data model). Names are user text and
 * go into keys, so every name part is escaped: `#`, `.` and `%` could otherwise make two different
 * names collide on one key.
 */
import { ATTENTION_SHARDS } from '../definitions';
import type { NameSpace } from './ops';

export type { NameSpace };

export const tenantPk = (tenant: string) => `T#${tenant}`;
export const objSk = (id: string) => `OBJ#${id}`;
export const effSk = (txnId: string, seq: number) => `EFF#${txnId}#${String(seq).padStart(4, '0')}`;
/** The sort-key prefix of every effect one transaction committed. */
export const effTxnPrefix = (txnId: string) => `EFF#${txnId}#`;
/**
 * The time part every transaction id starts with (base-36 milliseconds, fixed width), so the
 * outbox's `EFF#<txn>#<seq>` keys sort in commit order and a time bounds a key range.
 */
export const txnTimePart = (at: Date) => at.getTime().toString(36).padStart(9, '0');
/** Above every outbox record's sort key (`$` follows `#`): the upper end of an `EFF#` range. */
export const EFF_RANGE_END = 'EFF$';
export const txnSk = (txnId: string) => `TXN#${txnId}`;
/** The outbox record's sort key of an effect id (`<txn>-<seq>`, outbox-store.ts `effectItem`); undefined for anything else. */
export function effectSkOfId(effectId: string): string | undefined {
  const m = /^(.+)-(\d+)$/.exec(effectId);
  return m ? effSk(m[1]!, Number(m[2])) : undefined;
}
/** A tenant's admission item: the ids of its effects admitted to the queues (outbox-store.ts). */
export const ADMISSION_SK = 'ADMIT';
export const statusSk = (id: string) => `${STATUS_PREFIX}${id}`;
export const replicaStatusSk = (id: string) => `${REPLICA_STATUS_PREFIX}${id}`;
export const histSk = (id: string, at: string) => `${HIST_PREFIX}${id}#${at}`;
export const idemSk = (key: string) => `IDEM#${key}`;

/**
 * The tenant's catalog version: every catalog commit moves it by one, in the same transaction. A
 * cached snapshot is current exactly while this item still holds its version.
 */
export const CATALOG_VERSION_SK = 'CATVER';

export const OBJ_PREFIX = 'OBJ#';
export const EFF_PREFIX = 'EFF#';
export const TXN_PREFIX = 'TXN#';
/** Connector statuses only: one item type per prefix, so a prefix read never needs a type filter. */
export const STATUS_PREFIX = 'STATUS#';
/** Replica statuses (mz_cluster_replica_statuses). */
export const REPLICA_STATUS_PREFIX = 'RSTATUS#';
export const HIST_PREFIX = 'HIST#';

/** App passwords live outside any tenant's partition: looked up by their public id. */
export const authPk = (tokenId: string) => `AUTH#${tokenId}`;
export const AUTH_SK = 'AUTH';
/** A tenant's SCRAM verifiers (one item per password, sk = its token id): pgwire reads them all at once. */
export const scramPk = (tenant: string) => `AUTH#SCRAM#${tenant}`;
export const TENANTS_PK = 'TENANTS';
/** The data plane's liveness (shared/status/data-plane.ts): one item per deployment. */
export const DATA_PLANE_PK = 'DATAPLANE';
export const LIVENESS_SK = 'LIVENESS';
export const tenantSk = (tenant: string) => `T#${tenant}`;

export function escapeKeyPart(s: string): string {
  return s.replace(/[%#.]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

export function nameSk(n: NameSpace): string {
  switch (n.ns) {
    case 'cluster':
      return `NAME#cluster#${escapeKeyPart(n.name)}`;
    case 'replica':
      return `NAME#replica#${n.clusterId}#${escapeKeyPart(n.name)}`;
    case 'database':
      return `NAME#database#${escapeKeyPart(n.name)}`;
    case 'schema':
      return `NAME#schema#${n.databaseId}#${escapeKeyPart(n.name)}`;
    case 'item':
      return `NAME#item#${n.schemaId}#${escapeKeyPart(n.name)}`;
    case 'role':
      return `NAME#role#${escapeKeyPart(n.name)}`;
    case 'network_policy':
      return `NAME#netpol#${escapeKeyPart(n.name)}`;
    case 'system_parameter':
      return `NAME#sysparam#${escapeKeyPart(n.name)}`;
  }
}

/** The partition key of one shard of the sparse attention index. */
export const attentionShardPk = (shard: number) => `ATTN#${shard}`;

/** Which shard of the sparse attention index an item goes to (stable per key). */
export function attentionPk(key: string): string {
  let h = 0;
  for (let i = 0; i < key.length; i++) h = (h * 31 + key.charCodeAt(i)) | 0;
  return attentionShardPk(Math.abs(h) % ATTENTION_SHARDS);
}

/**
 * Sort-key prefix of connector deadlines on the attention index: after every ISO date, so the
 * scan of pending effects and locks (keyed by their date) never reads them.
 */
export const DEADLINE_PREFIX = 'D#';

/**
 * An item's entry on the sparse attention index: sharded by its key, sorted by `from` (an ISO
 * date for effects and locks, `D#<due date>` for a connector deadline).
 */
export function attentionKeys(tenant: string, sk: string, from: string): { attnPk: string; attnSk: string } {
  return { attnPk: attentionPk(`${tenant}#${sk}`), attnSk: `${from}#${tenant}#${sk}` };
}
