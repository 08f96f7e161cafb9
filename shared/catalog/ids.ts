import { randomBytes } from 'node:crypto';
import { txnTimePart } from './keys';

/** Object ids: `u` + 12 hex chars of randomness, unique per object for the data plane's fencing. */
export function newObjectId(): string {
  return `u${randomBytes(6).toString('hex')}`;
}

/** Transaction ids sort by time, so the outbox (EFF#<txn>#<seq>) reads in commit order. */
export function newTxnId(now: Date): string {
  return `${txnTimePart(now)}${randomBytes(5).toString('hex')}`;
}
