import { admit, applyStatusPatch } from '@flotilla/api';
import { encodeJson, eventTypeOf, publishEvent, readEvents, type Bus } from '@flotilla/bus';
import { closeRedis, createRedis } from '@flotilla/runtime';
import { createDelayedQueue } from '@flotilla/runtime/delayed-jobs';
import { memberUsageKey, ObjectStore, StatusStore, type MemberUsage, type StoredObject } from '@flotilla/store';
import { testBus } from '@flotilla/bus/testing';
import { REDIS_URL } from '@flotilla/testkit';
import type { Redis } from 'ioredis';
import { FederatedHpaController, type FederatedHpaControllerOptions } from '../federated-hpa-controller.js';

export const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

export interface FhpaEvent {
  id: string;
  type: string;
  time: string;
  data: Record<string, unknown>;
}

/** A bus on a fresh prefix plus Redis; `dispose` removes the streams, buckets, queue and keys. */
export interface Harness {
  bus: Bus;
  store: ObjectStore;
  redis: Redis;
  prefix: string;
  queueName: string;
  controller(extra?: Partial<FederatedHpaControllerOptions>): FederatedHpaController;
  apply(o: unknown): Promise<StoredObject>;
  /** Folds a status the way the status writer does after a report. */
  reportStatus(
    kind: string,
    namespace: string | undefined,
    name: string,
    status: Record<string, unknown>,
  ): Promise<void>;
  /** Writes a binding's latest usage per cluster (millicores) the way the member-agents do. */
  reportUsage(namespace: string, binding: string, milliByCluster: Record<string, number>): Promise<void>;
  cluster(name: string, ready: boolean, cpu?: string): Promise<void>;
  events(name: string): Promise<FhpaEvent[]>;
  /** The FederatedHPA status the status writer would fold from its events. */
  status(name: string): Promise<Record<string, unknown>>;
  dispose(): Promise<void>;
}

let seq = 1_000_000;

export async function harness(label: string, redisUrl = REDIS_URL): Promise<Harness> {
  const bus = await testBus(label);
  const redis = createRedis(redisUrl);
  const prefix = bus.names.prefix;
  const queueName = 'hpa-assigner';
  const store = new ObjectStore(bus);
  const statuses = new StatusStore(bus);
  const controllers: FederatedHpaController[] = [];
  const h: Harness = {
    bus,
    store,
    redis,
    prefix,
    queueName,
    controller(extra = {}) {
      const c = new FederatedHpaController({
        bus,
        redis,
        queuePrefix: prefix,
        queueName,
        publish: (e) => publishEvent(bus, e),
        logger: silent,
        ...extra,
      });
      controllers.push(c);
      return c;
    },
    apply: async (o) => (await store.apply(admit(o) as StoredObject)).object,
    async reportStatus(kind, namespace, name, status) {
      await statuses.fold({ kind, namespace, name }, seq++, () => status);
    },
    async reportUsage(namespace, binding, milliByCluster) {
      for (const [cluster, cpuUsageMilli] of Object.entries(milliByCluster)) {
        const usage: MemberUsage = { cpuUsageMilli, observedAt: new Date().toISOString() };
        await bus.usage.put(
          memberUsageKey({ kind: 'ResourceBinding', namespace, name: binding }, cluster),
          encodeJson(usage),
        );
      }
    },
    async cluster(name, ready, cpu = '8') {
      await h.apply({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name }, spec: {} });
      await h.reportStatus('Cluster', undefined, name, {
        conditions: [
          {
            type: 'Ready',
            status: ready ? 'True' : 'False',
            reason: ready ? 'ClusterReady' : 'ClusterNotReachable',
            message: '',
            lastTransitionTime: '2026-01-01T00:00:00Z',
          },
        ],
        resourceSummary: {
          allocatable: { cpu, memory: '64Gi', pods: '110' },
          allocated: { cpu: '0', memory: '0', pods: '0' },
        },
      });
    },
    async events(name) {
      const out: FhpaEvent[] = [];
      for await (const d of readEvents(bus, { filter: { kind: 'FederatedHPA', name } })) {
        out.push({
          id: d.event.id,
          type: eventTypeOf(d.event),
          time: d.event.time,
          data: d.event.data as Record<string, unknown>,
        });
      }
      return out;
    },
    async status(name) {
      let status: Record<string, unknown> | undefined;
      for (const e of await h.events(name)) {
        status = applyStatusPatch(status, e.data.statusPatch as Record<string, unknown>, e.time);
      }
      return status ?? {};
    },
    async dispose() {
      for (const c of controllers) await c.stop().catch(() => undefined);
      const queue = createDelayedQueue({ name: queueName, prefix, connection: redis });
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length) await redis.del(...keys);
      await closeRedis(redis);
      await bus.dispose();
    },
  };
  return h;
}

export const deployment = (name: string, replicas: number) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'default' },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: '500m', memory: '256Mi' } } }] },
    },
  },
});

/** The target's binding as the affinity scheduler would have made it. */
export const targetBinding = (
  name: string,
  clusters: Array<{ name: string; replicas: number }>,
  annotations: Record<string, string> = {},
) => ({
  apiVersion: 'work.karmada.io/v1alpha2',
  kind: 'ResourceBinding',
  metadata: { name: `${name}-deployment`, namespace: 'default', annotations },
  spec: {
    resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name },
    replicaRequirements: { resourceRequest: { cpu: '500m', memory: '256Mi' } },
    clusters,
  },
});

export const federatedHpa = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: 'autoscaling.karmada.io/v1alpha1',
  kind: 'FederatedHPA',
  metadata: { name, namespace: 'default' },
  spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name }, ...spec },
});

/** One member cluster's aggregatedStatus entry, as the member agent reports it. */
export const memberEntry = (
  clusterName: string,
  replicas: number,
  readyReplicas: number,
  pendingReplicas = 0,
  extra: Record<string, unknown> = {},
) => ({
  clusterName,
  applied: true,
  health: pendingReplicas ? 'Unhealthy' : 'Healthy',
  status: { replicas, readyReplicas, availableReplicas: readyReplicas, pendingReplicas, ...extra },
});

/** A StaticWeighted 1:2:3 assignment over member1..member3 (Karmada's FederatedHPA proposal's example weights). */
export const staticWeighted123 = {
  federatedHPAAssignmentType: 'StaticWeighted',
  clusterAutoscalingPreference: [
    { targetCluster: { clusterNames: ['member1'] }, staticWeight: 1 },
    { targetCluster: { clusterNames: ['member2'] }, staticWeight: 2 },
    { targetCluster: { clusterNames: ['member3'] }, staticWeight: 3 },
  ],
};
