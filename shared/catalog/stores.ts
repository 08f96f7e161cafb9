/**
 * The catalog table's stores, built on one client: the only code that speaks to the table.
 * Stages take the ones they use as ports (constructor options), so a test can hand in a fake.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { CatalogObject } from './model';
import { OutboxStore } from './outbox-store';
import { StatusStore } from './status-store';
import { CatalogStore, type CatalogStoreOptions } from './store';

export interface TableStores {
  readonly catalog: CatalogStore;
  readonly outbox: OutboxStore;
  readonly statuses: StatusStore;
}

export function tableStores(doc: DynamoDBDocumentClient, table: string, options: CatalogStoreOptions = {}): TableStores {
  return { catalog: new CatalogStore(doc, table, options), outbox: new OutboxStore(doc, table), statuses: new StatusStore(doc, table) };
}

/** Reads catalog objects by id (live or tombstones): what the executor and the connector pass need of the catalog. */
export interface ObjectReader {
  getObject(tenant: string, id: string): Promise<CatalogObject | undefined>;
}
