/**
 * Hand-written SVG charts (no charting dependency): latency distributions as CDFs on a log axis,
 * cost against size on log-log axes, and horizontal bars.
 */

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#17becf'];
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const f1 = (x: number) => (Math.abs(x) >= 100 ? x.toFixed(0) : x.toFixed(1));

interface Axis {
  readonly min: number;
  readonly max: number;
  readonly log: boolean;
}

function scale(a: Axis, from: number, to: number): (v: number) => number {
  if (a.log) {
    const lo = Math.log10(a.min);
    const hi = Math.log10(a.max);
    return (v) => from + ((Math.log10(Math.max(v, a.min)) - lo) / (hi - lo || 1)) * (to - from);
  }
  return (v) => from + ((v - a.min) / (a.max - a.min || 1)) * (to - from);
}

function logTicks(min: number, max: number): number[] {
  const out: number[] = [];
  for (let e = Math.floor(Math.log10(min)); e <= Math.ceil(Math.log10(max)); e++) {
    for (const m of [1, 2, 5]) {
      const v = m * 10 ** e;
      if (v >= min * 0.999 && v <= max * 1.001) out.push(v);
    }
  }
  return out;
}

function linTicks(min: number, max: number, n = 5): number[] {
  const step = (max - min) / n;
  return Array.from({ length: n + 1 }, (_, i) => min + i * step);
}

const tickLabel = (v: number) => (v >= 1_000_000 ? `${v / 1_000_000}M` : v >= 1000 ? `${v / 1000}k` : String(Math.round(v * 100) / 100));

interface Frame {
  readonly x0: number;
  readonly y0: number;
  readonly w: number;
  readonly h: number;
}

function axes(fr: Frame, xa: Axis, ya: Axis, xLabel: string, yLabel: string, yFmt: (v: number) => string = tickLabel): string {
  const sx = scale(xa, fr.x0, fr.x0 + fr.w);
  const sy = scale(ya, fr.y0 + fr.h, fr.y0);
  const parts: string[] = [`<rect x="${fr.x0}" y="${fr.y0}" width="${fr.w}" height="${fr.h}" fill="none" stroke="#999"/>`];
  for (const t of xa.log ? logTicks(xa.min, xa.max) : linTicks(xa.min, xa.max)) {
    const x = sx(t);
    parts.push(`<line x1="${x}" y1="${fr.y0}" x2="${x}" y2="${fr.y0 + fr.h}" stroke="#eee"/>`, `<text x="${x}" y="${fr.y0 + fr.h + 16}" text-anchor="middle">${tickLabel(t)}</text>`);
  }
  for (const t of ya.log ? logTicks(ya.min, ya.max) : linTicks(ya.min, ya.max, 4)) {
    const y = sy(t);
    parts.push(`<line x1="${fr.x0}" y1="${y}" x2="${fr.x0 + fr.w}" y2="${y}" stroke="#eee"/>`, `<text x="${fr.x0 - 6}" y="${y + 4}" text-anchor="end">${yFmt(t)}</text>`);
  }
  parts.push(
    `<text x="${fr.x0 + fr.w / 2}" y="${fr.y0 + fr.h + 36}" text-anchor="middle">${esc(xLabel)}</text>`,
    `<text transform="translate(${fr.x0 - 48},${fr.y0 + fr.h / 2}) rotate(-90)" text-anchor="middle">${esc(yLabel)}</text>`,
  );
  return parts.join('');
}

function svg(width: number, height: number, title: string, body: string): string {
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">` +
    `<rect width="100%" height="100%" fill="white"/><text x="${width / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">${esc(title)}</text>${body}</svg>\n`
  );
}

export interface CdfSeries {
  readonly label: string;
  readonly samples: readonly number[];
}

/** Latency distributions: one CDF per series, x on a log axis; `targets` draws labelled vertical lines. */
export function cdfChart(o: { title: string; xLabel: string; series: readonly CdfSeries[]; targets?: readonly { at: number; label: string }[] }): string {
  const W = 760;
  const H = 400;
  const fr: Frame = { x0: 70, y0: 40, w: 480, h: 300 };
  const all = o.series.flatMap((s) => s.samples).filter((v) => v > 0);
  const tmax = Math.max(...(o.targets ?? []).map((t) => t.at), 0);
  const xa: Axis = { min: 10 ** Math.floor(Math.log10(Math.min(...all))), max: 10 ** Math.ceil(Math.log10(Math.max(...all, tmax))), log: true };
  const ya: Axis = { min: 0, max: 100, log: false };
  const sx = scale(xa, fr.x0, fr.x0 + fr.w);
  const sy = scale(ya, fr.y0 + fr.h, fr.y0);
  let body = axes(fr, xa, ya, o.xLabel, 'percentile', (v) => `${Math.round(v)}%`);
  o.series.forEach((s, i) => {
    const sorted = [...s.samples].sort((a, b) => a - b);
    const pts = sorted.map((v, k) => `${sx(v).toFixed(1)},${sy(((k + 1) / sorted.length) * 100).toFixed(1)}`).join(' ');
    const c = COLORS[i % COLORS.length];
    body += `<polyline points="${pts}" fill="none" stroke="${c}" stroke-width="2"/>`;
    const p50 = sorted[Math.ceil(0.5 * sorted.length) - 1] ?? NaN;
    const p99 = sorted[Math.ceil(0.99 * sorted.length) - 1] ?? NaN;
    const ly = fr.y0 + 14 + i * 38;
    body += `<line x1="${fr.x0 + fr.w + 14}" y1="${ly - 4}" x2="${fr.x0 + fr.w + 34}" y2="${ly - 4}" stroke="${c}" stroke-width="3"/>`;
    body += `<text x="${fr.x0 + fr.w + 40}" y="${ly}">${esc(s.label)}</text><text x="${fr.x0 + fr.w + 40}" y="${ly + 15}" fill="#555">p50 ${f1(p50)} · p99 ${f1(p99)} (n=${sorted.length})</text>`;
  });
  for (const t of o.targets ?? []) {
    const x = sx(t.at);
    body += `<line x1="${x}" y1="${fr.y0}" x2="${x}" y2="${fr.y0 + fr.h}" stroke="#000" stroke-dasharray="4 3"/><text x="${x + 3}" y="${fr.y0 + fr.h - 6}" font-size="10">${esc(t.label)}</text>`;
  }
  return svg(W, H, o.title, body);
}

export interface LineSeries {
  readonly label: string;
  readonly points: readonly (readonly [number, number])[];
  readonly dashed?: boolean;
}

/** Side-by-side log-log panels sharing the x axis (e.g. items read and milliseconds against catalog size). */
export function logLogPanels(o: { title: string; xLabel: string; panels: readonly { yLabel: string; series: readonly LineSeries[] }[] }): string {
  const W = 460 * o.panels.length + 40;
  const H = 430;
  let body = '';
  const labels = [...new Set(o.panels.flatMap((p) => p.series.map((s) => s.label)))];
  o.panels.forEach((panel, pi) => {
    const fr: Frame = { x0: 80 + pi * 460, y0: 40, w: 350, h: 290 };
    const xs = panel.series.flatMap((s) => s.points.map((p) => p[0]));
    const ys = panel.series.flatMap((s) => s.points.map((p) => Math.max(p[1], 0.1)));
    const xa: Axis = { min: 10 ** Math.floor(Math.log10(Math.min(...xs))), max: 10 ** Math.ceil(Math.log10(Math.max(...xs))), log: true };
    const ya: Axis = { min: 10 ** Math.floor(Math.log10(Math.min(...ys))), max: 10 ** Math.ceil(Math.log10(Math.max(...ys))), log: true };
    const sx = scale(xa, fr.x0, fr.x0 + fr.w);
    const sy = scale(ya, fr.y0 + fr.h, fr.y0);
    body += axes(fr, xa, ya, o.xLabel, panel.yLabel);
    for (const s of panel.series) {
      const c = COLORS[labels.indexOf(s.label) % COLORS.length];
      const pts = s.points.map(([x, y]) => `${sx(x).toFixed(1)},${sy(Math.max(y, 0.1)).toFixed(1)}`);
      body += `<polyline points="${pts.join(' ')}" fill="none" stroke="${c}" stroke-width="${s.dashed ? 4 : 2}"${s.dashed ? ' stroke-dasharray="6 4" stroke-opacity="0.6"' : ''}/>`;
      for (const [x, y] of s.points) body += `<circle cx="${sx(x).toFixed(1)}" cy="${sy(Math.max(y, 0.1)).toFixed(1)}" r="3.5" fill="${c}"><title>${esc(s.label)}: ${y} at ${x}</title></circle>`;
    }
  });
  labels.forEach((l, i) => {
    const x = 80 + (i % 3) * 280;
    const y = H - 30 + Math.floor(i / 3) * 16;
    body += `<line x1="${x}" y1="${y - 4}" x2="${x + 20}" y2="${y - 4}" stroke="${COLORS[i % COLORS.length]}" stroke-width="3"/><text x="${x + 26}" y="${y}">${esc(l)}</text>`;
  });
  return svg(W, H + 10, o.title, body);
}

/** Horizontal bars with their value, and an optional vertical reference line (e.g. 80 % of the floor). */
export function barChart(o: { title: string; unit: string; bars: readonly { label: string; value: number }[]; reference?: { at: number; label: string } }): string {
  const W = 760;
  const rowH = 30;
  const fr: Frame = { x0: 280, y0: 40, w: 400, h: rowH * o.bars.length };
  const max = Math.max(...o.bars.map((b) => b.value), o.reference?.at ?? 0) * 1.1 || 1;
  let body = '';
  o.bars.forEach((b, i) => {
    const y = fr.y0 + i * rowH;
    const w = (b.value / max) * fr.w;
    body += `<text x="${fr.x0 - 8}" y="${y + 19}" text-anchor="end">${esc(b.label)}</text>`;
    body += `<rect x="${fr.x0}" y="${y + 5}" width="${w.toFixed(1)}" height="${rowH - 10}" fill="${COLORS[i % COLORS.length]}"/>`;
    body += `<text x="${fr.x0 + w + 6}" y="${y + 19}">${f1(b.value)} ${esc(o.unit)}</text>`;
  });
  if (o.reference) {
    const x = fr.x0 + (o.reference.at / max) * fr.w;
    body += `<line x1="${x}" y1="${fr.y0}" x2="${x}" y2="${fr.y0 + fr.h}" stroke="#000" stroke-dasharray="4 3"/><text x="${x + 3}" y="${fr.y0 + fr.h + 14}" font-size="10">${esc(o.reference.label)}</text>`;
  }
  return svg(W, fr.y0 + fr.h + 30, o.title, body);
}
