import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { destroyBus } from '@flotilla/bus';
import { freeTcpPort, PrivateRedis } from '@flotilla/testkit';
import { cronHpa, deployment, harness, type Harness } from './testing/harness.js';

// A leader deposed by a Redis outage stops its controller while Redis is still down; the next leader term waits
// for that stop, so it must end.
let redis: PrivateRedis;
let h: Harness;

beforeAll(async () => {
  redis = new PrivateRedis(await freeTcpPort());
  await redis.start();
  h = await harness('cron-outage', redis.url);
}, 30_000);
afterAll(async () => {
  // The Redis and everything in it go with the server; the streams and buckets on NATS are removed here.
  await redis?.dispose();
  h?.redis.disconnect();
  if (h) {
    await destroyBus(h.bus);
    await h.bus.close();
  }
});

describe('cron scheduler: Redis goes away', () => {
  it('stops while Redis is down, with its BullMQ worker running', async () => {
    const controller = h.controller();
    await controller.start();
    await h.apply(deployment('web', 1));
    await h.apply(
      cronHpa('web-cron', { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, [
        { name: 'up', schedule: '*/2 * * * * *', targetReplicas: 2 },
      ]),
    );
    await controller.idle();
    await redis.stop('SIGKILL');
    await new Promise((r) => setTimeout(r, 500));
    const stopped = await Promise.race([
      controller.stop().then(() => 'stopped'),
      new Promise((r) => setTimeout(() => r('still stopping after 10 s'), 10_000)),
    ]);
    expect(stopped).toBe('stopped');
  }, 20_000);
});
