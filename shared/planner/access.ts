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
import type { AclItem, CatalogObject, CatalogSnapshot, ItemObject, NetworkPolicyRule, ObjectKind, ObjectOf, ObjectSpec, PrivilegeObjectType } from '../catalog/model';
import { Parser } from '../sql/parser';
import { isSettable, normalizeSetting, variableName } from './session';
import { optionString } from './options';
import { isIP } from 'node:net';
import { NotSupportedError, PlanError, SQLSTATE } from '../errors';
import type { GrantIn, GrantObjectType, NetworkPolicyRuleDef, ObjectName, RoleAttribute, Statement } from '../sql/ast';
import { DEFAULT_SCOPE, KINDS_OF_TYPE, RELATION_KINDS, SYSTEM_SCHEMAS, findItem, resolveSchema, unknownCluster, unknownDatabase, unknownItem, validateName, type NameScope } from './names';
import {
  ALL_PRIVILEGES,
  MATERIALIZE_ACTOR,
  MATERIALIZE_ROLE_ID,
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
  network_policy: 'NETWORK POLICY',
  system_parameter: 'SYSTEM PARAMETER',
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
    /** The session's database and search_path, for names that do not say theirs. */
    private readonly scope: () => NameScope = () => DEFAULT_SCOPE,
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
    if (s.action.kind !== 'attributes') return this.alterRoleVariable(role, s.action, at);
    const attributes = planAttributes(s.action.attributes, at);
    if (attributes.superuser !== undefined) this.superuserOnly('alter superuser role', at);
    refuseLoginAttributes(attributes, at);
    if (role.builtin) throw reservedRole(role.name, at);
    // Every role inherits, so the only attribute left (INHERIT) changes nothing.
    return { tag: 'ALTER ROLE', notices: [] };
  }

  /**
   * `ALTER ROLE r SET name {TO | =} value | DEFAULT` / `RESET name`: the role's default for a session
   * variable, which its next sessions start from (mz_role_parameters), checked as SET checks it.
   * A role may change its own; another's needs CREATEROLE (Materialize's rbac).
   */
  private alterRoleVariable(role: Role, a: Extract<S<'alter_role'>['action'], { kind: 'set' | 'reset' }>, at: number): Written {
    if (role.id !== this.actor.id) this.requireSystemPrivilege('R', 'CREATEROLE', at);
    const stored = this.view().get(role.id);
    if (stored?.kind !== 'role') {
      throw new NotSupportedError(`defaults of the built-in role ${role.name} are not kept by this control plane`, { position: at, hint: 'Set them on a role made with CREATE ROLE, or with ALTER SYSTEM SET for every role.' });
    }
    let value: readonly string[] | 'default' = 'default';
    if (a.kind === 'set') {
      const p = new Parser(a.value.text, a.value.position);
      value = p.parseSetValues();
      if (p.peek().kind !== 'eof') p.fail('end of statement');
    }
    const setting = at_(at, () => (value === 'default' ? { name: variableName(a.variable), value: undefined } : normalizeSetting(a.variable, value)));
    const name = setting.name;
    const vars = { ...(stored.spec.vars ?? {}) };
    if (setting.value === undefined) delete vars[name];
    else vars[name] = setting.value;
    this.ws.update(role.id, (x) => ({ ...x, spec: { ...(x.spec as ObjectSpec['role']), vars } }) as CatalogObject, false);
    return { tag: 'ALTER ROLE', notices: [`variable "${name}" was updated for "${role.name}", this will have no effect on the current session`] };
  }

  /** Whether the actor holds a system privilege (ACL letter), itself or through a role it is a member of. */
  private hasSystemPrivilege(letter: string): boolean {
    if (this.actor.superuser) return true;
    const view = this.view();
    for (const id of roleMembership(view, this.actor.id)) {
      if (id === MATERIALIZE_ROLE_ID) return true;
      const r = view.get(id);
      if (r?.kind === 'role' && (r.spec.systemPrivileges ?? '').includes(letter)) return true;
    }
    return false;
  }

  /** Materialize's privilege error for a system privilege the actor lacks. */
  private requireSystemPrivilege(letter: string, privilege: string, at: number): void {
    if (!this.hasSystemPrivilege(letter)) throw insufficient('permission denied for SYSTEM', at, `The '${this.actor.name}' role needs ${privilege} privileges on SYSTEM`);
  }

  /** The role `COMMENT ON ROLE` comments: a stored one, by someone with CREATEROLE (roles have no owner). */
  commentableRole(name: string, at: number): CatalogObject {
    const role = resolveRole(this.view(), name, at);
    this.requireSystemPrivilege('R', 'CREATEROLE', at);
    const stored = this.view().get(role.id);
    if (stored?.kind !== 'role') throw new NotSupportedError(`comments on the built-in role ${role.name} are not kept by this control plane`, { position: at });
    return stored;
  }

  /** A stored network policy the actor owns (COMMENT ON, ALTER, DROP). */
  ownedNetworkPolicy(name: string, at: number): ObjectOf<'network_policy'> {
    const policy = this.view().networkPolicy(name);
    if (!policy) {
      if (name === DEFAULT_NETWORK_POLICY) throw insufficient(`must be owner of NETWORK POLICY ${name}`, at);
      throw new PlanError(`unknown network policy '${name}'`, { code: SQLSTATE.undefinedObject, position: at });
    }
    requireOwner(this.view(), policy, at, this.actor);
    return policy;
  }

  /**
   * `CREATE / ALTER / DROP NETWORK POLICY`, with Materialize's checks and words (its
   * plan_create_network_policy): catalog only. The built-in `default` policy (Materialize's
   * open_ingress) is the system's and cannot be dropped; a superuser may alter it.
   */
  networkPolicy(s: S<'create_network_policy' | 'alter_network_policy' | 'drop_network_policy'>, at: number): Written {
    const view = this.view();
    if (s.kind === 'drop_network_policy') {
      const notices: string[] = [];
      for (const name of s.names) {
        if (name === DEFAULT_NETWORK_POLICY || name === view.systemParameter('network_policy')?.spec.value) {
          throw new PlanError('network policy is currently in use', { code: SQLSTATE.internalError, position: at, hint: "Use ALTER SYSTEM SET 'network_policy' to change the default network policy." });
        }
        if (!view.networkPolicy(name) && s.ifExists) {
          notices.push(`network policy "${name}" does not exist, skipping`);
          continue;
        }
        this.ws.drop(this.ownedNetworkPolicy(name, at).id);
      }
      return { tag: 'DROP NETWORK POLICY', notices };
    }
    const rules = planRules(s.rules, at);
    if (s.kind === 'create_network_policy') {
      this.requireSystemPrivilege('P', 'CREATENETWORKPOLICY', at);
      validateName(s.name, at, 'network policy');
      if (view.networkPolicy(s.name) || s.name === DEFAULT_NETWORK_POLICY) throw plain(`network policy '${s.name}' already exists`, at);
      this.ws.create(this.newObject('network_policy', s.name, [], { rules }));
      return { tag: 'CREATE NETWORKPOLICY', notices: [] };
    }
    const existing = view.networkPolicy(s.name);
    if (!existing && s.name === DEFAULT_NETWORK_POLICY && this.actor.superuser) {
      // The built-in policy, altered: from now on the stored one stands for it.
      this.ws.create(this.newObject('network_policy', s.name, [], { rules }));
      return { tag: 'ALTER NETWORK POLICY', notices: [] };
    }
    const policy = this.ownedNetworkPolicy(s.name, at);
    this.ws.update(policy.id, (x) => ({ ...x, spec: { rules } }) as CatalogObject, false);
    return { tag: 'ALTER NETWORK POLICY', notices: [] };
  }

  /**
   * `ALTER SYSTEM SET name = value | RESET name | RESET ALL`: a session variable's system default,
   * which every later session starts from. As in Materialize (is_user_allowed_to_alter_system), a
   * superuser may change the session variables' defaults; the other system parameters and RESET
   * ALL are mz_system's alone.
   */
  alterSystem(s: S<'alter_system_set' | 'alter_system_reset'>, at: number): Written {
    const mzSystemOnly = () => insufficient('permission denied to alter system', at, "You must be the 'mz_system' role");
    if (s.name === 'all' && s.kind === 'alter_system_reset') throw mzSystemOnly();
    const systemOnly = SYSTEM_ONLY_PARAMETERS[s.name.toLowerCase()];
    if (!systemOnly && !isSettable(s.name)) throw mzSystemOnly();
    const name = systemOnly ? s.name.toLowerCase() : variableName(s.name);
    if (!this.actor.superuser) {
      const action = `toggle the '${name}' system configuration parameter`;
      throw insufficient(`permission denied to ${action}`, at, `You must be a superuser to ${action}`);
    }
    const given = s.kind === 'alter_system_set' && s.value !== 'default' ? s.value : undefined;
    const value =
      given === undefined ? undefined : systemOnly ? at_(at, () => systemOnly(this.view(), given)) : at_(at, () => normalizeSetting(name, given).value);
    // The default (reset) value of network_policy is the built-in policy, which always exists.
    if (value === DEFAULT_NETWORK_POLICY && name === 'network_policy') return this.alterSystem({ kind: 'alter_system_reset', name }, at);
    const existing = this.view().systemParameter(name);
    if (value === undefined) {
      if (existing) this.ws.drop(existing.id);
    } else if (existing) {
      if (existing.spec.value !== value) this.ws.update(existing.id, (x) => ({ ...x, spec: { value } }) as CatalogObject, false);
    } else {
      this.ws.create(this.newObject('system_parameter', name, [], { value }));
    }
    return { tag: s.kind === 'alter_system_set' ? 'ALTER SYSTEM SET' : 'ALTER SYSTEM RESET', notices: [`variable "${name}" was updated for the system, this will have no effect on the current session`] };
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
    // Materialize lists the objects' reasons, then the system privileges', then the default privileges'.
    const defaults: (readonly [string, string])[] = [];
    for (const o of view.all()) {
      if (o.kind === 'role' || o.kind === 'role_membership') continue;
      if (o.kind === 'default_privilege') {
        const x = o.spec;
        if (byId.has(x.roleId)) defaults.push([x.roleId, `default privileges on ${x.objectType.toUpperCase()}S created by ${nameOf(x.roleId)}`]);
        if (byId.has(x.grantee)) defaults.push([x.grantee, `default privileges on ${x.objectType.toUpperCase()}S granted to ${nameOf(x.grantee)}`]);
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
    // System privileges are kept too (validate_dropped_role_ownership checks the system privilege
    // map): a role holding any was granted them by mz_system.
    for (const r of roles) {
      const stored = view.get(r.id);
      if (stored?.kind === 'role' && stored.spec.systemPrivileges) add(r.id, `privileges on SYSTEM granted by ${nameOf(MZ_SYSTEM_ROLE_ID)}`);
    }
    for (const [id, reason] of defaults) add(id, reason);
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
    for (const { target, letters } of planned) if (target.kind === 'system') this.grantSystem(grant, grantees, letters, at);
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

  /**
   * `GRANT | REVOKE ... ON SYSTEM` (a superuser's): the system privileges a stored role holds, as
   * mz_system_privileges shows them. materialize holds them all already (mz_system granted them).
   */
  private grantSystem(grant: boolean, grantees: readonly Role[], letters: string, at: number): void {
    for (const g of grantees) {
      ensureNotSystem(g, at);
      const stored = this.view().get(g.id);
      if (stored?.kind !== 'role') {
        if (g.id === MATERIALIZE_ROLE_ID && grant) continue;
        throw new NotSupportedError(`system privileges of the built-in role ${g.name} are fixed in this control plane`, { position: at });
      }
      const held = stored.spec.systemPrivileges ?? '';
      const next = grant ? union(held, letters) : minus(held, letters);
      if (next === held) continue;
      this.ws.update(g.id, (x) => {
        const { systemPrivileges: _old, ...spec } = x.spec as ObjectSpec['role'];
        return { ...x, spec: next ? { ...spec, systemPrivileges: next } : spec } as CatalogObject;
      }, false);
    }
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
    if (SYSTEM_SCHEMAS.has(schemaName) && (name.length === 1 || name[0] === this.scope().database)) {
      throw new PlanError(`system schema '${schemaName}' cannot be modified`, { code: SQLSTATE.insufficientPrivilege, position: at });
    }
    return resolveSchema(this.view(), name, at, this.scope());
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
        const item: ItemObject | undefined = findItem(view, name, at, this.scope());
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
const subjectOrOwnable = (o: CatalogObject) => !['role', 'role_membership', 'default_privilege', 'system_parameter'].includes(o.kind);

/** Materialize's built-in network policy (initialize.rs: `default`, rule `open_ingress`). */
export const DEFAULT_NETWORK_POLICY = 'default';
/** Materialize's max_rules_per_network_policy. */
const MAX_RULES_PER_NETWORK_POLICY = 25;

/** A network policy's rules as Materialize plans them, in its order of checks and words. */
function planRules(defs: readonly NetworkPolicyRuleDef[] | undefined, at: number): NetworkPolicyRule[] {
  if (!defs) throw plain('RULES must be specified when creating network policies.', at);
  const rules = defs.map((d): NetworkPolicyRule => {
    const value = (name: string) => {
      const o = d.options.find((x) => x.name === name);
      return o && o.value.kind !== 'none' ? (optionString(o.value) ?? '') : undefined;
    };
    const [direction, action, address] = [value('DIRECTION'), value('ACTION'), value('ADDRESS')];
    if (direction === undefined || action === undefined || address === undefined) throw plain('Direction, Address, and Action must specified when creating a rule', at);
    if (direction.toUpperCase() !== 'INGRESS') throw plain('Ingress is the only valid option', at);
    if (action.toUpperCase() !== 'ALLOW') throw plain('Allow is the only valid option', at);
    const cidr = normalizeCidr(address);
    if (!cidr) throw plain('Value must be valid IPV4 or IPV6 CIDR', at);
    return { name: d.name, action: 'allow', direction: 'ingress', address: cidr };
  });
  if (rules.length > MAX_RULES_PER_NETWORK_POLICY) throw plain('RULES count exceeds max_rules_per_network_policy.', at);
  return rules;
}

/** An IPv4 or IPv6 network with its prefix length (`1.2.3.4/28`), as Rust's IpNet reads and prints it; undefined if it is none. */
function normalizeCidr(text: string): string | undefined {
  const m = /^([^/]+)\/(\d{1,3})$/.exec(text.trim());
  if (!m) return undefined;
  const [, ip, len] = m as unknown as [string, string, string];
  const version = isIP(ip);
  if (version === 0 || Number(len) > (version === 4 ? 32 : 128)) return undefined;
  return `${version === 6 ? ip.toLowerCase() : ip}/${Number(len)}`;
}

/** Runs `f`, giving an error it throws without a position the statement's (the session's checks know no SQL text). */
function at_<T>(position: number, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof PlanError && e.position === undefined) e.position = position;
    throw e;
  }
}

/**
 * The system parameters besides session variables' defaults that Materialize lets a superuser
 * change (its SystemVars::user_modifiable): each checks and normalizes a value, or throws
 * Materialize's error.
 */
const SYSTEM_ONLY_PARAMETERS: Readonly<Record<string, (view: CatalogSnapshot, value: readonly string[]) => string>> = {
  /** Which network policy applies to every login (Materialize's validate_alter_system_network_policy). */
  network_policy: (view, value) => {
    const name = value.length === 1 ? value[0]! : undefined;
    if (name === undefined || (name !== DEFAULT_NETWORK_POLICY && !view.networkPolicy(name))) {
      throw new PlanError(`parameter "network_policy" cannot have value ${value.length === 1 ? `"${name}"` : '"<none>"'}: no network policy with such name exists`, { code: SQLSTATE.invalidParameterValue });
    }
    return name;
  },
  /** Kept and shown; object privileges are not enforced here either way. */
  enable_rbac_checks: (_view, value) => {
    const x = value.join('').toLowerCase();
    if (['on', 'true', 't', 'yes', '1'].includes(x)) return 'on';
    if (['off', 'false', 'f', 'no', '0'].includes(x)) return 'off';
    throw new PlanError('parameter "enable_rbac_checks" requires a "boolean" value', { code: SQLSTATE.invalidParameterValue });
  },
};
