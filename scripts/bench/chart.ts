import type { CurvePoint } from './cost-curve.js';
import type { PeakFigures } from './peak.js';

const W = 640;
const H = 360;
const M = { left: 64, right: 150, top: 30, bottom: 48 };

interface Series {
  label: string;
  color: string;
  dash: string;
}

/** The canvas and its title. */
const canvas = (title: string) => [
  `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
  `<rect width="${W}" height="${H}" fill="white"/>`,
  `<text x="${M.left}" y="18" font-size="14">${title}</text>`,
];

/** A line and label per power of ten of a log-scaled latency axis. */
function latencyGrid(yMin: number, yMax: number, y: (ms: number) => number): string[] {
  const lines: string[] = [];
  for (let e = yMin; e <= yMax; e++) {
    lines.push(`<line x1="${M.left}" x2="${W - M.right}" y1="${y(10 ** e)}" y2="${y(10 ** e)}" stroke="#ddd"/>`);
    lines.push(`<text x="${M.left - 8}" y="${y(10 ** e) + 4}" text-anchor="end">${e >= 3 ? `${10 ** (e - 3)} s` : `${10 ** e} ms`}</text>`);
  }
  return lines;
}

/** A series' line through `points` and its entry in the legend, the `index`-th. */
function seriesLine(s: Series, index: number, points: string): string[] {
  const ly = M.top + 10 + index * 20;
  return [
    `<polyline points="${points}" fill="none" stroke="${s.color}" stroke-width="2" stroke-dasharray="${s.dash}"/>`,
    `<line x1="${W - M.right + 12}" x2="${W - M.right + 40}" y1="${ly}" y2="${ly}" stroke="${s.color}" stroke-width="2" stroke-dasharray="${s.dash}"/>`,
    `<text x="${W - M.right + 46}" y="${ly + 4}">${s.label}</text>`,
  ];
}

/** Latency (p50 and p99) against concurrency, log-scaled both ways, as a small hand-written SVG. */
export function latencyChart(points: readonly CurvePoint[]): string {
  const xs = points.map((p) => p.concurrency);
  const ys = points.flatMap((p) => [p.createCart.p50Ms, p.createCart.p99Ms, p.limit.p50Ms, p.limit.p99Ms]).filter((y) => y > 0);
  const [xMin, xMax] = [Math.log2(Math.min(...xs)), Math.log2(Math.max(...xs))];
  const [yMin, yMax] = [Math.floor(Math.log10(Math.min(...ys))), Math.ceil(Math.log10(Math.max(...ys)))];
  const x = (c: number) => M.left + ((Math.log2(c) - xMin) / (xMax - xMin || 1)) * (W - M.left - M.right);
  const y = (ms: number) => H - M.bottom - ((Math.log10(ms) - yMin) / (yMax - yMin || 1)) * (H - M.top - M.bottom);
  const series = [
    { label: 'create-cart p99', color: '#c0392b', dash: '', value: (p: CurvePoint) => p.createCart.p99Ms },
    { label: 'create-cart p50', color: '#c0392b', dash: '6 4', value: (p: CurvePoint) => p.createCart.p50Ms },
    { label: 'raw start p99', color: '#2471a3', dash: '', value: (p: CurvePoint) => p.limit.p99Ms },
    { label: 'raw start p50', color: '#2471a3', dash: '6 4', value: (p: CurvePoint) => p.limit.p50Ms },
  ];
  const parts = [...canvas('Latency against concurrent clients (log–log)'), ...latencyGrid(yMin, yMax, y)];
  for (const c of xs) {
    parts.push(`<line x1="${x(c)}" x2="${x(c)}" y1="${M.top}" y2="${H - M.bottom}" stroke="#eee"/>`);
    parts.push(`<text x="${x(c)}" y="${H - M.bottom + 16}" text-anchor="middle">${c}</text>`);
  }
  parts.push(`<text x="${(M.left + W - M.right) / 2}" y="${H - 10}" text-anchor="middle">concurrent clients</text>`);
  series.forEach((s, i) => {
    parts.push(...seriesLine(s, i, points.map((p) => `${x(p.concurrency).toFixed(1)},${y(s.value(p)).toFixed(1)}`).join(' ')));
    for (const p of points) parts.push(`<circle cx="${x(p.concurrency).toFixed(1)}" cy="${y(s.value(p)).toFixed(1)}" r="3" fill="${s.color}"/>`);
  });
  parts.push('</svg>');
  return parts.join('\n') + '\n';
}

/** Pay → redirect p50 and p99 per 10 s of the peak run, the burst shaded and each fault marked, log-scaled latency. */
export function peakChart(peak: PeakFigures): string {
  const points = peak.timeline.filter((p) => p.pays > 0);
  const ys = points.flatMap((p) => [p.payRedirectP50Ms, p.payRedirectP99Ms]).filter((y) => y > 0);
  const [yMin, yMax] = [Math.floor(Math.log10(Math.min(...ys, 100))), Math.ceil(Math.log10(Math.max(...ys, 1000)))];
  const end = peak.phaseBoundsS.end;
  const x = (s: number) => M.left + (s / end) * (W - M.left - M.right);
  const y = (ms: number) => H - M.bottom - ((Math.log10(ms) - yMin) / (yMax - yMin || 1)) * (H - M.top - M.bottom);
  const { burstStart, burstEnd } = peak.phaseBoundsS;
  const parts = [
    ...canvas('Pay → redirect over the peak run, per 10 s (log)'),
    `<rect x="${x(burstStart)}" y="${M.top}" width="${x(burstEnd) - x(burstStart)}" height="${H - M.top - M.bottom}" fill="#fdebd0"/>`,
    `<text x="${(x(burstStart) + x(burstEnd)) / 2}" y="${M.top + 14}" text-anchor="middle">burst ×${peak.settings.burstFactor}</text>`,
  ];
  parts.push(...latencyGrid(yMin, yMax, y));
  for (let s = 0; s <= end; s += end > 300 ? 60 : 30) parts.push(`<text x="${x(s)}" y="${H - M.bottom + 16}" text-anchor="middle">${s}</text>`);
  parts.push(`<text x="${(M.left + W - M.right) / 2}" y="${H - 10}" text-anchor="middle">seconds into the open loop</text>`);
  peak.faults.forEach((f, i) => {
    parts.push(`<line x1="${x(f.atS)}" x2="${x(f.atS)}" y1="${M.top}" y2="${H - M.bottom}" stroke="#7d3c98" stroke-dasharray="3 3"/>`);
    parts.push(`<text x="${x(f.atS) + 4}" y="${M.top + 30 + i * 14}" fill="#7d3c98">fault ${i + 1}</text>`);
  });
  const series = [
    { label: 'pay → redirect p99', color: '#c0392b', dash: '', value: (p: PeakFigures['timeline'][number]) => p.payRedirectP99Ms },
    { label: 'pay → redirect p50', color: '#c0392b', dash: '6 4', value: (p: PeakFigures['timeline'][number]) => p.payRedirectP50Ms },
  ];
  series.forEach((s, i) => parts.push(...seriesLine(s, i, points.map((p) => `${x(p.atS + 5).toFixed(1)},${y(s.value(p)).toFixed(1)}`).join(' '))));
  parts.push('</svg>');
  return parts.join('\n') + '\n';
}
