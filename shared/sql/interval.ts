/** Intervals as PostgreSQL (and Materialize) print them. */

/** An interval as PostgreSQL prints it: `1 day`, `-00:01:00`, `2 days 01:00:00.5`. */
export function formatInterval(micros: number): string {
  const sign = micros < 0 ? '-' : '';
  let rest = Math.abs(micros);
  const days = Math.floor(rest / 86_400e6);
  rest -= days * 86_400e6;
  const pad = (n: number) => String(n).padStart(2, '0');
  const h = Math.floor(rest / 3600e6);
  const m = Math.floor((rest % 3600e6) / 60e6);
  const s = (rest % 60e6) / 1e6;
  const secs = Number.isInteger(s) ? pad(s) : `${pad(Math.floor(s))}${String(s % 1).slice(1, 8)}`;
  const time = rest > 0 || days === 0 ? `${sign}${pad(h)}:${pad(m)}:${secs}` : '';
  const dayPart = days > 0 ? `${sign}${days} day${days === 1 ? '' : 's'}` : '';
  return [dayPart, time].filter(Boolean).join(' ');
}
