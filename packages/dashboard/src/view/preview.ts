import type { TargetCluster } from '@flotilla/api';
import type { Preview } from '@flotilla/preview';
import { parseAllDocuments } from 'yaml';

/** The gateway's `preview` answer, as `flotilla what-if ... --live -o json` prints it (types only: nothing of the
 * preview package is bundled). */
export type PreviewAnswer = Preview;

/** One row of the Preview page's table of moves: the columns `flotilla what-if ... --live` prints. */
export interface PreviewRow {
  binding: string;
  outcome: string;
  at: string;
  before: string;
  after: string;
  group: string;
  rejected: string;
}

export interface AutoscalerRow {
  autoscaler: string;
  rule: string;
  target: string;
  at: string;
  replicas: string;
  reason: string;
}

const placement = (c: readonly TargetCluster[]) =>
  c.length ? c.map((t) => `${t.name}:${t.replicas ?? 0}`).join(', ') : 'none';

/** The table of moves: every binding touched, before → after, its group change, and the clusters rejected. */
export function previewRows(p: PreviewAnswer): PreviewRow[] {
  return p.bindings.map((b) => ({
    binding: `${b.namespace ? `${b.namespace}/` : ''}${b.name}`,
    outcome: b.outcome,
    at: b.at,
    before: placement(b.before),
    after: b.outcome === 'Unschedulable' ? `${placement(b.after)} (kept): ${b.message ?? ''}` : placement(b.after),
    group:
      b.groupAfter && b.groupAfter !== b.groupBefore
        ? `${b.groupBefore ?? 'none'} → ${b.groupAfter}`
        : (b.groupAfter ?? ''),
    rejected: b.rejected.map((r) => `${r.cluster}: ${r.reason}`).join('; '),
  }));
}

/** The autoscalers' replica changes: `6 → 4`, or min/max a cron rule sets on a FederatedHPA. */
export function autoscalerRows(p: PreviewAnswer): AutoscalerRow[] {
  return (p.autoscalers ?? []).map((a) => ({
    autoscaler: `${a.kind}/${a.name}`,
    rule: a.rule ?? '',
    target: a.minReplicas === undefined ? a.target : `${a.target} min ${a.minReplicas} max ${a.maxReplicas ?? '?'}`,
    at: a.at,
    replicas: a.replicasAfter === undefined ? 'not known' : `${a.replicasBefore ?? 'none'} → ${a.replicasAfter}`,
    reason: a.reason,
  }));
}

/** What the preview cannot know: each autoscaler's own, then the preview's, then a cut short. */
export function previewUnknowns(p: PreviewAnswer): string[] {
  return [
    ...(p.autoscalers ?? []).flatMap((a) =>
      a.notKnown ? [`${a.kind} ${a.name}${a.rule ? ` rule ${a.rule}` : ''}: ${a.notKnown}`] : [],
    ),
    ...p.unknowns,
    ...(p.truncated ? [`cut short: ${p.truncated.notPreviewed} bindings not looked at`] : []),
  ];
}

/** Pasted YAML or JSON that is not objects. */
export class ManifestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ManifestError';
  }
}

/** The objects of pasted YAML (or JSON), documents separated by `---`; empty documents are skipped. */
export function parseManifests(text: string): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  for (const [i, doc] of parseAllDocuments(text).entries()) {
    const err = doc.errors[0];
    if (err) throw new ManifestError(`document ${i + 1}: ${err.message}`);
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) continue;
    if (typeof value !== 'object' || Array.isArray(value))
      throw new ManifestError(`document ${i + 1}: expected a Kubernetes object (kind, metadata), not ${typeof value}`);
    out.push(value as Record<string, unknown>);
  }
  if (!out.length) throw new ManifestError('nothing to preview: paste one or more objects');
  return out;
}
