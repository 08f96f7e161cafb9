/**
 * Comparing ASTs without where they were typed: `parse(print(s))` equals `s` except for byte
 * positions, which depend on spacing. Keys named `position` or ending in `Position` are dropped.
 */

function isPositionKey(key: string): boolean {
  return key === 'position' || key.endsWith('Position');
}

/** A deep copy of `value` without position fields (plain data only: arrays, objects, primitives). */
export function stripPositions<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => stripPositions(v)) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (!isPositionKey(k) && v !== undefined) out[k] = stripPositions(v);
    }
    return out as T;
  }
  return value;
}
