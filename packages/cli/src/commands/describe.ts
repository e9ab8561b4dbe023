import { resolveKind, toYaml } from '@flotilla/api';
import { EventTypes, eventTypeOf, type CloudEvent } from '@flotilla/bus';
import { type DecisionEvents, formatAge, formatTable, lastDecision, replicaTrail } from '@flotilla/presentation';
import type { FilteredCluster, TargetCluster } from '@flotilla/scheduling';
import type { CliIo, Session } from '../context.js';
import { effectiveHpaLines } from './describe-ehpa.js';
import { trailTable } from './explain.js';
import { federatedHpaLines, replicaDivisionLines } from './describe-fhpa.js';
import { rebalanceReport, reportTable } from './rebalance-report.js';

const BINDING_KINDS = new Set(['ResourceBinding', 'ClusterResourceBinding']);
/** How many of a workload's latest replica changes `describe` ends with. */
const TRAIL_TAIL = 5;

/**
 * kubectl-like description: identity, spec and status as YAML, for a binding the latest scheduling decision (why the
 * replicas are where they are), then the object's events.
 */
export interface DescribeOptions {
  /** A kind, plural or short name. */
  kind: string;
  name: string;
  namespace?: string;
}

export async function describeCommand(io: CliIo, s: Session, options: DescribeOptions): Promise<number> {
  const { name } = options;
  const info = resolveKind(options.kind);
  const ns = info.namespaced ? (options.namespace ?? 'default') : undefined;
  const o = await s.client.get(info.kind, name, ns);
  const { items: events } = await s.client.events({ kind: info.kind, namespace: ns, name });
  const m = o.metadata as Record<string, unknown>;
  const lines = [
    `Name:         ${o.metadata.name}`,
    ...(ns ? [`Namespace:    ${ns}`] : []),
    `Labels:       ${fmtMap(m.labels)}`,
    `Annotations:  ${fmtMap(m.annotations)}`,
    `API Version:  ${o.apiVersion}`,
    `Kind:         ${o.kind}`,
    `UID:          ${String(m.uid ?? '')}`,
    `Generation:   ${String(m.generation ?? '')}`,
  ];
  if (o.spec !== undefined) lines.push('Spec:', indent(toYaml(o.spec)));
  if (o.status !== undefined) lines.push('Status:', indent(toYaml(o.status)));
  if (info.kind === 'FederatedHPA')
    lines.push(
      ...federatedHpaLines(
        o.spec as Record<string, unknown> | undefined,
        o.status as Record<string, unknown> | undefined,
      ),
    );
  if (info.kind === 'EffectiveHorizontalPodAutoscaler') {
    lines.push(
      ...effectiveHpaLines(
        o.spec as Record<string, unknown> | undefined,
        o.status as Record<string, unknown> | undefined,
        io.now(),
      ),
    );
  }
  if (BINDING_KINDS.has(info.kind))
    lines.push(
      ...replicaDivisionLines(
        o.spec as Record<string, unknown> | undefined,
        m.annotations as Record<string, string> | undefined,
      ),
    );
  if (BINDING_KINDS.has(info.kind))
    lines.push(
      ...schedulingDecisionLines(
        await lastDecision(s.bus, info.kind, ns, name, typeof m.uid === 'string' ? m.uid : undefined),
        io.now(),
      ),
    );
  if (info.kind === 'WorkloadRebalancer') {
    const report = await rebalanceReport(s, name, typeof m.uid === 'string' ? m.uid : undefined);
    lines.push('Workloads:', indent(report.workloads.length ? reportTable(report.workloads) : '<none observed yet>'));
  }
  lines.push(
    events.length === 0
      ? 'Events:       <none>'
      : `Events:\n${indent(
          formatTable(
            ['Type', 'Reason', 'Age', 'From', 'Message'],
            events.map((e) => [
              e.type,
              e.reason,
              e.count > 1
                ? `${formatAge(e.lastTimestamp, io.now())} (x${e.count} over ${formatAge(e.firstTimestamp, io.now())})`
                : formatAge(e.lastTimestamp, io.now()),
              e.source.component,
              e.message,
            ]),
          ),
        )}`,
  );
  // A workload ends with the latest of its replica trail: why it has the count it has.
  if (!BINDING_KINDS.has(info.kind) && typeof (o.spec as { replicas?: unknown } | undefined)?.replicas === 'number') {
    const trail = await replicaTrail(s.bus, s.client, { kind: info.kind, namespace: ns, name });
    lines.push(
      trail.length
        ? `Replica trail (latest ${Math.min(TRAIL_TAIL, trail.length)} of ${trail.length}; all: flotilla explain replicas ${info.kind.toLowerCase()}/${name}${ns ? ` -n ${ns}` : ''}):\n${indent(trailTable(trail.slice(-TRAIL_TAIL)))}`
        : 'Replica trail: <none>',
    );
  }
  io.out(lines.join('\n'));
  return 0;
}

const fmtMap = (v: unknown) =>
  v && typeof v === 'object' && Object.keys(v).length
    ? Object.entries(v as Record<string, string>)
        .map(([k, x]) => `${k}=${x}`)
        .join('\n              ')
    : '<none>';
const indent = (t: string) =>
  t
    .trimEnd()
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');

/** What the affinity scheduler puts in a decision event (services/affinity-scheduler/src/decision-event.ts). */
interface DecisionData {
  clusters?: TargetCluster[];
  keptClusters?: TargetCluster[];
  affinityName?: string;
  /** With overflowAffinities: cluster → the tier it came from. */
  tiers?: Record<string, string>;
  reason?: string;
  mode?: string;
  trigger?: string;
  kept?: boolean;
  filtered?: FilteredCluster[];
  groups?: Array<{ affinityName?: string; ok?: boolean; message?: string; filtered?: FilteredCluster[] }>;
  kubeEvent?: { message?: string };
}

/**
 * The "Scheduling decision:" section: outcome, the affinity group the result is based on, replicas per cluster, and
 * for every group tried whether it worked and which clusters its filters rejected, with why. Reads the event data
 * leniently: an older or newer scheduler may leave fields out, and describe must still print what there is.
 */
export function schedulingDecisionLines({ decision: e, kept }: DecisionEvents, now: Date): string[] {
  if (!e) return ['Scheduling decision:  <none>'];
  const d = (e.data ?? {}) as DecisionData;
  const failed = eventTypeOf(e) === EventTypes.BindingScheduleFailed;
  const groups = d.groups ?? [];
  const named = groups.some((g) => g.affinityName !== undefined);
  const lines = ['Scheduling decision:'];
  const field = (label: string, value: string) => lines.push(`  ${`${label}:`.padEnd(17)}${value}`);
  const when = (x: CloudEvent) => `${formatAge(x.time, now)} ago (${x.time})`;
  field('Event', `${eventTypeOf(e)}, ${when(e)}`);
  if (kept) field('Kept', `${when(kept)}: nothing asked for rescheduling, the assignment stands`);
  if (d.trigger) field('Trigger', d.trigger);
  if (d.mode) field('Mode', d.mode);
  if (failed) {
    field('Reason', d.reason ?? '<unknown>');
    if (d.kubeEvent?.message) field('Message', d.kubeEvent.message);
  }
  field(
    'Affinity group',
    failed ? 'none succeeded' : (d.affinityName ?? (named ? '<unknown>' : '<none> (single clusterAffinity)')),
  );
  const targets = failed ? d.keptClusters : d.clusters;
  const targetsLabel = failed ? 'Kept clusters' : 'Clusters';
  if (!targets?.length) field(targetsLabel, '<none>');
  else {
    const tiers = failed ? undefined : d.tiers;
    const replicas = (t: TargetCluster) => (t.replicas === undefined ? '-' : String(t.replicas));
    const table = tiers
      ? formatTable(
          ['Cluster', 'Replicas', 'Tier'],
          targets.map((t) => [t.name, replicas(t), tiers[t.name] ?? '-']),
        )
      : formatTable(
          ['Cluster', 'Replicas'],
          targets.map((t) => [t.name, replicas(t)]),
        );
    lines.push(`  ${targetsLabel}:`, ...table.split('\n').map((l) => `    ${l}`));
  }
  // Only a confirmation was found (the scheduling it confirms is no longer in the log): no filter ran for it.
  if (d.kept === true && groups.length === 0) {
    field('Groups tried', '<none> (kept without rescheduling)');
    return lines;
  }
  if (!named) {
    lines.push(...filteredLines(groups[0]?.filtered ?? d.filtered ?? [], '  '));
    return lines;
  }
  lines.push('  Groups tried:');
  for (const g of groups) {
    lines.push(`    ${g.affinityName ?? '<unnamed>'}:  ${g.ok ? 'Scheduled' : `Failed: ${g.message ?? ''}`.trimEnd()}`);
    lines.push(...filteredLines(g.filtered ?? [], '      '));
  }
  return lines;
}

function filteredLines(filtered: readonly FilteredCluster[], pad: string): string[] {
  if (filtered.length === 0) return [`${pad}Filtered clusters:  <none>`];
  const table = formatTable(
    ['Cluster', 'Reason'],
    filtered.map((f) => [f.cluster, f.reason]),
  );
  return [`${pad}Filtered clusters:`, ...table.split('\n').map((l) => `${pad}  ${l}`)];
}
