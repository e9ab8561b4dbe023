import { addResources, resourcesFrom, toResourceList, ZERO, type Resources } from '../sim/resources.js';
import type { ClusterStatusPatch } from '../sim/cluster-sim.js';
import type { KubeNode, KubePod } from './kube-api.js';

const READY = {
  type: 'Ready',
  status: 'True',
  reason: 'ClusterReady',
  message: 'cluster is healthy and ready to accept workloads',
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

/**
 * Karmada's cluster status controller over live nodes and pods: allocatable is the sum over nodes; allocated the
 * requests of pods bound to a node and not finished; allocating the requests of pods not bound yet.
 */
export function kubeClusterStatus(
  version: string,
  nodes: readonly KubeNode[],
  pods: readonly KubePod[],
): ClusterStatusPatch {
  const allocatable = nodes.reduce(
    (acc, n) =>
      addResources(acc, resourcesFrom(pick(n.status?.allocatable), `node ${n.metadata?.name ?? ''} allocatable`)),
    { ...ZERO },
  );
  let allocated: Resources = { ...ZERO };
  let allocating: Resources = { ...ZERO };
  for (const p of pods) {
    const phase = p.status?.phase;
    if (!p.spec?.nodeName) allocating = addResources(allocating, podRequest(p));
    else if (phase !== 'Succeeded' && phase !== 'Failed') allocated = addResources(allocated, podRequest(p));
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

function pick(list: Record<string, string | undefined> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of ['cpu', 'memory', 'pods']) if (list?.[k] !== undefined) out[k] = list[k]!;
  return out;
}
