import type { EhpaReport } from './report-ehpa.js';
import type { ReplayPoint } from './replay.js';

const W = 960;
const PANEL = 220;
const LEFT = 56;
const TOP = 30;
const GAP = 50;
const COLORS = { load: '#222222', effective: '#1f6fd1', reactive: '#e07b00' } as const;

interface Panel {
  y0: number;
  max: number;
  label: string;
}

const fmt = (n: number) => (Math.round(n * 10) / 10).toString();

/** Every point on a chart this wide is at most a few pixels apart; thinning keeps the file small. */
function thin(points: readonly ReplayPoint[]): ReplayPoint[] {
  const stride = Math.max(1, Math.floor(points.length / 1500));
  return points.filter((_, i) => i % stride === 0 || i === points.length - 1);
}

function niceMax(v: number): number {
  const step = 10 ** Math.floor(Math.log10(Math.max(v, 1)));
  return Math.ceil(v / step) * step;
}

/**
 * The report's chart as a standalone SVG: demand and the capacity each autoscaler had ready (cores), and the
 * replicas each asked for, over the replayed days. No fonts or styles from outside, so it renders anywhere.
 */
export function renderReportSvg(report: EhpaReport): string {
  const { startSeconds, endSeconds } = report;
  const width = W - LEFT - 20;
  const x = (t: number) => LEFT + ((t - startSeconds) / Math.max(1, endSeconds - startSeconds)) * width;
  const eff = thin(report.effective.points);
  const rea = thin(report.reactive.points);
  const cores: Panel = {
    y0: TOP,
    max: niceMax(
      Math.max(
        ...report.effective.points.map((p) => Math.max(p.load, p.capacity)),
        ...report.reactive.points.map((p) => p.capacity),
      ),
    ),
    label: 'cores',
  };
  const replicas: Panel = {
    y0: TOP + PANEL + GAP,
    max: niceMax(
      Math.max(...report.effective.points.map((p) => p.replicas), ...report.reactive.points.map((p) => p.replicas)),
    ),
    label: 'replicas',
  };
  const y = (p: Panel, v: number) => p.y0 + PANEL - (v / p.max) * PANEL;
  const line = (p: Panel, pts: readonly ReplayPoint[], value: (q: ReplayPoint) => number, color: string, dash = '') =>
    `<polyline fill="none" stroke="${color}" stroke-width="1.2"${dash ? ` stroke-dasharray="${dash}"` : ''} points="${pts
      .map((q) => `${fmt(x(q.t))},${fmt(y(p, value(q)))}`)
      .join(' ')}"/>`;
  const axes = (p: Panel) => {
    const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => {
      const v = p.max * f;
      return (
        `<line x1="${LEFT}" x2="${LEFT + width}" y1="${fmt(y(p, v))}" y2="${fmt(y(p, v))}" stroke="#e6e6e6"/>` +
        `<text x="${LEFT - 6}" y="${fmt(y(p, v) + 4)}" text-anchor="end">${fmt(v)}</text>`
      );
    });
    const days: string[] = [];
    for (let t = startSeconds; t <= endSeconds; t += 21_600) {
      const label = new Date(t * 1000).toISOString().slice(5, 16).replace('T', ' ');
      days.push(`<line x1="${fmt(x(t))}" x2="${fmt(x(t))}" y1="${p.y0}" y2="${p.y0 + PANEL}" stroke="#f0f0f0"/>`);
      if (p === replicas)
        days.push(`<text x="${fmt(x(t))}" y="${p.y0 + PANEL + 16}" text-anchor="middle">${label}</text>`);
    }
    return [...days, ...ticks, `<text x="8" y="${p.y0 - 10}" font-weight="bold">${p.label}</text>`].join('');
  };
  const legend = [
    ['demand', COLORS.load],
    ['EffectiveHPA (prediction + cron)', COLORS.effective],
    ['reactive HPA', COLORS.reactive],
  ]
    .map(
      ([name, color], i) =>
        `<rect x="${LEFT + 120 + i * 250}" y="8" width="14" height="4" fill="${color}"/>` +
        `<text x="${LEFT + 140 + i * 250}" y="14">${name}</text>`,
    )
    .join('');
  const h = TOP + 2 * PANEL + GAP + 30;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${h}" width="${W}" height="${h}"` +
      ' font-family="sans-serif" font-size="11">',
    `<rect width="${W}" height="${h}" fill="#ffffff"/>`,
    legend,
    axes(cores),
    axes(replicas),
    line(cores, rea, (q) => q.capacity, COLORS.reactive),
    line(cores, eff, (q) => q.capacity, COLORS.effective),
    line(cores, eff, (q) => q.load, COLORS.load),
    line(replicas, rea, (q) => q.replicas, COLORS.reactive),
    line(replicas, eff, (q) => q.replicas, COLORS.effective),
    '</svg>',
  ].join('\n');
}
