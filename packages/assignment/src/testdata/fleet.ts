import type { Cluster } from '@flotilla/scheduling';

/**
 * A member cluster whose estimator answer for a pod without requests is `free`: the pod budget is all it reports,
 * so the proposal's "Cluster availableReplicas" tables can be written as they are printed.
 */
export function memberWithRoom(
  name: string,
  free: number,
  options: { ready?: boolean; labels?: Record<string, string> } = {},
): Cluster {
  return {
    metadata: { name, ...(options.labels ? { labels: options.labels } : {}) },
    status: {
      conditions: [{ type: 'Ready', status: options.ready === false ? 'False' : 'True' }],
      resourceSummary: { allocatable: { pods: String(free + 10) }, allocated: { pods: '10' } },
    },
  };
}
