/**
 * Roles, memberships and privileges as Materialize has them, over a catalog view. Pure.
 *
 * Every tenant is one Materialize environment. An app password acts as the role it was made for, or
 * as `materialize` (id `u1`, the one user role a fresh environment has) with superuser rights
 * (the planner's Actor). The built-in roles are not
 * stored: `mz_system`, `mz_support`, `mz_analytics` (system, `s1`..`s3`), `mz_monitor` and
 * `mz_monitor_redacted` (predefined, `g1`, `g2`) and the pseudo-role PUBLIC (`p`). Roles made by
 * CREATE ROLE are catalog objects, and so are memberships and default privileges, so that the
 * built-in roles, which are never written, can be members and targets all the same.
 *
 * Acting as a non-superuser (a password made for a role, or the planner's default, `materialize`
 * as in Materialize's own tests, holding every system privilege once mz_system has granted them):
 * what only a superuser may do (ALTER DEFAULT PRIVILEGES FOR ALL ROLES, GRANT ... ON SYSTEM) is
 * refused, ownership and role membership are checked (`must be owner of ...`, `must be a member of
 * ...`). A superuser passes those checks. Object privileges are kept and shown but not enforced:
 * rows are the data plane's.
 */
import { isItemKind, type AclItem, type CatalogObject, type CatalogSnapshot, type ItemSpecBase, type ObjectOf, type PrivilegeObjectType } from '../catalog/model';
import type { PlanError } from '../errors';
import { mz } from '../mz-errors';
import type { Privilege, PrivilegeSpec } from '../sql/ast';
import { RESERVED_PREFIXES } from './names';

export const MATERIALIZE_ROLE_ID = 'u1';
export const MZ_SYSTEM_ROLE_ID = 's1';
export const PUBLIC_ROLE_ID = 'p';

/**
 * The role a statement acts as (its session's), and whether it is a superuser, who passes every
 * ownership, membership and superuser-only check (Materialize's rbac filter_requirements). An app
 * password acts as the role it was made for, or as materialize with superuser rights
 * (shared/auth/app-passwords.ts, actorOf).
 */
export interface Actor {
  readonly id: string;
  readonly name: string;
  readonly superuser: boolean;
}

/** materialize without superuser rights: what the planner acts as when it is told nothing else. */
export const MATERIALIZE_ACTOR: Actor = { id: MATERIALIZE_ROLE_ID, name: 'materialize', superuser: false };

/** The actor of a role name, or undefined when no such role exists (it was dropped since the password was made). */
export function actorNamed(view: CatalogSnapshot, name: string, superuser: boolean): Actor | undefined {
  const r = findRole(view, name);
  return r ? { id: r.id, name: r.name, superuser } : undefined;
}

/** A role as the planner sees it, stored or built in. */
export interface Role {
  readonly id: string;
  readonly name: string;
  /** `system` and `predefined` roles are Materialize's own; `public` is PUBLIC; absent for user roles (materialize included). */
  readonly builtin?: 'system' | 'predefined' | 'public';
}

/** The built-in roles, in mz_roles' order (PUBLIC is not a row of mz_roles). */
export const BUILTIN_ROLES: readonly Role[] = [
  { id: 's1', name: 'mz_system', builtin: 'system' },
  { id: 's2', name: 'mz_support', builtin: 'system' },
  { id: 's3', name: 'mz_analytics', builtin: 'system' },
  { id: 'g1', name: 'mz_monitor', builtin: 'predefined' },
  { id: 'g2', name: 'mz_monitor_redacted', builtin: 'predefined' },
  { id: MATERIALIZE_ROLE_ID, name: 'materialize' },
  { id: PUBLIC_ROLE_ID, name: 'public', builtin: 'public' },
];
const BUILTIN_BY_NAME = new Map(BUILTIN_ROLES.map((r) => [r.name, r]));
const BUILTIN_BY_ID = new Map(BUILTIN_ROLES.map((r) => [r.id, r]));

export const isBuiltinRoleId = (id: string): boolean => BUILTIN_BY_ID.has(id);

export function findRole(view: CatalogSnapshot, name: string): Role | undefined {
  const builtin = BUILTIN_BY_NAME.get(name);
  if (builtin) return builtin;
  const o = view.role(name);
  return o ? { id: o.id, name: o.name } : undefined;
}

export function roleById(view: CatalogSnapshot, id: string): Role | undefined {
  const builtin = BUILTIN_BY_ID.get(id);
  if (builtin) return builtin;
  const o = view.get(id);
  return o?.kind === 'role' ? { id: o.id, name: o.name } : undefined;
}

export function resolveRole(view: CatalogSnapshot, name: string, position: number): Role {
  const r = findRole(view, name);
  if (!r) throw mz.UnknownRole(name).at(position);
  return r;
}

/** Names Materialize keeps for its own roles (its `is_reserved_role_name`). */
export function isReservedRoleName(name: string): boolean {
  return name === 'public' || RESERVED_PREFIXES.some((p) => name.startsWith(p));
}

export function reservedRole(name: string, position: number): PlanError {
  return mz.ReservedRoleName(name).at(position);
}

/** The role that owns `o`: a role id it was given, or materialize for what a principal created. */
export function ownerOf(view: CatalogSnapshot, o: CatalogObject): string {
  return roleById(view, o.owner) ? o.owner : MATERIALIZE_ROLE_ID;
}

/** Every stored membership (`GRANT role TO member`). */
export function memberships(view: CatalogSnapshot): ObjectOf<'role_membership'>[] {
  return view.ofKind('role_membership');
}

/** The roles `roleId` is a member of, transitively, itself and PUBLIC included (Materialize's collect_role_membership). */
export function roleMembership(view: CatalogSnapshot, roleId: string): Set<string> {
  const byMember = new Map<string, string[]>();
  for (const m of memberships(view)) byMember.set(m.spec.memberId, [...(byMember.get(m.spec.memberId) ?? []), m.spec.roleId]);
  const out = new Set<string>();
  const queue = [roleId];
  while (queue.length) {
    const id = queue.shift()!;
    if (out.has(id)) continue;
    out.add(id);
    queue.push(...(byMember.get(id) ?? []));
  }
  out.add(PUBLIC_ROLE_ID);
  return out;
}

// ---- privileges -------------------------------------------------------------------------------

/** ACL letters in Materialize's (and PostgreSQL's) order, with the privilege each stands for. */
const LETTERS: readonly (readonly [string, Privilege])[] = [
  ['a', 'INSERT'], ['r', 'SELECT'], ['w', 'UPDATE'], ['d', 'DELETE'], ['U', 'USAGE'], ['C', 'CREATE'], ['R', 'CREATEROLE'], ['B', 'CREATEDB'],
  ['N', 'CREATECLUSTER'], ['P', 'CREATENETWORKPOLICY'],
];
/** The order error messages list privileges in (Materialize's `explode`). */
const MESSAGE_ORDER: readonly Privilege[] = ['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'USAGE', 'CREATE', 'CREATEROLE', 'CREATEDB', 'CREATECLUSTER', 'CREATENETWORKPOLICY'];

const letterOf = (p: Privilege) => LETTERS.find(([, q]) => q === p)![0];
/** Letters in canonical order, each once. */
export const normalize = (letters: string): string => LETTERS.map(([l]) => l).filter((l) => letters.includes(l)).join('');
export const union = (a: string, b: string): string => normalize(a + b);
export const minus = (a: string, b: string): string => normalize([...a].filter((l) => !b.includes(l)).join(''));
export const intersect = (a: string, b: string): string => normalize([...a].filter((l) => b.includes(l)).join(''));
/** `SELECT, INSERT` for messages. */
export const privilegeNames = (letters: string): string => MESSAGE_ORDER.filter((p) => letters.includes(letterOf(p))).join(', ');

/** What an object's privilege type is, in Materialize's words (ObjectType's Display). */
export type PrivilegeSubject = 'TABLE' | 'VIEW' | 'MATERIALIZED VIEW' | 'SOURCE' | 'TYPE' | 'SECRET' | 'CONNECTION' | 'CLUSTER' | 'DATABASE' | 'SCHEMA' | 'SYSTEM';

/** Every privilege an object type has (Materialize's `all_object_privileges`). */
export const ALL_PRIVILEGES: Readonly<Record<PrivilegeSubject, string>> = {
  TABLE: 'arwd',
  VIEW: 'r',
  'MATERIALIZED VIEW': 'r',
  SOURCE: 'r',
  TYPE: 'U',
  SECRET: 'U',
  CONNECTION: 'U',
  CLUSTER: 'UC',
  DATABASE: 'UC',
  SCHEMA: 'UC',
  SYSTEM: 'RBNP',
};

export function lettersOf(spec: PrivilegeSpec, subject: PrivilegeSubject): string {
  return spec.kind === 'all' ? ALL_PRIVILEGES[subject] : normalize(spec.privileges.map(letterOf).join(''));
}

/** The privilege subject of an object; undefined for the kinds that have no privileges (sinks, indexes, replicas, roles). */
export function subjectOf(o: CatalogObject): PrivilegeSubject | undefined {
  switch (o.kind) {
    case 'table':
      return 'TABLE';
    case 'view':
      return 'VIEW';
    case 'materialized_view':
      return 'MATERIALIZED VIEW';
    case 'source':
    case 'subsource':
      return 'SOURCE';
    case 'type':
      return 'TYPE';
    case 'secret':
      return 'SECRET';
    case 'connection':
      return 'CONNECTION';
    case 'cluster':
      return 'CLUSTER';
    case 'database':
      return 'DATABASE';
    case 'schema':
      return 'SCHEMA';
    default:
      return undefined;
  }
}

/** The default-privilege object type an object falls under: relations are all tables. */
export function privilegeObjectType(subject: PrivilegeSubject): PrivilegeObjectType | undefined {
  switch (subject) {
    case 'TABLE':
    case 'VIEW':
    case 'MATERIALIZED VIEW':
    case 'SOURCE':
      return 'table';
    case 'SYSTEM':
      return undefined;
    default:
      return subject.toLowerCase() as PrivilegeObjectType;
  }
}

/** Materialize's built-in default privileges (the rows a fresh mz_default_privileges shows): PUBLIC uses types, mz_support sees schemas, clusters, databases. */
export const BUILTIN_DEFAULT_PRIVILEGES: readonly { readonly objectType: PrivilegeObjectType; readonly grantee: string; readonly privileges: string }[] = [
  { objectType: 'type', grantee: PUBLIC_ROLE_ID, privileges: 'U' },
  { objectType: 'schema', grantee: 's2', privileges: 'U' },
  { objectType: 'cluster', grantee: 's2', privileges: 'U' },
  { objectType: 'database', grantee: 's2', privileges: 'U' },
];

/** The database and schema an object lives in, for default privileges (none for clusters and databases). */
function placeOf(view: CatalogSnapshot, o: CatalogObject): { databaseId?: string; schemaId?: string } {
  if (o.kind === 'schema') return { databaseId: o.spec.databaseId };
  if (isItemKind(o.kind)) {
    const schemaId = (o.spec as ItemSpecBase).schemaId;
    const schema = view.get(schemaId) as ObjectOf<'schema'> | undefined;
    return { ...(schema ? { databaseId: schema.spec.databaseId } : {}), schemaId };
  }
  return {};
}

/**
 * The ACL an object gets when `ownerId` creates it: the owner's own privileges, then what the
 * built-in and stored default privileges give (Materialize's get_applicable_privileges, limited to
 * what the object's type has), consolidated per grantee.
 */
export function initialAcl(view: CatalogSnapshot, o: CatalogObject, ownerId: string, withStored = true): AclItem[] {
  const subject = subjectOf(o);
  if (!subject) return [];
  const all = ALL_PRIVILEGES[subject];
  const type = privilegeObjectType(subject);
  const grants = new Map<string, string>();
  const add = (grantee: string, letters: string) => {
    const l = intersect(letters, all);
    if (l) grants.set(grantee, union(grants.get(grantee) ?? '', l));
  };
  for (const d of BUILTIN_DEFAULT_PRIVILEGES) if (d.objectType === type) add(d.grantee, d.privileges);
  if (withStored) {
    const { databaseId, schemaId } = placeOf(view, o);
    for (const d of view.ofKind('default_privilege')) {
      const x = d.spec;
      if (x.objectType !== type || (x.roleId !== ownerId && x.roleId !== PUBLIC_ROLE_ID)) continue;
      if (x.databaseId !== undefined && x.databaseId !== databaseId) continue;
      if (x.schemaId !== undefined && x.schemaId !== schemaId) continue;
      add(x.grantee, x.privileges);
    }
  }
  const acl: AclItem[] = [{ grantee: ownerId, grantor: ownerId, privileges: all }];
  for (const [grantee, privileges] of grants) {
    if (grantee === ownerId) acl[0] = { ...acl[0]!, privileges: union(acl[0]!.privileges, privileges) };
    else acl.push({ grantee, grantor: ownerId, privileges });
  }
  return acl;
}

/** An object's ACL as it stands: what GRANT and REVOKE left, else what it got at creation without stored defaults. */
export function aclOf(view: CatalogSnapshot, o: CatalogObject): readonly AclItem[] {
  return o.privileges ?? initialAcl(view, o, ownerOf(view, o), false);
}

/** `grantee=letters/grantor`, with role ids as mz_aclitem prints (PUBLIC is empty). */
export function aclItemText(a: AclItem): string {
  return `${a.grantee === PUBLIC_ROLE_ID ? '' : a.grantee}=${a.privileges}/${a.grantor}`;
}

/** A PostgreSQL array literal of an ACL (`{u1=UC/u1,s2=U/u1}`), as mz_aclitem[] reads as text. */
export function aclText(acl: readonly AclItem[]): string {
  return `{${acl.map(aclItemText).join(',')}}`;
}

/** Adds `letters` for (grantee, grantor) to an ACL; removes what REVOKE takes away. */
export function grantAcl(acl: readonly AclItem[], grantee: string, grantor: string, letters: string): AclItem[] {
  const i = acl.findIndex((a) => a.grantee === grantee && a.grantor === grantor);
  if (i < 0) return [...acl, { grantee, grantor, privileges: letters }];
  return acl.map((a, k) => (k === i ? { ...a, privileges: union(a.privileges, letters) } : a));
}
export function revokeAcl(acl: readonly AclItem[], grantee: string, grantor: string, letters: string): AclItem[] {
  return acl.flatMap((a) => {
    if (a.grantee !== grantee || a.grantor !== grantor) return [a];
    const left = minus(a.privileges, letters);
    return left ? [{ ...a, privileges: left }] : [];
  });
}

/**
 * An ACL after its object changed owner (Materialize's update_privilege_owners): what the old owner
 * granted is granted by the new one, what it held the new one holds, duplicates merged.
 */
export function transferAcl(acl: readonly AclItem[], oldOwner: string, newOwner: string): AclItem[] {
  const moved = acl.map((a) => ({ grantee: a.grantee === oldOwner ? newOwner : a.grantee, grantor: a.grantor === oldOwner ? newOwner : a.grantor, privileges: a.privileges }));
  const out: AclItem[] = [];
  for (const a of moved) {
    const same = out.find((b) => b.grantee === a.grantee && b.grantor === a.grantor);
    if (same) out[out.indexOf(same)] = { ...same, privileges: union(same.privileges, a.privileges) };
    else out.push(a);
  }
  return out;
}
