import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Bus, eventTypeOf, readEvents } from '@flotilla/bus';
import { eventually } from '@flotilla/testkit';
import { flotilla } from './cli.js';

export type Limits = Record<string, { minReplicas: number; maxReplicas: number }>;
interface Entry {
  clusterName: string;
  status?: { replicas?: number; readyReplicas?: number; pendingReplicas?: number; hpa?: { maxReplicas: number } };
}

/** An object as the CLI prints it with `-o json`: the tests read whichever of its fields they check. */
// biome-ignore lint/suspicious/noExplicitAny: end-to-end checks read arbitrary fields of the printed objects
type Json = Record<string, any>;

/** The CLI calls the FederatedHPA end-to-end tests make, against one running suite, with files in `dir`. */
export function fhpaCli(env: () => Record<string, string>, dir: () => string) {
  const cli = (...args: string[]) => flotilla(env(), args);
  const getJson = async (kind: string, name: string): Promise<Json | undefined> => {
    const r = await cli('get', kind, name, '-o', 'json');
    return r.code === 0 ? (JSON.parse(r.out) as Json) : undefined;
  };
  return {
    cli,
    getJson,
    async apply(name: string, yaml: string): Promise<void> {
      writeFileSync(join(dir(), `${name}.yaml`), yaml);
      const r = await cli('apply', '-f', join(dir(), `${name}.yaml`));
      if (r.code !== 0) throw new Error(r.err);
    },
    /** Each member HPA's min/max, from the member HPA binding's per-cluster override. */
    async limitsOf(fhpa: string): Promise<Limits | undefined> {
      const b = await getJson('rb', `${fhpa}-horizontalpodautoscaler`);
      const text = b?.metadata?.annotations?.['autoscaling.flotilla.io/member-limits'] as string | undefined;
      return text ? (JSON.parse(text) as Limits) : undefined;
    },
    /** Replicas each member cluster runs for a Deployment, as reported. */
    async replicasOf(deployment: string): Promise<Record<string, Entry['status']>> {
      const b = await getJson('rb', `${deployment}-deployment`);
      const entries = (b?.status?.aggregatedStatus as Entry[] | undefined) ?? [];
      return Object.fromEntries(entries.map((e) => [e.clusterName, e.status]));
    },
  };
}

/** One assignment of a FederatedHPA, as its `FederatedHPAAssigned` event records it. */
export interface AssignedEvent {
  reason: string;
  time: string;
  moves?: Array<{ from: string; to: string; replicas: number }>;
  assignments: Array<{ cluster: string; minReplicas: number; maxReplicas: number }>;
}

/**
 * A FederatedHPA's assignments so far, oldest first, from the event log. Tests check a particular assignment here
 * rather than in `status.lastAssignment`, which the next assignment (a later report changing the binding's
 * replicas, say) overwrites.
 */
export async function assignedEvents(bus: Bus, name: string, namespace = 'default'): Promise<AssignedEvent[]> {
  const out: AssignedEvent[] = [];
  for await (const d of readEvents(bus, { filter: { kind: 'FederatedHPA', namespace, name } }))
    if (eventTypeOf(d.event) === 'FederatedHPAAssigned')
      out.push({ ...(d.event.data as Omit<AssignedEvent, 'time'>), time: d.event.time });
  return out;
}

/**
 * Waits for a FederatedHPA's `FederatedHPAAssigned` event that `which` picks (by default the first with `reason`)
 * and returns it with every assignment so far. The event is published after the writes it records, so a test that
 * saw the limits waits here for their event.
 */
export async function waitForAssigned(
  bus: Bus,
  name: string,
  which: { reason?: string; timeoutMs?: number; namespace?: string } = {},
): Promise<{ event: AssignedEvent; all: AssignedEvent[] }> {
  const what = which.reason
    ? `the ${which.reason} assignment of ${name}`
    : `${name}'s first FederatedHPAAssigned event`;
  return eventually(
    async () => {
      const all = await assignedEvents(bus, name, which.namespace);
      const event = which.reason ? all.find((e) => e.reason === which.reason) : all[0];
      return event ? { event, all } : undefined;
    },
    which.timeoutMs ?? 30_000,
    what,
  );
}

export const totalMax = (l: Limits) => Object.values(l).reduce((n, x) => n + x.maxReplicas, 0);

export const simCluster = (name: string, pool: string, cpu: string) => `apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata: { name: ${name}, labels: { pool: ${pool} } }
spec:
  simulation:
    allocatable: { cpu: "${cpu}", memory: 64Gi, pods: "110" }
`;

/** A Deployment whose pods (app=`name`) each request `cpu`. */
export const deployment = (name: string, replicas: number, cpu = '500m') => `apiVersion: apps/v1
kind: Deployment
metadata: { name: ${name}, namespace: default }
spec:
  replicas: ${replicas}
  selector: { matchLabels: { app: ${name} } }
  template:
    metadata: { labels: { app: ${name} } }
    spec: { containers: [{ name: c, image: nginx, resources: { requests: { cpu: ${cpu}, memory: 128Mi } } }] }
`;

/** A PropagationPolicy of Deployment `name`: `clusterAffinity` and `scheduling` are flow YAML placement fields. */
export const placementPolicy = (
  name: string,
  clusterAffinity: string,
  scheduling: string,
) => `apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: { name: ${name}, namespace: default }
spec:
  resourceSelectors: [{ apiVersion: apps/v1, kind: Deployment, name: ${name} }]
  placement:
    clusterAffinity: ${clusterAffinity}
    ${scheduling}
`;

export const policy = (
  name: string,
  pool: string,
  scheduling = 'replicaScheduling: { replicaSchedulingType: Divided, replicaDivisionPreference: Aggregated }',
) => placementPolicy(name, `{ labelSelector: { matchLabels: { pool: ${pool} } } }`, scheduling);

/**
 * A Prioritized FederatedHPA on Deployment `name` at 50 % cpu: `clusters` from the most preferred to the least;
 * `extra` adds spec fields (flow YAML lines, e.g. behavior).
 */
export const prioritizedFhpa = (
  name: string,
  o: { minReplicas: number; maxReplicas: number; delaySeconds: number; clusters: readonly string[]; extra?: string },
) => `apiVersion: autoscaling.karmada.io/v1alpha1
kind: FederatedHPA
metadata: { name: ${name}, namespace: default }
spec:
  scaleTargetRef: { apiVersion: apps/v1, kind: Deployment, name: ${name} }
  minReplicas: ${o.minReplicas}
  maxReplicas: ${o.maxReplicas}
  autoscaleMultiClusterDelay: ${o.delaySeconds}
  metrics: [{ type: Resource, resource: { name: cpu, target: { type: Utilization, averageUtilization: 50 } } }]${o.extra ? `\n  ${o.extra}` : ''}
  federatedHPAAssignment:
    federatedHPAAssignmentType: Prioritized
    clusterAutoscalingPreference:
${o.clusters.map((c, i) => `      - { targetCluster: { clusterNames: [${c}] }, priority: ${o.clusters.length - i} }`).join('\n')}
`;

/**
 * A Deployment `burst` under a Prioritized FederatedHPA (small1 > big2 > big3, max 12) in the `prio` pool.
 */
export const prioritizedBurst = (delaySeconds: number) =>
  [
    deployment('burst', 2),
    policy('burst', 'prio'),
    prioritizedFhpa('burst', { minReplicas: 2, maxReplicas: 12, delaySeconds, clusters: ['small1', 'big2', 'big3'] }),
  ].join('---\n');

/** 12 pods of 500m pinned to small1, placed before `burst` (bindings are fitted in name order). */
export const filler = [
  deployment('aaa-filler', 12),
  `apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: { name: aaa-filler, namespace: default }
spec:
  resourceSelectors: [{ apiVersion: apps/v1, kind: Deployment, name: aaa-filler }]
  placement:
    clusterAffinity: { clusterNames: [small1] }
    replicaScheduling: { replicaSchedulingType: Duplicated }
`,
].join('---\n');

/** A FederatedHPA on Deployment `name` with a StaticWeighted 1:2:3 assignment over member1..member3, 50 % cpu. */
export const staticWeightedFhpa = (
  name: string,
  minReplicas: number,
  maxReplicas: number,
  extra = '',
) => `apiVersion: autoscaling.karmada.io/v1alpha1
kind: FederatedHPA
metadata: { name: ${name}, namespace: default }
spec:
  scaleTargetRef: { apiVersion: apps/v1, kind: Deployment, name: ${name} }
  minReplicas: ${minReplicas}
  maxReplicas: ${maxReplicas}${extra ? `\n  ${extra}` : ''}
  metrics: [{ type: Resource, resource: { name: cpu, target: { type: Utilization, averageUtilization: 50 } } }]
  federatedHPAAssignment:
    federatedHPAAssignmentType: StaticWeighted
    clusterAutoscalingPreference:
      - { targetCluster: { clusterNames: [member1] }, staticWeight: 1 }
      - { targetCluster: { clusterNames: [member2] }, staticWeight: 2 }
      - { targetCluster: { clusterNames: [member3] }, staticWeight: 3 }
`;
