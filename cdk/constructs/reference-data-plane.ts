import { Construct } from 'constructs';
import { DATAPLANE_TABLE } from '../../shared/definitions';
import { DefinedTable, type DefinedTableProps } from './defined-table';

/** Props of {@link DataPlaneTable}: the shared table options. */
export type DataPlaneTableProps = DefinedTableProps;

/** The reference data plane's state (resources with owner tags, the action log), from `DATAPLANE_TABLE`. */
export class DataPlaneTable extends DefinedTable {
  constructor(scope: Construct, id: string, props: DataPlaneTableProps = {}) {
    super(scope, id, DATAPLANE_TABLE, props);
  }
}

export interface ReferenceDataPlaneProps {
  /**
   * Options for the data plane's table.
   * @default - the {@link DefinedTableProps} defaults (deletion protection on, PITR 35 days,
   *   AWS managed key, retained on stack deletion)
   */
  readonly table?: DataPlaneTableProps;
}

/**
 * The reference data plane the executors reconcile against by default: its state lives in its
 * own DynamoDB table, and the executors run its controller code in-process. An operator who
 * points the control plane at a real data plane (CDK context `dataPlaneUrl`) leaves it out.
 */
export class ReferenceDataPlane extends Construct {
  /** The data plane's table. */
  readonly table: DataPlaneTable;

  constructor(scope: Construct, id: string, props: ReferenceDataPlaneProps = {}) {
    super(scope, id);
    this.table = new DataPlaneTable(this, 'DataPlaneTable', props.table);
  }
}
