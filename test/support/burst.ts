import type { Bus } from '@flotilla/bus';
import { ObjectStore, StatusStore, type StoredObject } from '@flotilla/store';
import { eventually } from '@flotilla/testkit';

/**
 * Waits until `count` ResourceBindings in `default` whose names start with `namePrefix` all have spec.clusters
 * written and their decision folded into status for that very generation (Scheduled=True), and returns them.
 */
export async function waitBurstScheduled(
  bus: Bus,
  opts: { namePrefix: string; count: number; timeoutMs: number },
): Promise<StoredObject[]> {
  const store = new ObjectStore(bus);
  const statuses = new StatusStore(bus);
  return eventually(
    async () => {
      const bindings = (await store.list('ResourceBinding', 'default')).filter((b) =>
        b.metadata.name.startsWith(opts.namePrefix),
      );
      if (bindings.length < opts.count) return undefined;
      const records = new Map(
        (
          await statuses.list<{
            schedulerObservedGeneration?: number;
            conditions?: Array<{ type: string; status: string }>;
          }>('ResourceBinding')
        ).map((r) => [r.ref.name, r.record.status]),
      );
      const complete = bindings.every((b) => {
        const st = records.get(b.metadata.name);
        return (
          (b.spec as { clusters?: unknown[] }).clusters?.length &&
          st?.schedulerObservedGeneration === b.metadata.generation &&
          st?.conditions?.some((c) => c.type === 'Scheduled' && c.status === 'True')
        );
      });
      return complete ? bindings : undefined;
    },
    opts.timeoutMs,
    `all ${opts.count} bindings scheduled and folded`,
  );
}

/** The member clusters of examples/00-clusters.yaml a burst is spread over. */
export const BURST_CLUSTERS = ['member1', 'member2', 'member3'];

/** What every workload of a burst (4 replicas, static weights 2:1:1) is scheduled to. */
export const BURST_PLACEMENT = [
  { name: 'member1', replicas: 2 },
  { name: 'member2', replicas: 1 },
  { name: 'member3', replicas: 1 },
];

/** The PropagationPolicy `name` in `default`: Deployments labelled `<name>: yes` divided 2:1:1 over BURST_CLUSTERS. */
export function burstPolicy(name: string) {
  return {
    apiVersion: 'policy.karmada.io/v1alpha1',
    kind: 'PropagationPolicy',
    metadata: { name, namespace: 'default' },
    spec: {
      resourceSelectors: [
        { apiVersion: 'apps/v1', kind: 'Deployment', labelSelector: { matchLabels: { [name]: 'yes' } } },
      ],
      placement: {
        clusterAffinity: { clusterNames: BURST_CLUSTERS },
        replicaScheduling: {
          replicaSchedulingType: 'Divided',
          replicaDivisionPreference: 'Weighted',
          weightPreference: {
            staticWeightList: [
              { targetCluster: { clusterNames: ['member1'] }, weight: 2 },
              { targetCluster: { clusterNames: ['member2', 'member3'] }, weight: 1 },
            ],
          },
        },
      },
    },
  };
}

/** Workload `i` of the burst that burstPolicy(name) places: the Deployment `<name>-<i>` with 4 replicas. */
export function burstDeployment(name: string, i: number) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: `${name}-${i}`, namespace: 'default', labels: { [name]: 'yes' } },
    spec: {
      replicas: 4,
      selector: { matchLabels: { app: `${name}${i}` } },
      template: { metadata: { labels: { app: `${name}${i}` } }, spec: { containers: [{ name: 'c', image: 'x' }] } },
    },
  };
}
