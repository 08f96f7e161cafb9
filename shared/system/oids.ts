/**
 * Object identifiers (OIDs) for pg_catalog and the `oid` columns of mz_catalog. Materialize
 * assigns every object an OID at creation; the catalog here keeps none, so they are derived from
 * object ids: a hash of the id into the user range (from 20 000, as Materialize's user OIDs), the
 * same in every process and for every version of the catalog. Two ids that hash alike are told
 * apart in id order (the later one takes the next free OID), so an OID is unique within a catalog
 * and stays the same while the objects around it live. Pure.
 */
import type { CatalogSnapshot } from '../catalog/model';
import { BUILTIN_ROLES } from '../planner/roles';

/** Materialize's first user OID. */
export const FIRST_USER_OID = 20_000;
const RANGE = 2_000_000_000;

/** PostgreSQL's OIDs of the catalogs that pg_description.classoid and pg_depend name. */
export const CLASS_OID = { pg_class: 1259, pg_namespace: 2615, pg_database: 1262, pg_type: 1247, pg_proc: 1255, pg_authid: 1260, pg_constraint: 2606 } as const;

/** The system schemas a catalog shows beside the user's (no database: they are in every one), with Materialize's ids; pg_catalog's OID is PostgreSQL's own. */
export const SYSTEM_SCHEMAS: readonly { readonly name: string; readonly id: string; readonly oid: number }[] = [
  { name: 'mz_catalog', id: 's1', oid: 16_384 },
  { name: 'pg_catalog', id: 's2', oid: 11 },
  { name: 'mz_internal', id: 's4', oid: 16_385 },
  { name: 'information_schema', id: 's5', oid: 16_386 },
  { name: 'mz_unsafe', id: 's6', oid: 16_388 },
  { name: 'mz_catalog_unstable', id: 's7', oid: 16_389 },
  { name: 'mz_introspection', id: 's8', oid: 16_387 },
];

export const SYSTEM_SCHEMA_OIDS: Readonly<Record<string, number>> = Object.fromEntries(SYSTEM_SCHEMAS.map((s) => [s.name, s.oid]));

/** The built-in roles' OIDs (Materialize's system roles sit below the user range). */
const BUILTIN_ROLE_OIDS: ReadonlyMap<string, number> = new Map(BUILTIN_ROLES.map((r, k) => [r.id, r.id === 'p' ? 0 : 16_600 + k]));

function hash(id: string): number {
  // FNV-1a, 32 bits: stable, and spreads ids that differ in one character.
  let h = 0x811c9dc5;
  for (let k = 0; k < id.length; k++) {
    h ^= id.charCodeAt(k);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return FIRST_USER_OID + (h % RANGE);
}

export interface Oids {
  /** The OID of a catalog object or built-in role by id; undefined for an unknown id. */
  of(id: string): number | undefined;
  /** The id an OID belongs to. */
  idOf(oid: number): string | undefined;
}

const cache = new WeakMap<CatalogSnapshot, Oids>();

export function oidsOf(snapshot: CatalogSnapshot): Oids {
  const hit = cache.get(snapshot);
  if (hit) return hit;
  // System schemas are not looked up here: their ids (s1, s2, ...) are the built-in roles' too
  // (Materialize keeps the two kinds of id apart), and their OIDs are fixed (SYSTEM_SCHEMA_OIDS).
  const byId = new Map<string, number>(BUILTIN_ROLE_OIDS);
  const used = new Map<number, string>([...byId].map(([id, oid]) => [oid, id]));
  const ids = snapshot.all().map((o) => o.id).filter((id) => !byId.has(id)).sort();
  for (const id of ids) {
    let oid = hash(id);
    while (used.has(oid)) oid = oid + 1 >= FIRST_USER_OID + RANGE ? FIRST_USER_OID : oid + 1;
    used.set(oid, id);
    byId.set(id, oid);
  }
  const oids: Oids = { of: (id) => byId.get(id), idOf: (oid) => used.get(oid) };
  cache.set(snapshot, oids);
  return oids;
}
