/**
 * The app-password adapter: the only code that reads and writes `AUTH#` items. They live outside
 * every tenant's partition (looked up by a token's public id, before the tenant is known) and
 * hold only a hash, so they are their own small store rather than part of the catalog store;
 * the authorizer's role may read nothing else (cdk/constructs/ddl-api.ts, leading keys `AUTH#*`).
 */
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { AUTH_SK, authPk, scramPk } from './keys';

export interface PasswordRecord {
  readonly tenant: string;
  /** SHA-256 of the password (hex). */
  readonly hash: string;
  readonly description: string;
  readonly createdAt: string;
  /** The role the password acts as; absent: materialize, as a superuser (shared/auth/app-passwords.ts). */
  readonly role?: string;
}

export class PasswordStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /** Eventually consistent on purpose: a password works from its creation on, well before anyone holds it. */
  async get(tokenId: string): Promise<PasswordRecord | undefined> {
    const r = await this.doc.send(new GetCommand({ TableName: this.table, Key: { pk: authPk(tokenId), sk: AUTH_SK } }));
    return r.Item as PasswordRecord | undefined;
  }

  async put(tokenId: string, record: PasswordRecord): Promise<void> {
    await this.doc.send(new PutCommand({ TableName: this.table, Item: { pk: authPk(tokenId), sk: AUTH_SK, type: 'app_password', ...record } }));
  }

  async delete(tokenId: string): Promise<void> {
    const record = await this.get(tokenId);
    await this.doc.send(new DeleteCommand({ TableName: this.table, Key: { pk: authPk(tokenId), sk: AUTH_SK } }));
    if (record) await this.doc.send(new DeleteCommand({ TableName: this.table, Key: { pk: scramPk(record.tenant), sk: tokenId } }));
  }

  /** A password's SCRAM verifier, under its tenant (the pgwire endpoint checks a proof against all of them). */
  async putScram(tenant: string, tokenId: string, verifier: { readonly storedKey: string; readonly serverKey: string; readonly role?: string }): Promise<void> {
    await this.doc.send(new PutCommand({ TableName: this.table, Item: { pk: scramPk(tenant), sk: tokenId, type: 'scram_verifier', ...verifier } }));
  }

  async listScram(tenant: string): Promise<{ tokenId: string; storedKey: string; serverKey: string; role?: string }[]> {
    const out: { tokenId: string; storedKey: string; serverKey: string; role?: string }[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const r = await this.doc.send(new QueryCommand({ TableName: this.table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': scramPk(tenant) }, ...(start ? { ExclusiveStartKey: start } : {}) }));
      for (const i of r.Items ?? []) out.push({ tokenId: i.sk as string, storedKey: i.storedKey as string, serverKey: i.serverKey as string, ...(typeof i.role === 'string' ? { role: i.role } : {}) });
      start = r.LastEvaluatedKey;
    } while (start);
    return out;
  }
}
