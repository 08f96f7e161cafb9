/** LIKE patterns of system-table reads (shared/system/tables.ts). */
import { describe, expect, it } from 'vitest';
import { likeToRegExp } from '../../shared/system/evaluate';

describe('LIKE', () => {
  it.each([
    ['r%', 'r1', true],
    ['r_', 'r10', false],
    ['a\\%b', 'a%b', true],
    ['a.c', 'abc', false],
  ])('%s matches %s: %s', (pattern, value, expected) => {
    expect(likeToRegExp(pattern, false).test(value)).toBe(expected);
  });
});
