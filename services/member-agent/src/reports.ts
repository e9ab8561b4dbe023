import { createHash, hash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { isClusterHealthExpiryReason } from '@flotilla/api';
import { cloudEvent, eventTypeOf, EventTypes, type CloudEvent } from '@flotilla/bus';
import type { BindingRef, WorkloadReport } from './report-model.js';
import type {
  ClusterCondition,
  ClusterStatusPatch,
  ClusterStatusReportedData,
  StatusLookup,
  WorkloadStatusesReportedData,
  WorkloadStatusReportedData,
} from './report-model.js';

/** One event to publish; `commit` records it as reported, to be called once the bus acknowledged it. */
export interface Report {
  event: CloudEvent;
  commit(): void;
}

interface Memo {
  /**
   * Digest of the canonical JSON of the last reported data (without the derived kubeEvent), `jsonDigest`: the JSON
   * itself, held for every workload in every cluster, was some 10 MB at 10,000 workloads.
   */
  digest: string;
  /** Chain link: a hash over every report so far, which makes each event id unique yet stable across retries. */
  link: string;
  ready?: boolean;
  removed?: boolean;
  /** Pods the cluster reported Pending for the binding (`status.pendingReplicas`), for the PodsPending event. */
  pending?: number;
}

/** 96 bits of SHA-256 in hex, as a string of its own (a slice of the whole hex digest would keep all of it alive). */
const sha = (s: string) => createHash('sha256').update(s).digest().toString('hex', 0, 12);
/** What a memo keeps of a report's JSON to tell whether the next report is the same. */
const jsonDigest = (json: string) => hash('sha1', json, 'base64');
export const bindingKey = (r: BindingRef) => `${r.kind}/${r.namespace ?? ''}/${r.name}`;

/**
 * The reports of several clusters of one binding as one event (WorkloadStatusesReportedData): one write for the status
 * writer and one event in the log, where one per cluster cost as many of each. Its id is made of the clusters' own
 * (chained) ids, so a retry is the same message; committed, it records every cluster's report.
 */
function combinedReport(reports: readonly Report[], targetClusters: string[] | undefined): Report {
  const first = reports[0]!.event;
  const datas = reports.map((r) => r.event.data as WorkloadStatusReportedData);
  const kubeEvents = datas.flatMap((d) => (d.kubeEvent ? [d.kubeEvent] : []));
  const data: WorkloadStatusesReportedData = {
    reports: datas.map(({ targetClusters: _t, kubeEvent: _k, ...report }) => report),
    ...(targetClusters ? { targetClusters } : {}),
    ...(kubeEvents.length ? { kubeEvents } : {}),
  };
  const event = cloudEvent({
    id: `${first.flotillakind}/${first.flotillanamespace ?? ''}/${first.flotillaname}/${EventTypes.WorkloadStatusReported}/${sha(reports.map((r) => r.event.id).join('\n'))}`,
    source: first.source,
    type: EventTypes.WorkloadStatusReported,
    kind: first.flotillakind,
    namespace: first.flotillanamespace || undefined,
    name: first.flotillaname,
    time: new Date(first.time),
    data,
  });
  return {
    event,
    commit: () => {
      for (const r of reports) r.commit();
    },
  };
}

/**
 * The reports of several agents' passes as few events as they can be, cluster reports first: the single-cluster
 * WorkloadStatusReported reports of one binding become one (combinedReport), in the order each binding first comes,
 * after every other report. A process serving many clusters publishes its drivers' reports of one round through
 * this, so a binding's clusters cost the status writer one write and the log one event, as one agent speaking for
 * them all did.
 *
 * Why cluster reports first: the scheduler stops assuming a binding's pods in a cluster once the binding reports them
 * there, and counts them from the cluster's summary from then on. A binding's report covering a later cluster of the
 * round, stored before that cluster's summary, left the pods counted nowhere for a moment, and a burst overcommitted
 * that cluster (test/overcommit: 112-124 pods assigned to a cluster of 110, in 3 runs of 4).
 */
export function combineWorkloadReports(reports: readonly Report[]): Report[] {
  const others: Report[] = [];
  const groups: Report[][] = [];
  const byBinding = new Map<string, Report[]>();
  for (const r of reports) {
    const data = r.event.data as Partial<WorkloadStatusesReportedData> | undefined;
    if (eventTypeOf(r.event) !== EventTypes.WorkloadStatusReported || data?.reports !== undefined) {
      others.push(r);
      continue;
    }
    const key = `${r.event.flotillakind}/${r.event.flotillanamespace ?? ''}/${r.event.flotillaname}`;
    const group = byBinding.get(key);
    if (group) group.push(r);
    else {
      const fresh = [r];
      byBinding.set(key, fresh);
      groups.push(fresh);
    }
  }
  return [
    ...others,
    ...groups.map((g) =>
      g.length === 1 ? g[0]! : combinedReport(g, (g[0]!.event.data as WorkloadStatusReportedData).targetClusters),
    ),
  ];
}

/** The names of the clusters a binding targets (`spec.clusters`), sorted. */
export function targetClusterNames(binding: { spec?: unknown }): string[] {
  const clusters = (binding.spec as { clusters?: unknown } | undefined)?.clusters;
  if (!Array.isArray(clusters)) return [];
  return clusters
    .map((c) => (c as { name?: unknown }).name)
    .filter((n): n is string => typeof n === 'string')
    .sort();
}

export interface WorkloadReportsOptions {
  ref: BindingRef;
  /** This agent's report per cluster. */
  current: Map<string, WorkloadReport>;
  /** The clusters this agent speaks for. */
  owned: { has(cluster: string): boolean };
  /** The binding's target clusters (targetClusterNames), carried by every report for the FullyApplied condition. */
  targetClusters: string[];
  now: Date;
  statusOf: StatusLookup;
}

/**
 * What an agent has reported, per cluster and per binding and cluster, and the events for what changed since. Both
 * drivers report through it, so a cluster's status and a workload's `aggregatedStatus` entry mean the same from a
 * simulated and from a real cluster. A new agent seeds its memory from the stored status (`statusOf`): it repeats
 * nothing that is already folded.
 */
export class ReportBook {
  private readonly clusterMemo = new Map<string, Memo>();
  /** binding key → cluster name → memo. */
  private readonly workloadMemo = new Map<string, Map<string, Memo>>();

  constructor(private readonly source: string) {}

  /** The `ClusterStatusReported` event for `patch`, unless it is what was last reported (or is stored). */
  clusterReport(cluster: string, patch: ClusterStatusPatch, now: Date, statusOf: StatusLookup): Report | undefined {
    const json = JSON.stringify(patch);
    const digest = jsonDigest(json);
    const ready = patch.conditions[0]!.status === 'True';
    let memo = this.clusterMemo.get(cluster);
    if (memo && readyReasonIsExpiry(statusOf('Cluster', undefined, cluster))) {
      // The scheduler set Ready=Unknown while this agent was silent (cut off from NATS, say): what it remembers having
      // reported no longer stands. It reports again from the stored status (the same event id until that is folded).
      this.clusterMemo.delete(cluster);
      memo = undefined;
    }
    if (!memo) {
      const stored = statusOf('Cluster', undefined, cluster);
      const storedReady = (stored?.conditions as ClusterCondition[] | undefined)?.find((c) => c.type === 'Ready');
      const seeded = {
        link: stored ? `stored:${sha(JSON.stringify(stored))}` : 'none',
        ...(storedReady ? { ready: storedReady.status === 'True' } : {}),
      };
      if (stored && clusterPatchIsNoop(stored, patch)) {
        this.clusterMemo.set(cluster, { ...seeded, digest, ready });
        return undefined;
      }
      memo = { ...seeded, digest: '' };
    }
    if (memo.digest === digest) return undefined;
    const link = sha(`${memo.link}\n${json}`);
    const data: ClusterStatusReportedData = { statusPatch: patch };
    if (memo.ready !== ready) {
      data.kubeEvent = ready
        ? {
            type: 'Normal',
            reason: 'ClusterReady',
            message: `cluster ${cluster} is ready: ${patch.conditions[0]!.message}`,
          }
        : {
            type: 'Warning',
            reason: 'ClusterNotReady',
            message: `cluster ${cluster} is not ready: ${patch.conditions[0]!.message}`,
          };
    }
    const event = cloudEvent({
      id: `Cluster//${cluster}/${EventTypes.ClusterStatusReported}/${link}`,
      source: this.source,
      type: EventTypes.ClusterStatusReported,
      kind: 'Cluster',
      name: cluster,
      time: now,
      data,
    });
    return { event, commit: () => this.clusterMemo.set(cluster, { digest, link, ready }) };
  }

  /**
   * The `WorkloadStatusReported` events of one binding: `current` holds this agent's report per cluster; a cluster
   * in `owned` (the clusters this agent speaks for) without a report is reported removed once.
   */
  workloadReports({ ref, current, owned, targetClusters, now, statusOf }: WorkloadReportsOptions): Report[] {
    const bKey = bindingKey(ref);
    const memos = this.workloadMemo.get(bKey) ?? new Map<string, Memo>();
    // Kept only once it remembers something: an agent looking at bindings it never reported keeps no memory of them.
    const remember = (cluster: string, memo: Memo) => {
      memos.set(cluster, memo);
      this.workloadMemo.set(bKey, memos);
    };
    let storedEntries: Map<string, Record<string, unknown>> | undefined;
    const stored = () => {
      if (!storedEntries) {
        const s = statusOf(ref.kind, ref.namespace, ref.name);
        const list = (s?.aggregatedStatus as Array<Record<string, unknown>> | undefined) ?? [];
        storedEntries = new Map(list.map((e) => [String(e.clusterName), e]));
      }
      return storedEntries;
    };
    const clusters = new Set<string>(current.keys());
    for (const c of memos.keys()) if (owned.has(c)) clusters.add(c);
    // Entries of this agent's clusters in the stored status that it may have reported before a restart.
    if (memos.size === 0 || [...current.keys()].some((c) => !memos.has(c)))
      for (const c of stored().keys()) if (owned.has(c)) clusters.add(c);

    const out: Report[] = [];
    for (const cluster of [...clusters].sort()) {
      const report = current.get(cluster);
      const data: WorkloadStatusReportedData = report
        ? { clusterName: cluster, ...report, targetClusters }
        : { clusterName: cluster, applied: false, removed: true, targetClusters };
      const json = JSON.stringify(data);
      const digest = jsonDigest(json);
      let memo = memos.get(cluster);
      if (!memo) {
        const entry = stored().get(cluster);
        const link = entry ? `stored:${sha(JSON.stringify(entry))}` : 'none';
        if (report ? entry !== undefined && workloadEntryMatches(entry, cluster, report) : entry === undefined) {
          remember(cluster, { digest, link, pending: pendingOf(report), ...(report ? {} : { removed: true }) });
          continue;
        }
        memo = { digest: '', link, pending: pendingOf(entry as WorkloadReport | undefined) };
      }
      if (memo.digest === digest) continue;
      const link = sha(`${memo.link}\n${json}`);
      const pending = pendingOf(report);
      // Applied is not running: the first report of pods the member cannot place says so on the binding, once.
      if (pending > 0 && (memo.pending ?? 0) === 0)
        data.kubeEvent = {
          type: 'Warning',
          reason: 'PodsPending',
          message: `${pending} of ${report!.status!.replicas} pod(s) Pending in cluster ${cluster}: no node there fits them`,
        };
      const event = cloudEvent({
        id: `${ref.kind}/${ref.namespace ?? ''}/${ref.name}/${EventTypes.WorkloadStatusReported}/${cluster}/${link}`,
        source: this.source,
        type: EventTypes.WorkloadStatusReported,
        kind: ref.kind,
        namespace: ref.namespace,
        name: ref.name,
        time: now,
        data,
      });
      out.push({
        event,
        commit: () => remember(cluster, { digest, link, pending, ...(report ? {} : { removed: true }) }),
      });
    }
    return out.length > 1 ? [combinedReport(out, targetClusters)] : out;
  }

  /** Whether anything was reported (or found stored) for the binding, by any cluster this agent speaks for. */
  remembers(ref: BindingRef): boolean {
    return (this.workloadMemo.get(bindingKey(ref))?.size ?? 0) > 0;
  }

  /** Drops the memory of clusters no longer owned and of bindings that are gone (their status went with them). */
  forgetGone(owned: { has(cluster: string): boolean }, presentBindings: ReadonlySet<string>): void {
    for (const c of this.clusterMemo.keys()) if (!owned.has(c)) this.clusterMemo.delete(c);
    for (const [b, memos] of this.workloadMemo) {
      if (!presentBindings.has(b)) this.workloadMemo.delete(b);
      else for (const c of memos.keys()) if (!owned.has(c)) memos.delete(c);
    }
  }
}

/** Whether a stored Cluster status has the Ready=Unknown the scheduler sets for a silent agent. */
export function readyReasonIsExpiry(status: Record<string, unknown> | undefined): boolean {
  const conditions = status?.conditions as ClusterCondition[] | undefined;
  return isClusterHealthExpiryReason(conditions?.find((c) => c.type === 'Ready')?.reason);
}

/** True when folding `patch` into `stored` would change nothing the patch speaks about. */
export function clusterPatchIsNoop(stored: Record<string, unknown>, patch: ClusterStatusPatch): boolean {
  for (const [field, value] of Object.entries(patch)) {
    if (field === 'conditions') {
      const have = (stored.conditions as ClusterCondition[] | undefined) ?? [];
      for (const c of value as ClusterCondition[]) {
        const s = have.find((h) => h.type === c.type);
        if (!s || s.status !== c.status || s.reason !== c.reason || s.message !== c.message) return false;
      }
    } else if (value === null ? stored[field] != null : !isDeepStrictEqual(stored[field], value)) return false;
  }
  return true;
}

const pendingOf = (report: Pick<WorkloadReport, 'status'> | undefined) => report?.status?.pendingReplicas ?? 0;

function workloadEntryMatches(entry: Record<string, unknown>, cluster: string, report: WorkloadReport): boolean {
  const expected: Record<string, unknown> = { clusterName: cluster, applied: report.applied, health: report.health };
  if (report.appliedMessage) expected.appliedMessage = report.appliedMessage;
  if (report.status !== undefined) expected.status = report.status;
  return isDeepStrictEqual(entry, expected);
}
