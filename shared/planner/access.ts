/**
 * Planning of roles and privileges: CREATE / ALTER / DROP ROLE, GRANT and REVOKE (of roles and of
 * privileges), ALTER DEFAULT PRIVILEGES, REASSIGN OWNED and the checks of ALTER ... OWNER TO, with
 * Materialize's order of checks and its messages (shared/planner/roles.ts has the model). Catalog
 * only: nothing here reaches the data plane. Pure.
 *
 * Races with DROP ROLE (invariant 5): a membership or default privilege depends on the stored
 * roles it names, so a role that gains one changes its dependents counter; a privilege granted
 * to a role, or an object given to it, touches the role, so the drop, conditioned on the role's
 * version, replans and sees it.
 */
import type { AclItem, CatalogObject, CatalogSnapshot, ItemObject, ObjectKind, ObjectOf, ObjectSpec, PrivilegeObjectType } from '../catalog/model';
import { NotSupportedError, PlanError, SQLSTATE } from '../errors';
import type { GrantIn, GrantObjectType, ObjectName, RoleAttribute, Statement } from '../sql/ast';
import { KINDS_OF_TYPE, RELATION_KINDS, findItem, resolveSchema, unknownCluster, unknownDatabase, unknownItem, validateName } from './names';
import {
  ALL_PRIVILEGES,
  MATERIALIZE_ACTOR,
  type Actor,
  MZ_SYSTEM_ROLE_ID,
  PUBLIC_ROLE_ID,
  aclOf,
  findRole,
  grantAcl,
  initialAcl,
  intersect,
  isReservedRoleName,
  lettersOf,
  memberships,
  minus,
  ownerOf,
  privilegeNames,
  reservedRole,
  resolveRole,
  revokeAcl,
  roleById,
  roleMembership,
  subjectOf,
  transferAcl,
  union,
  type PrivilegeSubject,
  type Role,
} from './roles';
import type { Workspace } from './workspace';

type S<K extends Statement['kind']> = Extract<Statement, { kind: K }>;
type NewObject = <K extends ObjectKind>(kind: K, name: string, dependsOn: readonly string[], spec: ObjectSpec[K]) => ObjectOf<K>;
export interface Written {
  readonly tag: string;
  readonly notices: readonly string[];
}

const SYSTEM_SCHEMAS = new Set(['mz_catalog', 'mz_catalog_unstable', 'mz_internal', 'mz_introspection', 'mz_unsafe', 'pg_catalog', 'information_schema']);
const DOCS = 'https://materialize.com/docs/sql/create-role/#details';

const insufficient = (message: string, position: number, detail?: string) =>
  new PlanError(message, { code: SQLSTATE.insufficientPrivilege, position, ...(detail ? { detail } : {}) });
/** Materialize's refusal of what only a superuser may do. */
export const superuserOnly = (action: string, position: number) => insufficient(`permission denied to ${action}`, position, `You must be a superuser to ${action}`);

/** What an object is called in Materialize's messages: `TABLE "materialize.public.t"`, `CLUSTER "c"`. */
export function describe(view: CatalogSnapshot, o: CatalogObject, quoted = true): string {
  const type = TYPE_WORD[o.kind];
  const name = view.qualifiedName(o).join('.');
  return `${type} ${quoted ? `"${name}"` : name}`;
}
const TYPE_WORD: Readonly<Record<ObjectKind, string>> = {
  database: 'DATABASE',
  schema: 'SCHEMA',
  cluster: 'CLUSTER',
  cluster_replica: 'CLUSTER REPLICA',
  secret: 'SECRET',
  connection: 'CONNECTION',
  source: 'SOURCE',
  subsource: 'SOURCE',
  sink: 'SINK',
  table: 'TABLE',
  view: 'VIEW',
  materialized_view: 'MATERIALIZED VIEW',
  index: 'INDEX',
  type: 'TYPE',
  role: 'ROLE',
  role_membership: 'ROLE MEMBERSHIP',
  default_privilege: 'DEFAULT PRIVILEGE',
};

/** The roles a statement acts as: its actor's and what it is a member of. */
function current(view: CatalogSnapshot, actor: Actor): Set<string> {
  return roleMembership(view, actor.id);
}

/** `must be owner of TABLE materialize.public.t` unless the actor holds the object's owner (or is a superuser). */
export function requireOwner(view: CatalogSnapshot, o: CatalogObject, position: number, actor: Actor = MATERIALIZE_ACTOR): void {
  if (actor.superuser) return;
  if (!current(view, actor).has(ownerOf(view, o))) throw insufficient(`must be owner of ${describe(view, o, false)}`, position);
}

/** `must be a member of "r"` for every role the actor is not a member of (a superuser is a member of all). */
function requireMembership(view: CatalogSnapshot, roleIds: readonly string[], position: number, actor: Actor): void {
  if (actor.superuser) return;
  const held = current(view, actor);
  const missing = [...new Set(roleIds)].filter((id) => !held.has(id));
  if (missing.length) throw insufficient(`must be a member of ${missing.map((id) => `"${roleById(view, id)?.name ?? id}"`).join(', ')}`, position);
}

/** Built-in roles may not be members or targets (Materialize's ensure_not_reserved_role). */
function ensureNotReserved(r: Role, position: number): void {
  if (r.builtin) throw reservedRole(r.name, position);
}
/** mz_system and the predefined roles hold no privileges one can grant (ensure_not_system_role / _predefined_role). */
function ensureNotSystem(r: Role, position: number): void {
  if (r.builtin === 'system' || r.builtin === 'predefined') {
    throw new PlanError(`role name "${r.name}" is reserved`, { code: SQLSTATE.reservedName, position, hint: 'The role prefixes "mz_" and "pg_" are reserved for system roles.' });
  }
}

/** The stored roles among `ids` (what a membership or default privilege depends on). */
function stored(view: CatalogSnapshot, ids: readonly string[]): string[] {
  return ids.filter((id) => view.get(id)?.kind === 'role');
}

interface PlannedAttributes {
  superuser?: boolean;
  login?: boolean;
  password?: boolean;
}

/** Materialize's plan_role_attributes, in its order and words. */
function planAttributes(attributes: readonly RoleAttribute[], position: number): PlannedAttributes {
  const out: PlannedAttributes = {};
  let inherit: boolean | undefined;
  const conflicting = () => new PlanError('conflicting or redundant options', { code: SQLSTATE.syntaxError, position });
  const never = (what: string) =>
    new NotSupportedError(`${what} attribute is not supported, for more information consult the documentation at ${DOCS}`, { position, hint: 'Use system privileges instead.' });
  for (const a of attributes) {
    switch (a.kind) {
      case 'INHERIT':
      case 'NOINHERIT':
        if (inherit !== undefined) throw conflicting();
        inherit = a.kind === 'INHERIT';
        break;
      case 'CREATECLUSTER':
      case 'NOCREATECLUSTER':
        throw never('CREATECLUSTER');
      case 'CREATEDB':
      case 'NOCREATEDB':
        throw never('CREATEDB');
      case 'CREATEROLE':
      case 'NOCREATEROLE':
        throw never('CREATEROLE');
      case 'PASSWORD':
        if (out.password !== undefined) throw conflicting();
        out.password = true;
        break;
      case 'SUPERUSER':
      case 'NOSUPERUSER':
        if (out.superuser !== undefined && out.superuser !== (a.kind === 'SUPERUSER')) throw conflicting();
        out.superuser = a.kind === 'SUPERUSER';
        break;
      case 'LOGIN':
      case 'NOLOGIN':
        if (out.login !== undefined && out.login !== (a.kind === 'LOGIN')) throw conflicting();
        out.login = a.kind === 'LOGIN';
        break;
    }
  }
  if (inherit === false) throw new NotSupportedError('non inherit roles not yet supported', { position });
  return out;
}

/** Logins are app passwords here: Materialize's answer where password authentication is off. */
function refuseLoginAttributes(a: PlannedAttributes, position: number): void {
  if (a.superuser !== undefined || a.password !== undefined || a.login !== undefined) {
    throw new NotSupportedError(`SUPERUSER, PASSWORD, and LOGIN attributes is not supported in this environment. For more information consult the documentation at ${DOCS}`, {
      position,
      hint: 'Callers authenticate with app passwords (ddlctl password create [--role r]), which act as their role.',
    });
  }
}

/** A privilege target: an object, or the whole system. */
type Target = { readonly kind: 'system' } | { readonly kind: 'object'; readonly object: CatalogObject; readonly subject: PrivilegeSubject };

export class AccessPlanner {
  constructor(
    private readonly ws: Workspace,
    private readonly newObject: NewObject,
    private readonly actor: Actor = MATERIALIZE_ACTOR,
  ) {}

  /** Materialize's refusal of what only a superuser may do, unless the actor is one. */
  private superuserOnly(action: string, position: number): void {
    if (!this.actor.superuser) throw superuserOnly(action, position);
  }

  private view(): CatalogSnapshot {
    return this.ws.view();
  }

  createRole(s: S<'create_role'>, at: number): Written {
    const attributes = planAttributes(s.attributes, at);
    if (attributes.superuser) this.superuserOnly('create superuser role', at);
    refuseLoginAttributes(attributes, at);
    if (isReservedRoleName(s.name)) throw reservedRole(s.name, at);
    validateName(s.name, at, 'role');
    if (findRole(this.view(), s.name)) throw new PlanError(`role '${s.name}' already exists`, { code: SQLSTATE.duplicateRole, position: at });
    this.ws.create(this.newObject('role', s.name, [], { inherit: true }));
    return { tag: 'CREATE ROLE', notices: [] };
  }

  alterRole(s: S<'alter_role'>, at: number): Written {
    const role = resolveRole(this.view(), s.name, at);
    if (s.action.kind !== 'attributes') {
      throw new NotSupportedError(`ALTER ROLE ... ${s.action.kind.toUpperCase()} is not supported by this control plane`, {
        position: at,
        hint: 'Role variables are session defaults, and the HTTP API has no session: set them on the data plane.',
      });
    }
    const attributes = planAttributes(s.action.attributes, at);
    if (attributes.superuser !== undefined) this.superuserOnly('alter superuser role', at);
    refuseLoginAttributes(attributes, at);
    if (role.builtin) throw reservedRole(role.name, at);
    // Every role inherits, so the only attribute left (INHERIT) changes nothing.
    return { tag: 'ALTER ROLE', notices: [] };
  }

  dropRole(s: S<'drop_role'>, at: number): Written {
    const view = this.view();
    const notices: string[] = [];
    const dropped = new Map<string, Role>();
    for (const name of s.names) {
      const r = findRole(view, name);
      if (!r) {
        if (!s.ifExists) resolveRole(view, name, at);
        notices.push(`role "${name}" does not exist, skipping`);
        continue;
      }
      if (r.id === this.actor.id) throw new PlanError('current role cannot be dropped', { code: SQLSTATE.objectInUse, position: at });
      dropped.set(r.id, r);
    }
    for (const r of dropped.values()) ensureNotReserved(r, at);
    this.checkNothingDependsOn([...dropped.values()], at);
    // Memberships in or of a dropped role go with it (Materialize revokes them).
    for (const m of memberships(view)) if (dropped.has(m.spec.roleId) || dropped.has(m.spec.memberId)) this.ws.drop(m.id);
    for (const id of dropped.keys()) this.ws.drop(id);
    return { tag: 'DROP ROLE', notices };
  }

  /** Materialize's validate_dropped_role_ownership: owned objects, privileges and default privileges keep a role. */
  private checkNothingDependsOn(roles: readonly Role[], at: number): void {
    const view = this.view();
    const byId = new Map(roles.map((r) => [r.id, r]));
    const reasons = new Map<string, string[]>();
    const add = (roleId: string, reason: string) => {
      const name = byId.get(roleId)!.name;
      reasons.set(name, [...(reasons.get(name) ?? []), reason]);
    };
    const nameOf = (id: string) => roleById(view, id)?.name ?? id;
    for (const o of view.all()) {
      if (o.kind === 'role' || o.kind === 'role_membership') continue;
      if (o.kind === 'default_privilege') {
        const x = o.spec;
        if (byId.has(x.roleId)) add(x.roleId, `default privileges on ${x.objectType.toUpperCase()}S created by ${nameOf(x.roleId)}`);
        if (byId.has(x.grantee)) add(x.grantee, `default privileges on ${x.objectType.toUpperCase()}S granted to ${nameOf(x.grantee)}`);
        continue;
      }
      if (byId.has(o.owner)) add(o.owner, `owner of ${describe(view, o)}`);
      if (!subjectOf(o)) continue;
      for (const a of aclOf(view, o)) {
        if (a.grantee === a.grantor && a.grantee === ownerOf(view, o)) continue;
        if (byId.has(a.grantee)) add(a.grantee, `privileges on ${describe(view, o)} granted by ${nameOf(a.grantor)}`);
        if (byId.has(a.grantor)) add(a.grantor, `privileges granted on ${describe(view, o)} to ${nameOf(a.grantee)}`);
      }
    }
    if (reasons.size === 0) return;
    const names = [...reasons.keys()].sort();
    throw new PlanError(`${names.length === 1 ? 'role' : 'roles'} "${names.join(', ')}" cannot be dropped because some objects depend on it`, {
      code: SQLSTATE.dependentObjectsStillExist,
      position: at,
      detail: names.flatMap((n) => reasons.get(n)!.map((r) => `${n}: ${r}`)).join('\n'),
    });
  }

  grantOrRevokeRole(s: S<'grant_role' | 'revoke_role'>, at: number): Written {
    const grant = s.kind === 'grant_role';
    const roles = s.roles.map((n) => resolveRole(this.view(), n, at));
    const members = s.members.map((n) => resolveRole(this.view(), n, at));
    const notices: string[] = [];
    for (const role of roles) {
      for (const member of members) {
        const view = this.view();
        const existing = memberships(view).find((m) => m.spec.roleId === role.id && m.spec.memberId === member.id);
        ensureNotReserved(member, at);
        if (role.builtin === 'public' || role.builtin === 'system') {
          throw new PlanError(`role name "${role.name}" cannot be granted`, { code: SQLSTATE.invalidGrantOperation, position: at });
        }
        if (grant) {
          if (existing) {
            notices.push(`role "${member.name}" is already a member of role "${role.name}"`);
            continue;
          }
          if (roleMembership(view, role.id).has(member.id)) {
            throw new PlanError(`role "${role.name}" is a member of role "${member.name}"`, { code: SQLSTATE.invalidGrantOperation, position: at });
          }
          // Materialize has no ADMIN OPTION, so mz_system grants every membership.
          this.ws.create(this.newObject('role_membership', '', stored(view, [role.id, member.id]), { roleId: role.id, memberId: member.id, grantorId: MZ_SYSTEM_ROLE_ID }));
        } else if (existing) {
          this.ws.drop(existing.id);
        } else {
          notices.push(`role "${member.name}" is not a member of role "${role.name}"`);
        }
      }
    }
    return { tag: grant ? 'GRANT ROLE' : 'REVOKE ROLE', notices };
  }

  grantOrRevokePrivileges(s: S<'grant_privileges' | 'revoke_privileges'>, at: number): Written {
    const grant = s.kind === 'grant_privileges';
    const view = this.view();
    const grantees = s.roles.map((n) => resolveRole(view, n, at));
    const targets = this.targets(s.target, at);
    const planned: { target: Target; letters: string; grantor: string }[] = [];
    for (const t of targets) {
      const actual = t.kind === 'system' ? 'SYSTEM' : t.subject;
      const letters = lettersOf(s.privileges, actual);
      // Privileges on views, materialized views and sources are granted as on tables (PostgreSQL's semantics).
      const reference = t.kind === 'object' && s.target.kind !== 'system' && s.target.objectType === 'table' ? 'TABLE' : actual;
      const invalid = minus(letters, ALL_PRIVILEGES[reference]);
      if (invalid) {
        throw new PlanError(`invalid privilege types ${privilegeNames(invalid)} for ${t.kind === 'system' ? 'SYSTEM' : describe(view, t.object)}`, { code: SQLSTATE.invalidGrantOperation, position: at });
      }
      planned.push({ target: t, letters, grantor: t.kind === 'system' ? MZ_SYSTEM_ROLE_ID : ownerOf(view, t.object) });
    }
    for (const p of planned) if (p.target.kind === 'object') requireOwner(view, p.target.object, at, this.actor);
    if (planned.some((p) => p.target.kind === 'system')) this.superuserOnly('GRANT/REVOKE SYSTEM PRIVILEGES', at);
    const notices: string[] = [];
    for (const { target, letters, grantor } of planned) {
      if (target.kind !== 'object') continue;
      const o = target.object;
      const nonApplicable = minus(letters, ALL_PRIVILEGES[target.subject]);
      if (grant && nonApplicable) notices.push(`non-applicable privilege types ${privilegeNames(nonApplicable)} for ${describe(view, o)}`);
      let acl: readonly AclItem[] = aclOf(this.view(), this.ws.get(o.id) ?? o);
      for (const g of grantees) {
        ensureNotSystem(g, at);
        const held = acl.find((a) => a.grantee === g.id && a.grantor === grantor)?.privileges ?? '';
        if (grant && minus(letters, held)) acl = grantAcl(acl, g.id, grantor, letters);
        else if (!grant && intersect(held, letters)) acl = revokeAcl(acl, g.id, grantor, letters);
        else continue;
        if (view.get(g.id)?.kind === 'role') this.ws.touch(g.id);
      }
      this.setAcl(o.id, acl);
    }
    return { tag: grant ? 'GRANT' : 'REVOKE', notices };
  }

  /** Writes an ACL only when it differs from what the object already has. */
  private setAcl(id: string, acl: readonly AclItem[]): void {
    const o = this.ws.get(id);
    if (!o || JSON.stringify(aclOf(this.view(), o)) === JSON.stringify(acl)) return;
    this.ws.update(id, (x) => ({ ...x, privileges: acl }) as CatalogObject, false);
  }

  /** The objects (or SYSTEM) a GRANT or REVOKE names, as Materialize resolves them. */
  private targets(t: S<'grant_privileges' | 'revoke_privileges'>['target'], at: number): Target[] {
    const view = this.view();
    if (t.kind === 'system') return [{ kind: 'system' }];
    const subject = (o: CatalogObject) => ({ kind: 'object' as const, object: o, subject: subjectOf(o)! });
    if (t.kind === 'objects') return t.names.map((n) => subject(this.resolveTarget(t.objectType, n, at)));
    const matches = (o: CatalogObject) => ofGrantType(o, t.objectType);
    if (!t.in) return view.all().filter((o) => matches(o) && subjectOf(o)).map(subject);
    const schemaIds = this.schemasIn(t.in, at);
    if (t.objectType === 'schema') return view.ofKind('schema').filter((x) => schemaIds.has(x.id)).map(subject);
    return view.items().filter((o) => schemaIds.has(o.spec.schemaId) && matches(o) && subjectOf(o)).map(subject);
  }

  private schemasIn(i: GrantIn, at: number): Set<string> {
    const view = this.view();
    if (i.kind === 'schema') return new Set(i.names.map((n) => this.schema(n, at).id));
    const dbIds = new Set(i.names.map((n) => this.database(n[0]!, at).id));
    return new Set(view.ofKind('schema').filter((x) => dbIds.has(x.spec.databaseId)).map((x) => x.id));
  }

  private database(name: string, at: number): ObjectOf<'database'> {
    const db = this.view().database(name);
    if (!db) throw unknownDatabase(name, at);
    return db;
  }

  private schema(name: ObjectName, at: number): ObjectOf<'schema'> {
    const schemaName = name[name.length - 1]!;
    if (SYSTEM_SCHEMAS.has(schemaName) && (name.length === 1 || name[0] === 'materialize')) {
      throw new PlanError(`system schema '${schemaName}' cannot be modified`, { code: SQLSTATE.insufficientPrivilege, position: at });
    }
    return resolveSchema(this.view(), name, at);
  }

  private resolveTarget(type: GrantObjectType, name: ObjectName, at: number): CatalogObject {
    const view = this.view();
    switch (type) {
      case 'cluster': {
        const c = view.cluster(name[0]!);
        if (!c) throw unknownCluster(name[0]!, at);
        return c;
      }
      case 'database':
        return this.database(name[0]!, at);
      case 'schema':
        return this.schema(name, at);
      default: {
        const item: ItemObject | undefined = findItem(view, name, at);
        if (!item) throw unknownItem(name, at);
        if (!ofGrantType(item, type)) {
          throw new PlanError(`${TYPE_WORD[item.kind]} ${view.qualifiedName(item).join('.')} is not a ${type.toUpperCase()}`, { code: SQLSTATE.wrongObjectType, position: at });
        }
        return item;
      }
    }
  }

  alterDefaultPrivileges(s: S<'alter_default_privileges'>, at: number): Written {
    const view = this.view();
    const targets = s.targetRoles ? s.targetRoles.map((n) => resolveRole(view, n, at)) : [roleById(view, PUBLIC_ROLE_ID)!];
    const places: { databaseId?: string; schemaId?: string }[] =
      s.in?.kind === 'database'
        ? s.in.names.map((n) => ({ databaseId: this.database(n[0]!, at).id }))
        : s.in?.kind === 'schema'
          ? s.in.names.map((n) => {
              const schema = this.schema(n, at);
              return { databaseId: schema.spec.databaseId, schemaId: schema.id };
            })
          : [{}];
    const grantees = s.grantees.map((n) => resolveRole(view, n, at));
    const type = s.objectType;
    if ((type === 'cluster' || type === 'database') && s.in?.kind === 'database') throw plain(`cannot specify ${type.toUpperCase()}S and IN DATABASE`, at);
    if ((type === 'cluster' || type === 'database' || type === 'schema') && s.in?.kind === 'schema') throw plain(`cannot specify ${type.toUpperCase()}S and IN SCHEMA`, at);
    const subject = type.toUpperCase() as PrivilegeSubject;
    const letters = lettersOf(s.privileges, subject);
    const invalid = minus(letters, ALL_PRIVILEGES[subject]);
    if (invalid) throw new PlanError(`invalid privilege types ${privilegeNames(invalid)} for ${subject}`, { code: SQLSTATE.invalidGrantOperation, position: at });
    requireMembership(view, targets.map((r) => r.id), at, this.actor);
    if (targets.some((r) => r.id === PUBLIC_ROLE_ID)) this.superuserOnly('ALTER DEFAULT PRIVILEGES FOR ALL ROLES', at);
    for (const r of targets) ensureNotSystem(r, at);
    for (const g of grantees) ensureNotSystem(g, at);
    for (const r of targets) {
      for (const place of places) {
        for (const g of grantees) this.updateDefault(r.id, place, type, g.id, letters, s.grant);
      }
    }
    return { tag: 'ALTER DEFAULT PRIVILEGES', notices: [] };
  }

  private updateDefault(roleId: string, place: { databaseId?: string; schemaId?: string }, objectType: PrivilegeObjectType, grantee: string, letters: string, grant: boolean): void {
    const view = this.view();
    const existing = view
      .ofKind('default_privilege')
      .find((d) => d.spec.roleId === roleId && d.spec.databaseId === place.databaseId && d.spec.schemaId === place.schemaId && d.spec.objectType === objectType && d.spec.grantee === grantee);
    const next = grant ? union(existing?.spec.privileges ?? '', letters) : minus(existing?.spec.privileges ?? '', letters);
    if (existing && next === existing.spec.privileges) return;
    if (existing && !next) return this.ws.drop(existing.id);
    if (existing) return this.ws.update(existing.id, (x) => ({ ...x, spec: { ...(x.spec as object), privileges: next } }) as CatalogObject, false);
    if (!next) return;
    const dependsOn = [...stored(view, [roleId, grantee]), ...(place.databaseId ? [place.databaseId] : []), ...(place.schemaId ? [place.schemaId] : [])];
    this.ws.create(this.newObject('default_privilege', '', dependsOn, { roleId, ...place, objectType, grantee, privileges: next }));
  }

  /**
   * ALTER ... OWNER TO's checks and change, once the object is found (and its ownership checked):
   * the new owner must be a role the current role is a member of. Indexes follow their relation
   * (Materialize refuses them with a notice), an item's indexes and a cluster's replicas move with it.
   */
  alterOwner(o: CatalogObject, ownerName: string, at: number): Written {
    const view = this.view();
    const owner = resolveRole(view, ownerName, at);
    requireMembership(view, [owner.id], at, this.actor);
    const tag = `ALTER ${TYPE_WORD[o.kind]}`;
    if (o.kind === 'index') {
      return { tag, notices: [`cannot change owner of "${view.qualifiedName(o).join('.')}"`] };
    }
    const moving = [o, ...(o.kind === 'cluster' ? view.replicas(o.id) : view.dependentsOf(o.id).filter((d) => d.kind === 'index' && d.spec.onId === o.id))];
    for (const x of moving) this.setOwner(x, owner.id);
    if (view.get(owner.id)?.kind === 'role') this.ws.touch(owner.id);
    return { tag, notices: [] };
  }

  private setOwner(o: CatalogObject, ownerId: string): void {
    const view = this.view();
    const before = ownerOf(view, o);
    if (before === ownerId && o.owner === ownerId) return;
    const privileges = o.privileges ? transferAcl(o.privileges, before, ownerId) : undefined;
    this.ws.update(o.id, (x) => ({ ...x, owner: ownerId, ...(privileges ? { privileges } : {}) }) as CatalogObject, false);
  }

  reassignOwned(s: S<'reassign_owned'>, at: number): Written {
    const view = this.view();
    const old = s.oldRoles.map((n) => resolveRole(view, n, at));
    const next = resolveRole(view, s.newRole, at);
    requireMembership(view, [...old.map((r) => r.id), next.id], at, this.actor);
    for (const r of [...old, next]) ensureNotReserved(r, at);
    const ids = new Set(old.map((r) => r.id));
    for (const o of ownedBy(view, ids)) this.setOwner(o, next.id);
    if (view.get(next.id)?.kind === 'role') this.ws.touch(next.id);
    return { tag: 'REASSIGN OWNED', notices: [] };
  }

  /** The ACL a new object starts with, when default privileges give more than its kind's default. */
  initialPrivileges(o: CatalogObject): readonly AclItem[] | undefined {
    const view = this.view();
    if (view.ofKind('default_privilege').length === 0) return undefined;
    const owner = ownerOf(view, o);
    const acl = initialAcl(view, o, owner);
    return JSON.stringify(acl) === JSON.stringify(initialAcl(view, o, owner, false)) ? undefined : acl;
  }
}

/** How EXPLAIN EFFECTS names a membership or default privilege, which have no name of their own. */
export function explainName(view: CatalogSnapshot, o: CatalogObject): string | undefined {
  const name = (id: string) => (id === PUBLIC_ROLE_ID ? 'PUBLIC' : (roleById(view, id)?.name ?? id));
  if (o.kind === 'role_membership') return `${name(o.spec.roleId)} TO ${name(o.spec.memberId)}`;
  if (o.kind === 'default_privilege') return `FOR ROLE ${name(o.spec.roleId)} ON ${o.spec.objectType.toUpperCase()}S TO ${name(o.spec.grantee)}`;
  return undefined;
}

const plain = (message: string, position: number) => new PlanError(message, { code: SQLSTATE.internalError, position });

/** Whether `o` is what `ON <type>` means: relations are tables. */
function ofGrantType(o: CatalogObject, type: GrantObjectType): boolean {
  if (type === 'table') return (RELATION_KINDS as readonly string[]).includes(o.kind);
  return (KINDS_OF_TYPE[type] as readonly string[]).includes(o.kind);
}

/**
 * What the roles own, for DROP OWNED and REASSIGN OWNED. The database materialize and its schema
 * public, which belong to mz_system in Materialize, are the tenant's here but stay out of these.
 */
export function ownedBy(view: CatalogSnapshot, roleIds: ReadonlySet<string>): CatalogObject[] {
  return view.all().filter((o) => subjectOrOwnable(o) && o.owner !== 'system' && roleIds.has(ownerOf(view, o)));
}
const subjectOrOwnable = (o: CatalogObject) => !['role', 'role_membership', 'default_privilege'].includes(o.kind);
