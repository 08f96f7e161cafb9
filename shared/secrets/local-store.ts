/**
 * The local secret store: AES-256-GCM over a DynamoDB table (a fresh 96-bit IV per value, the
 * tenant/secret/generation bound in as additional data so a ciphertext cannot be moved to
 * another secret). The key is 32 bytes the local runtime keeps in its data folder.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { BatchWriteCommand, GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SecretStore, SecretVersionList } from './store';
import { queryPartition } from '../dynamo';

const pk = (tenant: string) => `SECRET#${tenant}`;
const sk = (secretId: string, generation: number) => `${secretId}#${String(generation).padStart(10, '0')}`;

export class LocalSecretStore implements SecretStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly key: Buffer,
  ) {
    if (key.length !== 32) throw new Error('the local secret store needs a 32-byte key');
  }

  private aad(tenant: string, secretId: string, generation: number): Buffer {
    return Buffer.from(`${tenant}/${secretId}/${generation}`);
  }

  async put(tenant: string, secretId: string, generation: number, value: string): Promise<void> {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(this.aad(tenant, secretId, generation));
    const ciphertext = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
    await this.doc.send(
      new PutCommand({
        TableName: this.table,
        Item: { pk: pk(tenant), sk: sk(secretId, generation), secretId, generation, iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), ciphertext: ciphertext.toString('base64'), createdAt: new Date().toISOString() },
      }),
    );
  }

  async has(tenant: string, secretId: string, generation: number): Promise<boolean> {
    const r = await this.doc.send(new GetCommand({ TableName: this.table, Key: { pk: pk(tenant), sk: sk(secretId, generation) }, ConsistentRead: true, ProjectionExpression: 'pk' }));
    return r.Item !== undefined;
  }

  async get(tenant: string, secretId: string, generation: number): Promise<string | undefined> {
    const r = await this.doc.send(new GetCommand({ TableName: this.table, Key: { pk: pk(tenant), sk: sk(secretId, generation) }, ConsistentRead: true }));
    if (!r.Item) return undefined;
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(r.Item.iv as string, 'base64'));
    decipher.setAAD(this.aad(tenant, secretId, generation));
    decipher.setAuthTag(Buffer.from(r.Item.tag as string, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(r.Item.ciphertext as string, 'base64')), decipher.final()]).toString('utf8');
  }

  async prune(tenant: string, secretId: string, keep?: number): Promise<void> {
    const versions = (await this.list(tenant)).find((v) => v.secretId === secretId)?.generations ?? [];
    const doomed = versions.filter((g) => keep === undefined || g < keep);
    for (let i = 0; i < doomed.length; i += 25) {
      await this.doc.send(
        new BatchWriteCommand({ RequestItems: { [this.table]: doomed.slice(i, i + 25).map((g) => ({ DeleteRequest: { Key: { pk: pk(tenant), sk: sk(secretId, g) } } })) } }),
      );
    }
  }

  async list(tenant: string): Promise<SecretVersionList[]> {
    const bySecret = new Map<string, { generations: number[]; changedAt: string }>();
    for (const i of await queryPartition(this.doc, this.table, pk(tenant), undefined, { ProjectionExpression: 'secretId, generation, createdAt' })) {
      const seen = bySecret.get(i.secretId as string) ?? { generations: [], changedAt: '' };
      seen.generations.push(i.generation as number);
      if ((i.createdAt as string) > seen.changedAt) seen.changedAt = i.createdAt as string;
      bySecret.set(i.secretId as string, seen);
    }
    return [...bySecret].map(([secretId, { generations, changedAt }]) => ({ secretId, generations: generations.sort((a, b) => a - b), ...(changedAt ? { changedAt } : {}) }));
  }
}
