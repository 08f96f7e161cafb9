import type { Construct } from 'constructs';
import { CATALOG_TABLE } from '../../shared/definitions';
import { DefinedTable, type DefinedTableProps } from './defined-table';

/** Props of {@link CatalogTable}: the shared table options. */
export type CatalogTableProps = DefinedTableProps;

/**
 * The catalog: catalog items, name guards, the outbox, transactions, statuses and app passwords,
 * built from `CATALOG_TABLE`. Its stream carries the outbox to the stream router, its sparse
 * attention index feeds the sweeper, and TTL expires status history.
 */
export class CatalogTable extends DefinedTable {
  constructor(scope: Construct, id: string, props: CatalogTableProps = {}) {
    // The router is driven by the catalog's stream: without one the outbox would never drain.
    super(scope, id, CATALOG_TABLE, props, { requiresStream: true });
  }

  /** The stream the router reads (the catalog always has one). */
  get tableStreamArn(): string {
    const arn = this.table.tableStreamArn;
    if (!arn) throw new Error(`${this.node.path} has no stream`);
    return arn;
  }
}
