import type { ObjectMeta } from '@flotilla/api';
import { addResources, resourcesFrom, toResourceList, ZERO, type Resources } from '../sim/resources.js';
import type { ClusterStatusPatch } from '../sim/cluster-sim.js';
import type { PodView } from './workload-status.js';

/** The parts of a Node the driver reads. */
export interface KubeNode {
  metadata?: { name?: string };
  status?: { allocatable?: Record<string, string | undefined> };
}

export interface KubeContainer {
  resources?: { requests?: Record<string, string | undefined> };
}

/** The parts of a Pod the driver reads. */
export interface KubePod {
  metadata?: Partial<Pick<ObjectMeta, 'name' | 'namespace' | 'labels'>>;
  spec?: {
    nodeName?: string;
    containers?: KubeContainer[];
    initContainers?: KubeContainer[];
    overhead?: Record<string, string | undefined>;
  };
  status?: { phase?: string; conditions?: Array<{ type: string; status: string }> };
}

const READY = {
  type: 'Ready',
  status: 'True',
  reason: 'ClusterReady',
  message: 'cluster is healthy and ready to accept workloads',
} as const;
const NOT_HEALTHY = {
  type: 'Ready',
  status: 'False',
  reason: 'ClusterNotReady',
  message: 'cluster is reachable but health endpoint responded without ok',
} as const;
const NOT_REACHABLE = {
  type: 'Ready',
  status: 'False',
  reason: 'ClusterNotReachable',
  message: 'cluster is not reachable',
} as const;

/** A pod's effective request, as the scheduler counts it: max(sum of containers, largest init container) + overhead. */
export function podRequest(pod: KubePod): Resources {
  const path = `pod ${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
  const sum = (pod.spec?.containers ?? []).reduce(
    (acc, c) => addResources(acc, resourcesFrom(c.resources?.requests, `${path} requests`)),
    { ...ZERO },
  );
  const init = (pod.spec?.initContainers ?? []).map((c) =>
    resourcesFrom(c.resources?.requests, `${path} init requests`),
  );
  const max = init.reduce(
    (acc, r) => ({
      cpuMilli: Math.max(acc.cpuMilli, r.cpuMilli),
      memoryBytes: Math.max(acc.memoryBytes, r.memoryBytes),
      pods: 0,
    }),
    sum,
  );
  const overhead = resourcesFrom(pod.spec?.overhead, `${path} overhead`);
  return { cpuMilli: max.cpuMilli + overhead.cpuMilli, memoryBytes: max.memoryBytes + overhead.memoryBytes, pods: 1 };
}

/** What the driver keeps of a Node: its allocatable cpu, memory and pods. */
export interface NodeView {
  name: string;
  allocatable: Resources;
}

/** The projections the informers keep (client-go's transform): a node's allocatable capacity. */
export function nodeView(node: KubeNode): NodeView {
  return {
    name: node.metadata?.name ?? '',
    allocatable: resourcesFrom(pick(node.status?.allocatable), `node ${node.metadata?.name ?? ''} allocatable`),
  };
}

/** A pod as the driver keeps it: labels, node, phase, scheduling and readiness, and its effective request. */
export function podView(pod: KubePod): PodView {
  const conditions = pod.status?.conditions ?? [];
  return {
    namespace: pod.metadata?.namespace ?? '',
    name: pod.metadata?.name ?? '',
    labels: pod.metadata?.labels ?? {},
    ...(pod.spec?.nodeName ? { nodeName: pod.spec.nodeName } : {}),
    ...(pod.status?.phase ? { phase: pod.status.phase } : {}),
    unschedulable: conditions.some((c) => c.type === 'PodScheduled' && c.status === 'False'),
    ready: conditions.some((c) => c.type === 'Ready' && c.status === 'True'),
    request: podRequest(pod),
  };
}

/**
 * Karmada's cluster status controller over live nodes and pods: allocatable is the sum over nodes; allocated the
 * requests of pods bound to a node and not finished; allocating the requests of pods not bound yet.
 */
export function kubeClusterStatus(
  version: string,
  nodes: Iterable<NodeView>,
  pods: Iterable<PodView>,
): ClusterStatusPatch {
  let allocatable: Resources = { ...ZERO };
  for (const n of nodes) allocatable = addResources(allocatable, n.allocatable);
  let allocated: Resources = { ...ZERO };
  let allocating: Resources = { ...ZERO };
  for (const p of pods) {
    if (!p.nodeName) allocating = addResources(allocating, p.request);
    else if (p.phase !== 'Succeeded' && p.phase !== 'Failed') allocated = addResources(allocated, p.request);
  }
  return {
    kubernetesVersion: version,
    conditions: [{ ...READY }],
    resourceSummary: {
      allocatable: toResourceList(allocatable),
      allocated: toResourceList(allocated),
      allocating: toResourceList(allocating),
    },
  };
}

/** What an unreachable cluster reports: Ready False only; the last summary stays as it was. */
export function unreachableClusterStatus(): ClusterStatusPatch {
  return { conditions: [{ ...NOT_REACHABLE }] };
}

/** The API server answered `/readyz` with something other than 200. */
export function unhealthyClusterStatus(): ClusterStatusPatch {
  return { conditions: [{ ...NOT_HEALTHY }] };
}

/** The health probes so far: since when they fail, and what they saw. */
export interface ProbeHistory {
  /** Time the current run of failed probes began; undefined while the cluster answers. */
  failingSinceMs?: number;
  /** What the failing probes saw: no answer, or an answer other than 200. */
  failure?: 'unreachable' | 'unhealthy';
}

/** Folds one probe into the history: `ok` (200 from /readyz), `unhealthy` (another answer) or `unreachable`. */
export function probed(history: ProbeHistory, result: 'ok' | 'unhealthy' | 'unreachable', nowMs: number): ProbeHistory {
  if (result === 'ok') return {};
  return { failingSinceMs: history.failingSinceMs ?? nowMs, failure: result };
}

export type Readiness =
  | { ready: true }
  | { ready: false; patch: ClusterStatusPatch }
  | { ready: 'pending'; recheckInMs: number };

/**
 * Karmada's `--cluster-failure-threshold`: a cluster whose probes fail is reported not Ready only once they have
 * failed for `thresholdMs`, so one lost probe does not fail a cluster over. While the threshold runs, the cluster
 * keeps its last report and the caller looks again after `recheckInMs`.
 */
export function readiness(history: ProbeHistory, nowMs: number, thresholdMs: number): Readiness {
  if (history.failingSinceMs === undefined) return { ready: true };
  const remaining = history.failingSinceMs + thresholdMs - nowMs;
  if (remaining > 0) return { ready: 'pending', recheckInMs: remaining };
  return {
    ready: false,
    patch: history.failure === 'unhealthy' ? unhealthyClusterStatus() : unreachableClusterStatus(),
  };
}

function pick(list: Record<string, string | undefined> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of ['cpu', 'memory', 'pods']) if (list?.[k] !== undefined) out[k] = list[k]!;
  return out;
}
