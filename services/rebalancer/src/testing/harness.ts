import { admit } from '@flotilla/api';
import { consumeEvents, publishEvent, type Bus, type Subscription } from '@flotilla/bus';
import { closeRedis, createRedis } from '@flotilla/runtime';
import { createDelayedQueue } from '@flotilla/runtime/delayed-jobs';
import { defaultReducers, refOfEvent, StatusWriter } from '@flotilla/status-writer';
import { KubeEventStore, ObjectStore, objectKey, StatusStore, type StoredObject } from '@flotilla/store';
import { testBus } from '@flotilla/bus/testing';
import { REDIS_URL } from '@flotilla/testkit';
import type { Redis } from 'ioredis';
import { RebalancerController, type RebalancerControllerOptions } from '../controller.js';

export const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** A bus on a fresh prefix, Redis, and the real status writer folding events; `dispose` removes it all. */
export interface Harness {
  bus: Bus;
  store: ObjectStore;
  redis: Redis;
  controller(extra?: Partial<RebalancerControllerOptions>): RebalancerController;
  apply(o: unknown): Promise<StoredObject>;
  /** Stops the status writer, as one far behind: events wait in the stream until `resumeFolding`. */
  pauseFolding(): Promise<void>;
  resumeFolding(): Promise<void>;
  dispose(): Promise<void>;
}

export async function harness(label: string): Promise<Harness> {
  const bus = await testBus(label);
  const redis = createRedis(REDIS_URL);
  const prefix = bus.names.prefix;
  const store = new ObjectStore(bus);
  const controllers: RebalancerController[] = [];
  const writer = new StatusWriter(new StatusStore(bus), new KubeEventStore(bus), defaultReducers());
  const fold = () =>
    consumeEvents(bus, {
      durable: 'status-writer',
      concurrency: 64,
      orderKey: (d) => objectKey(refOfEvent(d.event)),
      handler: (d) => writer.handle(d),
    });
  let folding: Subscription | undefined = await fold();
  return {
    bus,
    store,
    redis,
    controller(extra = {}) {
      const c = new RebalancerController({
        bus,
        store,
        redis,
        queuePrefix: prefix,
        publish: (e) => publishEvent(bus, e),
        logger: silent,
        ...extra,
      });
      controllers.push(c);
      return c;
    },
    apply: async (o) => (await store.apply(admit(o) as StoredObject)).object,
    async pauseFolding() {
      await folding?.stop();
      folding = undefined;
    },
    async resumeFolding() {
      folding ??= await fold();
    },
    async dispose() {
      for (const c of controllers) await c.stop().catch(() => undefined);
      await folding?.stop();
      const queue = createDelayedQueue({ name: 'rebalancer', prefix, connection: redis });
      await queue.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length) await redis.del(...keys);
      await closeRedis(redis);
      await bus.dispose();
    },
  };
}

export const deployment = (name: string, namespace = 'default', labels: Record<string, string> = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace, labels: { app: name, ...labels } },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'x' }] } },
  },
});

/** The binding Karmada's detector would make for a Deployment, as already scheduled once. */
export const bindingFor = (
  name: string,
  namespace = 'default',
  o: { apiVersion?: string; rescheduleTriggeredAt?: string } = {},
) => ({
  apiVersion: 'work.karmada.io/v1alpha2',
  kind: 'ResourceBinding',
  metadata: { name: `${name}-deployment`, namespace },
  spec: {
    resource: { apiVersion: o.apiVersion ?? 'apps/v1', kind: 'Deployment', name, namespace },
    replicas: 2,
    clusters: [{ name: 'member2', replicas: 2 }],
    ...(o.rescheduleTriggeredAt ? { rescheduleTriggeredAt: o.rescheduleTriggeredAt } : {}),
  },
});

export const workload = (name: string, namespace = 'default') => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  name,
  namespace,
});

export const rebalancer = (name: string, workloads: unknown[], extra: Record<string, unknown> = {}) => ({
  apiVersion: 'apps.karmada.io/v1alpha1',
  kind: 'WorkloadRebalancer',
  metadata: { name },
  spec: { workloads, ...extra },
});
