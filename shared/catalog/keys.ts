/**
 * Sort-key layout of the single catalog table (DESIGN.md, data model). Names are user text and
 * go into keys, so every name part is escaped: `#`, `.` and `%` could otherwise make two different
 * names collide on one key.
 */
import { ATTENTION_SHARDS } from '../definitions';

export const tenantPk = (tenant: string) => `T#${tenant}`;
export const objSk = (id: string) => `OBJ#${id}`;
export const effSk = (txnId: string, seq: number) => `EFF#${txnId}#${String(seq).padStart(4, '0')}`;
export const txnSk = (txnId: string) => `TXN#${txnId}`;
export const statusSk = (id: string) => `STATUS#${id}`;
export const histSk = (id: string, at: string) => `HIST#${id}#${at}`;
export const idemSk = (key: string) => `IDEM#${key}`;

/**
 * The tenant's catalog version: every catalog commit moves it by one, in the same transaction. A
 * cached snapshot is current exactly while this item still holds its version.
 */
export const CATALOG_VERSION_SK = 'CATVER';

export const OBJ_PREFIX = 'OBJ#';
export const EFF_PREFIX = 'EFF#';
export const STATUS_PREFIX = 'STATUS#';

/** App passwords live outside any tenant's partition: looked up by their public id. */
export const authPk = (tokenId: string) => `AUTH#${tokenId}`;
export const AUTH_SK = 'AUTH';
export const TENANTS_PK = 'TENANTS';
export const tenantSk = (tenant: string) => `T#${tenant}`;

export function escapeKeyPart(s: string): string {
  return s.replace(/[%#.]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** Namespaces in which names must be unique, like Materialize's. */
export type NameSpace =
  | { readonly ns: 'cluster'; readonly name: string }
  | { readonly ns: 'replica'; readonly clusterId: string; readonly name: string }
  | { readonly ns: 'database'; readonly name: string }
  | { readonly ns: 'schema'; readonly databaseId: string; readonly name: string }
  /** Items (sources, tables, views, ...) share one namespace per schema; keyed by the schema's id so renames above don't move guards. */
  | { readonly ns: 'item'; readonly schemaId: string; readonly name: string };

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
  }
}

/** Which shard of the sparse attention index an item goes to (stable per key). */
export function attentionPk(key: string): string {
  let h = 0;
  for (let i = 0; i < key.length; i++) h = (h * 31 + key.charCodeAt(i)) | 0;
  return `ATTN#${Math.abs(h) % ATTENTION_SHARDS}`;
}
