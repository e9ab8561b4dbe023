/** A trail entry as the gateway's `workload` view returns it (packages/replica-trail's TrailEntry, field in words). */
export interface TrailPoint {
  time: string;
  field: { kind: string; cluster?: string; autoscaler?: string };
  from: unknown;
  to: unknown;
  by: string;
  why: string;
}

/** One line of a chart: its name and its points in time order (t in epoch milliseconds). */
export interface Series {
  name: string;
  points: Array<{ t: number; v: number }>;
}

/**
 * The replica trail as chart series: the template's `spec.replicas`, and each cluster's share. A count holds until
 * the next change, so each series is drawn as steps and extended to `now`; a cluster whose share was removed drops
 * to 0. Entries that are not counts (member HPA limits, conflicts) are left to the table beside the chart.
 */
export function trailSeries(entries: readonly TrailPoint[], now: number): Series[] {
  const byName = new Map<string, Series>();
  const sorted = [...entries].sort((a, b) => Date.parse(a.time) - Date.parse(b.time));
  for (const e of sorted) {
    const name =
      e.field.kind === 'replicas' ? 'replicas' : e.field.kind === 'cluster' ? `cluster ${e.field.cluster}` : undefined;
    if (!name) continue;
    const v = typeof e.to === 'number' ? e.to : e.to === null ? 0 : undefined;
    if (v === undefined) continue;
    const s = byName.get(name) ?? { name, points: [] };
    byName.set(name, s);
    s.points.push({ t: Date.parse(e.time), v });
  }
  const series = [...byName.values()].sort((a, b) =>
    a.name === 'replicas' ? -1 : b.name === 'replicas' ? 1 : a.name.localeCompare(b.name),
  );
  for (const s of series) {
    const last = s.points.at(-1);
    if (last && last.t < now) s.points.push({ t: now, v: last.v });
  }
  return series;
}

/** A trail value in words: `3`, `min 1 max 10`, `removed`, `unknown`. */
export function trailValueText(v: unknown): string {
  if (v === null || v === undefined) return '-';
  if (typeof v === 'number') return String(v);
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if ('status' in o) return `${String(o.status)}${o.reason ? ` (${String(o.reason)})` : ''}`;
    return [
      o.minReplicas === undefined ? '' : `min ${String(o.minReplicas)}`,
      o.maxReplicas === undefined ? '' : `max ${String(o.maxReplicas)}`,
    ]
      .filter(Boolean)
      .join(' ');
  }
  return String(v);
}

/** What a trail entry changed, in words: `spec.replicas`, `member1 share`, `member1 HPA`, `limits of fhpa/x`. */
export function trailFieldText(f: TrailPoint['field']): string {
  switch (f.kind) {
    case 'replicas':
      return 'spec.replicas';
    case 'cluster':
      return `${f.cluster} share`;
    case 'memberHpa':
      return `${f.cluster} HPA`;
    case 'autoscalerLimits':
      return `limits of ${f.autoscaler}`;
    case 'ownerConflict':
      return `conflict on ${f.autoscaler}`;
    default:
      return f.kind;
  }
}
