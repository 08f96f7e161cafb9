/**
 * `ddlctl tenant create <name>` and `ddlctl password create <tenant>`: the tenant (its catalog:
 * database `materialize`, schema `public`) and app passwords, written straight to the catalog
 * table with shared/auth/app-passwords.ts. The password goes to stdout alone, so
 * `export DDLCTL_PASSWORD=$(ddlctl password create acme)` works; it cannot be shown again. A
 * password acts as the role materialize with superuser rights, or with `--role r` as role r.
 */
import pc from 'picocolors';
import { AppPasswords, TENANT_RE } from '../../shared/auth/app-passwords';
import { CatalogStore } from '../../shared/catalog/store';
import type { GlobalOptions } from '../connection';
import { CliError, EXIT } from '../errors';
import { target, type AwsOptions, type Target } from '../admin';

export interface PasswordOptions extends AwsOptions {
  readonly description?: string;
  /** `password create --role r`: the password acts as role r (a service account), not as a superuser. */
  readonly role?: string;
}

async function tenantExists(t: Target, tenant: string): Promise<boolean> {
  return (await new CatalogStore(t.clients.doc, t.catalogTable, { snapshotCacheObjects: 0 }).getTenant(tenant)) !== undefined;
}

function validName(tenant: string): void {
  if (!TENANT_RE.test(tenant)) throw new CliError(`invalid tenant name ${JSON.stringify(tenant)}: lowercase letters, digits, _ and -, starting with a letter or digit, at most 63 characters`, EXIT.usage);
}

export async function createTenant(g: GlobalOptions, name: string, o: PasswordOptions): Promise<number> {
  validName(name);
  const t = target(g, o, 'ddlctl tenant create');
  try {
    if (await tenantExists(t, name)) throw new CliError(`tenant ${name} already exists in ${t.where}; add a password with: ddlctl password create ${name}`);
    const password = await new AppPasswords(t.clients.doc, t.catalogTable).create(name, undefined, o.description ?? 'ddlctl tenant create');
    console.error(pc.green(`created tenant ${name} in ${t.where}; its first app password (shown once):`));
    console.log(password);
    return EXIT.ok;
  } finally {
    t.close();
  }
}

export async function createPassword(g: GlobalOptions, tenant: string, o: PasswordOptions): Promise<number> {
  validName(tenant);
  const t = target(g, o, 'ddlctl password create');
  try {
    if (!(await tenantExists(t, tenant))) throw new CliError(`no tenant ${tenant} in ${t.where}; create it with: ddlctl tenant create ${tenant}`);
    const password = await new AppPasswords(t.clients.doc, t.catalogTable).create(tenant, undefined, o.description ?? 'ddlctl password create', o.role === undefined ? {} : { role: o.role });
    const actsAs = o.role === undefined ? 'acts as materialize, a superuser' : `acts as role ${o.role}`;
    console.error(pc.green(`new app password for tenant ${tenant} (${actsAs}; shown once; earlier ones keep working):`));
    console.log(password);
    return EXIT.ok;
  } finally {
    t.close();
  }
}
