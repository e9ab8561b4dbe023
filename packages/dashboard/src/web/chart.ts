import {
  CHART_BOX,
  type Domain,
  domains,
  type Series,
  scale,
  seriesPath,
  timeTicks,
  valueTicks,
} from '../view/index.js';
import { h, s, table } from './dom.js';

/** Line styles beside colours, so that colour is never the only way to tell the series apart. */
const DASHES = ['', '6 3', '2 3', '10 3 2 3', '1 5'];

export interface ChartOptions {
  title: string;
  series: Series[];
  shape?: 'step' | 'line';
  /** How a time on the axis reads (local time by default). */
  formatTime?: (t: number) => string;
  /** Extra instants and values the axes must include. */
  extra?: { t?: number[]; v?: number[] };
  /** Instants marked on the axis with a label (a cron rule's runs, an excluded date). */
  marks?: Array<{ t: number; label: string; kind: string }>;
}

/** Local time, with seconds when the chart spans less than ten minutes. */
const localTime = (span: number) => (t: number) =>
  new Date(t).toLocaleTimeString([], {
    hour: '2-digit',
    minute: '2-digit',
    hour12: false,
    ...(span < 600_000 ? { second: '2-digit' } : {}),
  });

/**
 * An SVG chart of series over time, with its text alternative: a figure whose caption names every series, and a
 * table of the same points a screen reader (or a person who prefers numbers) can read. Each path carries its
 * series' name and points as data attributes.
 */
export function timeChart(o: ChartOptions): HTMLElement {
  const box = CHART_BOX;
  const d = domains(o.series, {
    t: [...(o.extra?.t ?? []), ...(o.marks ?? []).map((m) => m.t)],
    v: o.extra?.v ?? [],
  });
  const fmt = o.formatTime ?? localTime(d.t.max - d.t.min);
  const x = scale(d.t, box.left, box.width - box.right);
  const y = scale(d.v, box.height - box.bottom, box.top);
  const svg = s(
    'svg',
    {
      viewBox: `0 0 ${box.width} ${box.height}`,
      role: 'img',
      'aria-label': `${o.title}: ${o.series.map((x) => x.name).join(', ') || 'no data'}`,
      class: 'chart',
    },
    ...axes(d, x, y, fmt, o.series.length > 0),
    ...(o.marks ?? []).map((m) =>
      s(
        'g',
        { class: `mark mark-${m.kind}`, 'data-mark': m.kind },
        s('line', { x1: x(m.t), x2: x(m.t), y1: box.top, y2: box.height - box.bottom }),
        // A shape beside the colour: a run is a circle, an excluded date a cross.
        m.kind === 'excluded'
          ? s('text', { x: x(m.t), y: box.top + 14, 'text-anchor': 'middle', class: 'mark-glyph' }, '✘')
          : s('circle', { cx: x(m.t), cy: box.top + 10, r: 4 }),
        s('title', {}, m.label),
      ),
    ),
    ...o.series.map((ser, i) =>
      s(
        'path',
        {
          d: seriesPath(ser, d, box, o.shape ?? 'step'),
          class: `series series-${i % 6}`,
          'stroke-dasharray': DASHES[i % DASHES.length],
          'data-series': ser.name,
          'data-points': ser.points.map((p) => `${new Date(p.t).toISOString()}=${p.v}`).join(' '),
        },
        s('title', {}, ser.name),
      ),
    ),
  );
  const legend = h(
    'ul',
    { class: 'legend' },
    ...o.series.map((ser, i) =>
      h(
        'li',
        {},
        s('svg', { class: 'swatch', viewBox: '0 0 24 6', 'aria-hidden': 'true' }),
        ` ${ser.name} (${DASHES[i % DASHES.length] ? 'dashed' : 'solid'})`,
      ),
    ),
  );
  // Legend swatches drawn with the series' own stroke and dash.
  legend.querySelectorAll('svg.swatch').forEach((sw, i) => {
    sw.append(
      s('line', {
        x1: 0,
        y1: 3,
        x2: 24,
        y2: 3,
        class: `series series-${i % 6}`,
        'stroke-dasharray': DASHES[i % DASHES.length],
      }),
    );
  });
  const rows = [
    ...o.series.flatMap((ser) => ser.points.map((p) => [ser.name, fmt(p.t), String(Math.round(p.v * 100) / 100)])),
    ...(o.marks ?? []).map((m) => [m.kind, fmt(m.t), m.label]),
  ];
  return h(
    'figure',
    { class: 'chart-figure' },
    svg,
    h('figcaption', {}, o.title, legend),
    h(
      'details',
      {},
      h('summary', {}, `${o.title} as a table`),
      table(o.title, ['series', 'time', 'value'], rows, { class: 'chart-table' }),
    ),
  );
}

/** The time axis, and the value axis when there are values (a chart of marks alone has none). */
function axes(
  d: { t: Domain; v: Domain },
  x: (t: number) => number,
  y: (v: number) => number,
  fmt: (t: number) => string,
  values: boolean,
) {
  const box = CHART_BOX;
  const bottom = box.height - box.bottom;
  return [
    s('line', { class: 'axis', x1: box.left, x2: box.width - box.right, y1: bottom, y2: bottom }),
    s('line', { class: 'axis', x1: box.left, x2: box.left, y1: box.top, y2: bottom }),
    ...timeTicks(d.t.min, d.t.max, 5).map((t) =>
      s('text', { class: 'tick', x: x(t), y: bottom + 16, 'text-anchor': 'middle' }, fmt(t)),
    ),
    ...(values ? valueTicks(d.v, 4) : []).map((v) =>
      s(
        'g',
        {},
        s('line', { class: 'grid', x1: box.left, x2: box.width - box.right, y1: y(v), y2: y(v) }),
        s('text', { class: 'tick', x: box.left - 6, y: y(v) + 4, 'text-anchor': 'end' }, String(v)),
      ),
    ),
  ];
}
