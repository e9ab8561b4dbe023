import uPlot from 'uplot';
import { alignSeries, type Series, timeRange, valueRange } from '../view/index.js';
import { h, table } from './dom.js';

/** Line styles beside colours, so that colour is never the only way to tell the series apart. */
const DASHES: ReadonlyArray<number[] | undefined> = [undefined, [6, 3], [2, 3], [10, 3, 2, 3], [1, 5]];
const COLOURS = ['#0b5cad', '#d1600f', '#1e6b35', '#7a3db8', '#a01c5b', '#4d5866'];
const WIDTH = 720;
const HEIGHT = 240;

export interface ChartOptions {
  title: string;
  series: Series[];
  shape?: 'step' | 'line';
  /** How a time on the axis reads (local time by default). */
  formatTime?: (t: number) => string;
  /** The IANA zone the time axis falls on round hours and days of (the browser's by default). */
  timeZone?: string;
  /** Instants the time axis must include ("now"). */
  extraTimes?: number[];
  /** Instants marked on the axis with a label (a cron rule's runs, an excluded date). */
  marks?: Array<{ t: number; label: string; kind: 'next' | 'excluded' }>;
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
 * A uPlot chart of series over time, with its text alternative: a figure whose caption names every series and its
 * line style, and a table of the same points a screen reader (or a person who prefers numbers) can read. Marks (a
 * cron rule's runs) are elements over the plot with their label as a tooltip, a circle for a run and a cross for an
 * excluded date, so that a mark's kind does not rest on colour either.
 */
export function timeChart(o: ChartOptions): HTMLElement {
  const marks = o.marks ?? [];
  const { times, values } = alignSeries(o.series, [...(o.extraTimes ?? []), ...marks.map((m) => m.t)]);
  const [from, to] = timeRange(times);
  const fmt = o.formatTime ?? localTime(to - from);
  const plot = h('div', {
    class: 'chart',
    role: 'img',
    'aria-label': `${o.title}: ${o.series.map((s) => s.name).join(', ') || 'no data'}`,
  });
  const markElements = marks.map((m) =>
    h('span', { class: `mark mark-${m.kind}`, 'data-mark': m.kind, title: m.label }, m.kind === 'excluded' ? '✘' : '●'),
  );
  const placeMarks = (u: uPlot) => {
    for (const [i, el] of markElements.entries()) {
      if (el.parentElement !== u.over) u.over.append(el);
      el.style.left = `${u.valToPos(marks[i]!.t, 'x')}px`;
    }
  };
  const stepped = uPlot.paths.stepped?.({ align: 1 });
  const chart = new uPlot(
    {
      width: WIDTH,
      height: HEIGHT,
      ms: 1,
      ...(o.timeZone ? { tzDate: (t: number) => uPlot.tzDate(new Date(t), o.timeZone!) } : {}),
      scales: {
        x: { time: true, range: () => [from, to] },
        y: { range: (_u, min, max) => (o.series.length ? valueRange(min, max) : [0, 1]) },
      },
      axes: [
        // Ticks far enough apart for labels of this format (uPlot's default spacing assumes short ones).
        { values: (_u, splits) => splits.map((t) => fmt(t)), space: fmt(from).length * 7 + 16 },
        { show: o.series.length > 0 },
      ],
      series: [
        { label: 'time', value: (_u, t) => (t === null ? '-' : fmt(t)) },
        ...o.series.map((s, i) => ({
          label: s.name,
          stroke: COLOURS[i % COLOURS.length]!,
          width: 2,
          ...(DASHES[i % DASHES.length] ? { dash: DASHES[i % DASHES.length]! } : {}),
          spanGaps: true,
          ...(o.shape !== 'line' && stepped ? { paths: stepped } : {}),
        })),
      ],
      legend: { show: o.series.length > 0 },
      hooks: { draw: [placeMarks] },
    },
    [times, ...values],
    plot,
  );
  placeMarks(chart);
  // As wide as the page allows, up to WIDTH: uPlot draws at a size in pixels. A live page re-renders by replacing its
  // content, and a ResizeObserver also fires when its element leaves the document: then the chart is destroyed, which
  // removes the listeners uPlot put on the window (they would keep every replaced chart alive in a tab left open).
  // (Only once it has been in the document: the chart is built before its page is attached.)
  let shown = false;
  const sizer = new ResizeObserver(([entry]) => {
    if (!plot.isConnected) {
      if (shown) {
        sizer.disconnect();
        chart.destroy();
      }
      return;
    }
    shown = true;
    const width = Math.min(WIDTH, Math.floor(entry?.contentRect.width ?? WIDTH));
    if (width > 0 && width !== chart.width) chart.setSize({ width, height: HEIGHT });
  });
  sizer.observe(plot);
  const styles = o.series.map((s, i) => `${s.name} (${DASHES[i % DASHES.length] ? 'dashed' : 'solid'})`);
  const rows = [
    ...o.series.flatMap((s) => s.points.map((p) => [s.name, fmt(p.t), String(Math.round(p.v * 100) / 100)])),
    ...marks.map((m) => [m.kind, fmt(m.t), m.label]),
  ];
  return h(
    'figure',
    { class: 'chart-figure' },
    plot,
    h('figcaption', {}, o.title, styles.length ? `: ${styles.join(', ')}` : ''),
    h(
      'details',
      {},
      h('summary', {}, `${o.title} as a table`),
      table(o.title, ['series', 'time', 'value'], rows, { class: 'chart-table' }),
    ),
  );
}
