/**
 * cdk/scripts/create-app-password.ts, the documented way to make the first tenant of a deployed
 * stack: run exactly as docs/deploy-aws.md shows (npx tsx, endpoint from AWS_ENDPOINT_URL_*),
 * against DynamoDB Local standing in for the deployed catalog table.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseOptions, USAGE } from '../../cdk/scripts/create-app-password';
import { REPO_ROOT } from '../../cdk/constructs/ddl-function';
import { LOCAL_CREDENTIALS } from '../../local/emulators';
import { ensureTable } from '../../local/resources';
import { AppPasswords, sha256, tokenId } from '../../shared/auth/app-passwords';
import { type Clients, makeClients } from '../../shared/aws';
import { AUTH_SK, authPk, TENANTS_PK, tenantSk } from '../../shared/catalog/keys';
import { CATALOG_TABLE } from '../../shared/definitions';
import { dynamodbEndpoint } from '../helpers/endpoints';

const execFileAsync = promisify(execFile);
const SCRIPT = join(REPO_ROOT, 'cdk', 'scripts', 'create-app-password.ts');
const TSX = join(REPO_ROOT, 'node_modules', '.bin', 'tsx');
const REGION = 'eu-west-1';

let clients: Clients;
let table: string;

beforeAll(async () => {
  // Prepare: a catalog table built from the same definition as the stack's
  clients = makeClients({ region: REGION, credentials: LOCAL_CREDENTIALS, endpoints: { dynamodb: dynamodbEndpoint() } });
  table = `t-app-password-${randomBytes(3).toString('hex')}-catalog`;
  await ensureTable(clients.ddb, CATALOG_TABLE, table);
});

/** Runs the script the way the deploy guide does, with the SDK pointed at DynamoDB Local. */
function runScript(args: string[]) {
  return execFileAsync(TSX, [SCRIPT, ...args], {
    cwd: REPO_ROOT,
    timeout: 30_000,
    env: {
      PATH: process.env.PATH,
      AWS_REGION: REGION,
      AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
      AWS_ENDPOINT_URL_DYNAMODB: dynamodbEndpoint(),
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
  });
}

describe('create-app-password script', () => {
  it('creates the tenant and a password the authorizer accepts, printing only the password on stdout', async () => {
    // Act
    const { stdout, stderr } = await runScript(['--table', table, '--tenant', 'acme']);
    const password = stdout.trim();

    // Assess
    expect(password).toMatch(/^ddlp_[0-9a-f]{80}$/);
    expect(stderr).toContain('Created tenant acme');
    const passwords = new AppPasswords(clients.doc, table);
    await expect(passwords.verify(`Bearer ${password}`)).resolves.toEqual({ tenant: 'acme', tokenId: tokenId(password) });
    const basic = Buffer.from(`acme:${password}`).toString('base64');
    await expect(passwords.verify(`Basic ${basic}`)).resolves.toMatchObject({ tenant: 'acme' });
    const stored = await clients.doc.send(new GetCommand({ TableName: table, Key: { pk: authPk(tokenId(password)), sk: AUTH_SK } }));
    expect(stored.Item).toMatchObject({ type: 'app_password', tenant: 'acme', hash: sha256(password) });
    expect(JSON.stringify(stored.Item)).not.toContain(password);
    const tenant = await clients.doc.send(new GetCommand({ TableName: table, Key: { pk: TENANTS_PK, sk: tenantSk('acme') } }));
    expect(tenant.Item).toMatchObject({ type: 'tenant', tenant: 'acme' });
  });

  it('refuses an invalid tenant name with exit code 1 and writes nothing to stdout', async () => {
    // Act
    const error = (await runScript(['--table', table, '--tenant', 'Not Valid']).catch((e: unknown) => e)) as {
      code: number;
      stdout: string;
      stderr: string;
    };

    // Assess
    expect(error.code).toBe(1);
    expect(error.stdout).toBe('');
    expect(error.stderr).toMatch(/invalid tenant name "Not Valid"/);
  });
});

describe('parseOptions', () => {
  it('needs --table, --tenant and a region', () => {
    // Act & Assess
    expect(() => parseOptions(['--tenant', 'acme'], { AWS_REGION: REGION })).toThrow(`missing --table\n${USAGE}`);
    expect(() => parseOptions([], { AWS_REGION: REGION })).toThrow('missing --table and --tenant');
    expect(() => parseOptions(['--table', 't', '--tenant', 'acme'], {})).toThrow(/set AWS_REGION/);
    expect(() => parseOptions(['--table', 't', '--tenant', 'acme', '--password', 'x'], { AWS_REGION: REGION })).toThrow(
      /Unknown option '--password'/,
    );
    expect(parseOptions(['--table', 't', '--tenant', 'acme'], { AWS_DEFAULT_REGION: 'us-east-2' })).toMatchObject({
      table: 't',
      tenant: 'acme',
      region: 'us-east-2',
    });
  });
});
