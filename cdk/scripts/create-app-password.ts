/**
 * Creates a tenant and one app password in a deployed catalog table, and prints the password
 * once (only its SHA-256 hash is stored: it cannot be shown again). A stopgap until
 * `ddlctl tenant create` exists.
 *
 *   AWS_REGION=eu-west-1 npx tsx cdk/scripts/create-app-password.ts --table <CatalogTableName> --tenant acme
 *
 * Credentials, region and endpoint come from the SDK's standard sources (AWS_PROFILE,
 * AWS_REGION, AWS_ENDPOINT_URL for LocalStack, ...). The password alone goes to stdout, so
 * `PASSWORD=$(npx tsx cdk/scripts/create-app-password.ts ...)` captures it; notes go to stderr.
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { AppPasswords } from '../../shared/auth/app-passwords';
import { makeClients } from '../../shared/aws';

export const USAGE =
  'usage: npx tsx cdk/scripts/create-app-password.ts --table <catalog table name> --tenant <tenant> [--description <text>]';

export interface CreateAppPasswordOptions {
  readonly table: string;
  readonly tenant: string;
  readonly description: string;
  readonly region: string;
}

/** Reads the command line and the environment; throws a usage error when something is missing. */
export function parseOptions(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): CreateAppPasswordOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      table: { type: 'string' },
      tenant: { type: 'string' },
      description: { type: 'string' },
    },
    strict: true,
    allowPositionals: false,
  });
  const missing = (['table', 'tenant'] as const).filter((k) => !values[k]);
  if (missing.length > 0) throw new Error(`missing ${missing.map((k) => `--${k}`).join(' and ')}\n${USAGE}`);
  const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
  if (!region) throw new Error(`set AWS_REGION to the stack's region\n${USAGE}`);
  return { table: values.table!, tenant: values.tenant!, description: values.description ?? 'created by cdk/scripts/create-app-password.ts', region };
}

/** Writes the tenant and its app password; returns the password (the only time it exists in clear). */
export async function createAppPassword(
  options: CreateAppPasswordOptions,
  clients = makeClients({ region: options.region }),
): Promise<string> {
  return new AppPasswords(clients.doc, options.table).create(options.tenant, undefined, options.description);
}

async function main(): Promise<void> {
  try {
    const options = parseOptions(process.argv.slice(2), process.env);
    const password = await createAppPassword(options);
    process.stdout.write(`${password}\n`);
    process.stderr.write(
      `Created tenant ${options.tenant} in ${options.table}. Store the password now: only its hash is kept.\n` +
        `Use it as "Authorization: Bearer <password>" or HTTP Basic with user ${options.tenant}.\n`,
    );
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exitCode = 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
