/** Byte offsets of error positions (shared/sql/lexer.ts). */
import { describe, it } from 'vitest';

describe('byte offsets', () => {
  it('match Buffer.byteLength at every character boundary, for any text', async () => {
    const fc = (await import('fast-check')).default;
    const { byteOffsets } = await import('../../shared/sql/lexer');
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const table = byteOffsets(s);
        for (let i = 0; i <= s.length; i++) {
          const insidePair = (s.charCodeAt(i - 1) & 0xfc00) === 0xd800 && (s.charCodeAt(i) & 0xfc00) === 0xdc00;
          if (!insidePair && (table ? table[i] : i) !== Buffer.byteLength(s.slice(0, i))) return false;
        }
        return true;
      }),
      { numRuns: 2000 },
    );
  });
});
