import type { Series } from './trail.js';

export interface Box {
  width: number;
  height: number;
  /** Room left for the axes' labels. */
  left: number;
  bottom: number;
  top: number;
  right: number;
}

export interface Domain {
  min: number;
  max: number;
}

export const CHART_BOX: Box = { width: 640, height: 240, left: 48, bottom: 28, top: 12, right: 12 };

/** The extent of every point of every series; a flat or empty extent is widened so that scales never divide by 0. */
export function domains(series: readonly Series[], extra: { t?: readonly number[]; v?: readonly number[] } = {}) {
  const ts = [...series.flatMap((s) => s.points.map((p) => p.t)), ...(extra.t ?? [])];
  const vs = [...series.flatMap((s) => s.points.map((p) => p.v)), ...(extra.v ?? [])];
  const widen = (d: Domain, by: number): Domain => (d.max > d.min ? d : { min: d.min - by, max: d.max + by });
  const t = ts.length ? widen({ min: Math.min(...ts), max: Math.max(...ts) }, 60_000) : { min: 0, max: 1 };
  // Counts start at 0, so that a change from 3 to 4 does not look like a doubling.
  const v = vs.length ? widen({ min: Math.min(0, ...vs), max: Math.max(...vs) }, 1) : { min: 0, max: 1 };
  return { t, v };
}

export const scale = (d: Domain, from: number, to: number) => (x: number) =>
  from + ((x - d.min) / (d.max - d.min)) * (to - from);

/**
 * An SVG path of a series: as steps (a count holds until it changes) or straight lines (a sampled load, a
 * forecast). Coordinates rounded to a tenth of a pixel.
 */
export function seriesPath(
  s: Series,
  d: { t: Domain; v: Domain },
  box: Box = CHART_BOX,
  shape: 'step' | 'line' = 'step',
): string {
  const x = scale(d.t, box.left, box.width - box.right);
  const y = scale(d.v, box.height - box.bottom, box.top);
  const r = (n: number) => Math.round(n * 10) / 10;
  let out = '';
  let prevY: number | undefined;
  for (const p of s.points) {
    const px = r(x(p.t));
    const py = r(y(p.v));
    if (prevY === undefined) out += `M${px},${py}`;
    else out += shape === 'step' ? `H${px}V${py}` : `L${px},${py}`;
    prevY = py;
  }
  return out;
}

/** Round tick values for a value axis: about `count` of them, at 1, 2 or 5 times a power of ten. */
export function valueTicks(d: Domain, count = 4): number[] {
  const span = d.max - d.min;
  if (!(span > 0)) return [d.min];
  const raw = span / count;
  const p = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw) ?? 10 * p;
  const out: number[] = [];
  for (let v = Math.ceil(d.min / step) * step; v <= d.max + 1e-9; v += step) out.push(Math.round(v * 1e6) / 1e6);
  return out;
}
