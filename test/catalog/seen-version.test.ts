// What a refused commit learns from the catalog-version item DynamoDB returns with the refusal
// (ReturnValuesOnConditionCheckFailure): the version to catch up to, unless a staged commit holds
// the catalog (then the catalog is read again the long way, which settles the staged change).
import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { seenVersion } from '../../shared/catalog/store';

describe('seenVersion', () => {
  const item = { pk: 'T#a', sk: 'CATVER', type: 'catalog_version', v: 42 };
  it('reads the version from the attribute-value form DynamoDB returns, and from a plain item', () => {
    expect(seenVersion(marshall(item))).toBe(42);
    expect(seenVersion(item)).toBe(42);
  });
  it('gives nothing when a staged commit holds the catalog, when nothing came back, or no version is there', () => {
    expect(seenVersion(marshall({ ...item, lockedBy: 'txn-1' }))).toBeUndefined();
    expect(seenVersion(undefined)).toBeUndefined();
    expect(seenVersion(marshall({ pk: 'T#a', sk: 'CATVER' }))).toBeUndefined();
  });
});
