/**
 * The app-password adapter: the only code that reads and writes `AUTH#` items. They live outside
 * every tenant's partition (looked up by a token's public id, before the tenant is known) and
 * hold only a hash, so they are their own small store rather than part of the catalog store;
 * the authorizer's role may read nothing else (cdk/constructs/ddl-api.ts, leading keys `AUTH#*`).
 */
import { DeleteCommand, GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { AUTH_SK, authPk } from './keys';

export interface PasswordRecord {
  readonly tenant: string;
  /** SHA-256 of the password (hex). */
  readonly hash: string;
  readonly description: string;
  readonly createdAt: string;
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
    await this.doc.send(new DeleteCommand({ TableName: this.table, Key: { pk: authPk(tokenId), sk: AUTH_SK } }));
  }
}
