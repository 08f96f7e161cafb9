/** Product limits the planner enforces (documented in the README). */

/** Materialize caps identifiers at 255 bytes. */
export const MAX_IDENTIFIER_BYTES = 255;
/** A managed cluster's replicas are one catalog item each; keep one request well inside DynamoDB's transaction limits. */
export const MAX_REPLICATION_FACTOR = 32;
/** Replica sizes we provision, Materialize's credit sizes (legacy t-shirt sizes are not offered). */
export const REPLICA_SIZES = ['25cc', '50cc', '100cc', '200cc', '300cc', '400cc', '600cc', '800cc', '1200cc', '1600cc', '3200cc', '6400cc', '128C', '256C', '512C'] as const;
/**
 * Materialize's testing size map (`scale=<processes>,workers=<threads>[,mem=<n>GiB]`), the sizes
 * its own tests and the emulator use: accepted so SQL written against those runs unchanged.
 */
const TESTING_SIZE = /^scale=(?:1|2|4|8|16),workers=(?:1|2|4|8|16|32)(?:,mem=\d{1,4}GiB)?$/;

export function isReplicaSize(value: string): boolean {
  return (REPLICA_SIZES as readonly string[]).includes(value) || TESTING_SIZE.test(value);
}
/** Sources, sinks, materialized views and indexes without IN CLUSTER run here, like Materialize's default. */
export const DEFAULT_CLUSTER = 'quickstart';
