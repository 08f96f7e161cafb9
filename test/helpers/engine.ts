// A query to the SQL engine (shared/pglite/host.ts) as the system's default user, its rows read
// back from the DataRow messages the engine answers with: text columns, NULL as null.
import type { Load, PgliteHost } from '../../shared/pglite/host';

export async function engineRows(host: PgliteHost, sql: string, loads: readonly Load[] = [], maxRows = 100): Promise<(string | null)[][]> {
  const r = await host.run({
    sql,
    paramTypes: [],
    params: [],
    paramFormats: [],
    resultFormats: [],
    session: { user: 'materialize', database: 'materialize', settings: {} },
    loads,
    maxRows,
  });
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  const rows: (string | null)[][] = [];
  // Each DataRow: 'D', its length, the column count, then each column as a length (-1: NULL) and its bytes.
  for (let at = 0; at < r.rows.length; at += 1 + r.rows.readInt32BE(at + 1)) {
    const columns = r.rows.readInt16BE(at + 5);
    const row: (string | null)[] = [];
    let p = at + 7;
    for (let c = 0; c < columns; c++) {
      const n = r.rows.readInt32BE(p);
      p += 4;
      row.push(n < 0 ? null : r.rows.subarray(p, p + n).toString());
      if (n > 0) p += n;
    }
    rows.push(row);
  }
  return rows;
}
