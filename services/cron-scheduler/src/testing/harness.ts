import { admit, type CronFederatedHPAStatus } from '@flotilla/api';
import { eventTypeOf, publishEvent, readEvents, type Bus } from '@flotilla/bus';
import { CronEventTypes, evolveHistory, scheduleChecks, type CronEvent } from '@flotilla/cron';
import { closeRedis, createRedis } from '@flotilla/runtime';
import { createDelayedQueue } from '@flotilla/runtime/delayed-jobs';
import { ObjectStore, type StoredObject } from '@flotilla/store';
import { testBus } from '@flotilla/bus/testing';
import { REDIS_URL } from '@flotilla/testkit';
import type { Redis } from 'ioredis';
import { CronController, type CronControllerOptions } from '../controller.js';

export const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** A bus on a fresh prefix plus Redis, with helpers; `dispose` removes the streams, buckets, queue and keys. */
export interface Harness {
  bus: Bus;
  store: ObjectStore;
  redis: Redis;
  prefix: string;
  queueName: string;
  controller(extra?: Partial<CronControllerOptions>): CronController;
  apply(o: unknown): Promise<StoredObject>;
  events(name: string): Promise<Array<{ id: string; type: string; data: Record<string, unknown> }>>;
  status(name: string): Promise<CronFederatedHPAStatus>;
  dispose(): Promise<void>;
}

export async function harness(label: string, redisUrl = REDIS_URL): Promise<Harness> {
  const bus = await testBus(label);
  const redis = createRedis(redisUrl);
  const prefix = bus.names.prefix;
  const queueName = 'cron';
  const store = new ObjectStore(bus);
  const controllers: CronController[] = [];
  const h: Harness = {
    bus,
    store,
    redis,
    prefix,
    queueName,
    controller(extra = {}) {
      const c = new CronController({
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
    apply: async (o) => (await store.apply(admit(o, { schedules: scheduleChecks }) as StoredObject)).object,
    async events(name) {
      const out: Array<{ id: string; type: string; data: Record<string, unknown> }> = [];
      for await (const d of readEvents(bus, { filter: { kind: 'CronFederatedHPA', name } })) {
        out.push({ id: d.event.id, type: eventTypeOf(d.event), data: d.event.data as Record<string, unknown> });
      }
      return out;
    },
    /** The status the status writer would fold from these events. */
    async status(name) {
      let status: CronFederatedHPAStatus | undefined;
      // As the status writer registers its reducer: the cron events only (a ReconcileFailed carries no status).
      const cronTypes = new Set<string>(Object.values(CronEventTypes));
      for (const e of await h.events(name))
        if (cronTypes.has(e.type))
          status = evolveHistory(status, { type: e.type, data: e.data } as unknown as CronEvent);
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
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'x' }] } },
  },
});

export const cronHpa = (
  name: string,
  target: { apiVersion: string; kind: string; name: string },
  rules: unknown[],
) => ({
  apiVersion: 'autoscaling.karmada.io/v1alpha1',
  kind: 'CronFederatedHPA',
  metadata: { name, namespace: 'default' },
  spec: { scaleTargetRef: target, rules },
});

/** The Deployment `name` (1 replica) and `<name>-cron` scaling it every second: to 2 on even seconds, 3 on odd ones. */
export async function everySecondCron(h: Harness, name: string): Promise<void> {
  await h.apply(deployment(name, 1));
  await h.apply(
    cronHpa(`${name}-cron`, { apiVersion: 'apps/v1', kind: 'Deployment', name }, [
      { name: 'even', schedule: '*/2 * * * * *', targetReplicas: 2 },
      { name: 'odd', schedule: '1-59/2 * * * * *', targetReplicas: 3 },
    ]),
  );
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
