import { allocatableModelings, type ModeledNode, type ObjectMeta, type ResourceModel } from '@flotilla/api';
import { addResources, resourcesFrom, toResourceList, ZERO, type Resources } from '../resources.js';
import type { ClusterStatusPatch } from '../report-model.js';
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

/**
 * Pod templates' requests, by the template's pod spec object: a workload's template is read for its pods' request by
 * every pass that looks at it. Keyed by identity, as ManifestCache is: objects from an informer are replaced on a
 * change, never changed in place. (Not for pods or specs made for one call: a key per call costs the collector more
 * than the request costs to compute.)
 */
const requestOfTemplate = new WeakMap<object, Resources>();

/** The request of each pod a template's pod spec (`spec.template.spec`) makes, computed once per spec object. */
export function templatePodRequest(spec: NonNullable<KubePod['spec']>): Resources {
  const known = requestOfTemplate.get(spec);
  if (known) return known;
  const request = Object.freeze(podRequest({ spec }));
  requestOfTemplate.set(spec, request);
  return request;
}

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
    request: requestOrNothing(pod),
  };
}

/**
 * A pod's request, or a pod's slot and nothing else when a quantity cannot be read: an API server admits no such pod,
 * and a projection that threw would take the informer (and the process, from a watch callback) down with it.
 */
function requestOrNothing(pod: KubePod): Resources {
  try {
    return podRequest(pod);
  } catch {
    return { ...ZERO, pods: 1 };
  }
}

/**
 * Karmada's cluster status controller over live nodes and pods: allocatable is the sum over nodes; allocated the
 * requests of pods bound to a node and not finished; allocating the requests of pods not bound yet; and
 * allocatableModelings how many nodes fall into each of the cluster's resource models after what runs on them
 * (`models`: the Cluster's own or Karmada's defaults), which lets the estimator see that a pod fits no node.
 */
export function kubeClusterStatus(
  version: string,
  nodes: Iterable<NodeView>,
  pods: Iterable<PodView>,
  models: readonly ResourceModel[],
): ClusterStatusPatch {
  let allocatable: Resources = { ...ZERO };
  const byNode = new Map<string, ModeledNode & { requested: Record<string, number> }>();
  for (const n of nodes) {
    allocatable = addResources(allocatable, n.allocatable);
    byNode.set(n.name, {
      allocatable: { cpu: n.allocatable.cpuMilli, memory: n.allocatable.memoryBytes, pods: n.allocatable.pods },
      requested: { cpu: 0, memory: 0 },
      pods: 0,
    });
  }
  let allocated: Resources = { ...ZERO };
  let allocating: Resources = { ...ZERO };
  for (const p of pods) {
    if (!p.nodeName) allocating = addResources(allocating, p.request);
    else if (p.phase !== 'Succeeded' && p.phase !== 'Failed') {
      allocated = addResources(allocated, p.request);
      const n = byNode.get(p.nodeName);
      if (n) {
        n.requested.cpu! += p.request.cpuMilli;
        n.requested.memory! += p.request.memoryBytes;
        n.pods++;
      }
    }
  }
  return {
    kubernetesVersion: version,
    conditions: [{ ...READY }],
    resourceSummary: {
      allocatable: toResourceList(allocatable),
      allocated: toResourceList(allocated),
      allocating: toResourceList(allocating),
      allocatableModelings: allocatableModelings(models, byNode.values()),
    },
  };
}

/** What an unreachable cluster reports: Ready False only; the last summary stays as it was. */
export function unreachableClusterStatus(): ClusterStatusPatch {
  return { conditions: [{ ...NOT_REACHABLE }] };
}

/** The API server answered `/readyz` with something other than 200 (and why, where the member said). */
export function unhealthyClusterStatus(why?: string): ClusterStatusPatch {
  return { conditions: [{ ...NOT_HEALTHY, ...(why ? { message: `${NOT_HEALTHY.message}: ${why}` } : {}) }] };
}

/** The health probes so far: since when they fail, what they saw, and since when they succeed again. */
export interface ProbeHistory {
  /**
   * Time the current run of failed probes began; undefined while the cluster answers. Kept while the cluster
   * recovers (it was reported not Ready and must answer for the success threshold before it is Ready again).
   */
  failingSinceMs?: number;
  /** What the failing probes saw: no answer, or an answer other than 200. */
  failure?: 'unreachable' | 'unhealthy';
  /** Why the last failing probe's answer was not ok, where the member said. */
  why?: string;
  /** Time the current run of good probes began after the cluster was reported not Ready. */
  recoveringSinceMs?: number;
}

/** Karmada's `--cluster-failure-threshold` and `--cluster-success-threshold`, in milliseconds. */
export interface ReadinessThresholds {
  /** How long probes must fail before a Ready cluster is reported not Ready. */
  failureThresholdMs: number;
  /** How long probes must succeed before a cluster reported not Ready is reported Ready again. */
  successThresholdMs: number;
}

export type ProbeResult = 'ok' | 'unhealthy' | 'unreachable';

/**
 * Folds one probe into the history: `ok` (200 from /readyz), `unhealthy` (another answer) or `unreachable`.
 * As in Karmada's cluster condition cache, a change of what the probes see restarts the threshold that applies: a
 * failure while the cluster recovers puts it back to not Ready (its recovery starts again at the next good probe),
 * and a good probe before the failure threshold ran out leaves the cluster Ready as if nothing happened.
 */
export function probed(
  history: ProbeHistory,
  result: ProbeResult,
  nowMs: number,
  thresholds: ReadinessThresholds,
  why?: string,
): ProbeHistory {
  const state = reportedState(history, nowMs, thresholds);
  if (result === 'ok') {
    if (state === 'ready' || state === 'failing') return {};
    if (state === 'recovering') return history;
    return { ...history, recoveringSinceMs: nowMs };
  }
  // A Ready cluster starts the failure threshold now. Failing on (or again while it recovers), the first failure is
  // kept: a cluster not Ready stays so at once, without running the failure threshold a second time.
  const reason = why !== undefined ? { why } : {};
  if (state === 'ready') return { failingSinceMs: nowMs, failure: result, ...reason };
  return { failingSinceMs: history.failingSinceMs!, failure: result, ...reason };
}

export type Readiness =
  | { ready: true }
  | { ready: false; patch: ClusterStatusPatch; recheckInMs?: number }
  | { ready: 'pending'; recheckInMs: number };

/**
 * Karmada's cluster thresholds: a cluster whose probes fail is reported not Ready only once they have failed for
 * `failureThresholdMs`, so one lost probe does not fail a cluster over. While that runs, the cluster keeps its last
 * report (`pending`) and the caller looks again after `recheckInMs`. A cluster reported not Ready is Ready again only
 * once its probes have succeeded for `successThresholdMs`, so a flapping API server does not bounce its workloads
 * back; until then it stays not Ready for the reason last seen, and the caller looks again after `recheckInMs`.
 */
export function readiness(history: ProbeHistory, nowMs: number, thresholds: ReadinessThresholds): Readiness {
  const state = reportedState(history, nowMs, thresholds);
  if (state === 'ready') return { ready: true };
  if (state === 'failing')
    return { ready: 'pending', recheckInMs: history.failingSinceMs! + thresholds.failureThresholdMs - nowMs };
  const patch = history.failure === 'unhealthy' ? unhealthyClusterStatus(history.why) : unreachableClusterStatus();
  if (state === 'notReady') return { ready: false, patch };
  return {
    ready: false,
    patch,
    recheckInMs: history.recoveringSinceMs! + thresholds.successThresholdMs - nowMs,
  };
}

/**
 * Where the history stands at `nowMs`: `ready`; `failing` within the failure threshold (still reported Ready);
 * `notReady`; or `recovering` within the success threshold (still reported not Ready). A run of probes lasts until a
 * probe says otherwise, so a threshold that ran out between two probes has been reached.
 */
function reportedState(
  history: ProbeHistory,
  nowMs: number,
  thresholds: ReadinessThresholds,
): 'ready' | 'failing' | 'notReady' | 'recovering' {
  if (history.failingSinceMs === undefined) return 'ready';
  if (history.recoveringSinceMs !== undefined)
    return nowMs - history.recoveringSinceMs >= thresholds.successThresholdMs ? 'ready' : 'recovering';
  return nowMs - history.failingSinceMs >= thresholds.failureThresholdMs ? 'notReady' : 'failing';
}

function pick(list: Record<string, string | undefined> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of ['cpu', 'memory', 'pods']) if (list?.[k] !== undefined) out[k] = list[k]!;
  return out;
}
