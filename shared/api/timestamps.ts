/**
 * Timestamps in answers. Materialize's HTTP API writes a timestamp as milliseconds since the epoch,
 * a dot and three more digits of microseconds (`"1796498206123.456"`, its `TypedDatum::json`);
 * events and stored items use ISO strings. Pure, and free of Node APIs: the console uses it too.
 */
const TIMESTAMP = /^(\d{4,})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?(?:([+-])(\d\d)(?::?(\d\d))?)?$/;

/**
 * PostgreSQL's ISO text of a timestamp (`2026-12-05 19:16:46.123456+00`) as Materialize's HTTP API
 * gives it: milliseconds since the epoch, a dot, and the three digits of microseconds beyond them.
 * Text it does not recognise (`infinity`, a BC date) stays as it is.
 */
export function epochText(text: string): string {
  const m = TIMESTAMP.exec(text);
  if (!m) return text;
  const [, y, mo, d, h, mi, s, frac = '', sign, oh = '0', om = '0'] = m;
  const micros = frac.padEnd(6, '0');
  const offsetMs = (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om)) * 60_000;
  const utc = new Date(0);
  utc.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  utc.setUTCHours(Number(h), Number(mi), Number(s), Number(micros.slice(0, 3)));
  return `${utc.getTime() - (sign ? offsetMs : 0)}.${micros.slice(3)}`;
}

/** A timestamp as the HTTP API gives it (`"<epoch millis>.<micros>"`), or an ISO string, as a Date. */
export function timestampOf(value: unknown): Date | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const d = typeof value === 'number' || /^-?\d+(\.\d+)?$/.test(value) ? new Date(Math.floor(Number(value))) : new Date(value);
  return Number.isNaN(d.getTime()) ? undefined : d;
}
