import { cloudEvent, connectBus, destroyBus, readEvents, type Bus } from '@flotilla/bus';
import { baseConfigSchema, createRedis, type ServiceHost } from '@flotilla/runtime';
import { NATS_URL, REDIS_URL, uniquePrefix } from '@flotilla/testkit';
import type { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { runBusService } from './bus-service.js';

const prefix = uniquePrefix('bus-service');
const env = { LOG_LEVEL: 'silent', NATS_URL, REDIS_URL, FLOTILLA_PREFIX: prefix, LEADER_LEASE_MS: '1000' };
/**
 * A failed start exits through this instead of ending the test process, and the test process's signals and IPC
 * channel stay the test runner's: a service that took them would leave the worker ignoring SIGTERM and free to exit
 * while the runner still has answers to send it.
 */
const exits: number[] = [];
const options = { env, stopTimeoutMs: 5000, exit: (code: number) => void exits.push(code), ownsProcess: false };
const processHooks = () => ['SIGTERM', 'SIGINT', 'disconnect'].map((event) => process.listenerCount(event));
const hooksBefore = processHooks();

afterAll(async () => {
  const bus = await connectBus({ url: NATS_URL, prefix, name: 'cleanup' });
  await destroyBus(bus);
  await bus.close();
  const redis = createRedis(REDIS_URL);
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

const readyz = async (host: ServiceHost<typeof baseConfigSchema>) =>
  (await fetch(`http://127.0.0.1:${host.httpPort}/readyz`)).status;

describe('runBusService (real NATS and Redis)', () => {
  it('prepares, connects the bus and its own Redis, opens, runs as leader; stops the work before it closes the connections', async () => {
    const steps: string[] = [];
    let held: { bus: Bus; redis: Redis } | undefined;
    const host = await runBusService(
      {
        name: 'demo-controller',
        configSchema: baseConfigSchema,
        redis: { gate: 'redis-timers' },
        prepare: () => {
          steps.push('prepare');
          return { prepared: 'kube config' };
        },
        open: (_ctx, { bus, redis, prepared }) => {
          steps.push(`open ${bus.names.prefix} ${redis.status} ${prepared}`);
          return { informers: 'informers' };
        },
        async run(_ctx, { bus, redis, publish, prepared, informers }) {
          held = { bus, redis };
          steps.push(`run ${prepared} ${informers}`);
          await publish(
            cloudEvent({
              id: 'e1',
              source: 'demo-controller',
              type: 'DemoHappened',
              kind: 'Cluster',
              name: 'member1',
              time: new Date(),
              data: {},
            }),
          );
          return async () => {
            steps.push(`stop: bus ${bus.nc.isClosed() ? 'closed' : 'open'}, redis ${redis.status}`);
          };
        },
      },
      options,
    );
    await expect.poll(() => steps.includes('run kube config informers'), { timeout: 10_000 }).toBe(true);
    expect(steps.slice(0, 2)).toEqual(['prepare', `open ${prefix} ready kube config`]);
    expect(await readyz(host)).toBe(200);
    // What `publish` sent is on the installation's event stream.
    const events = [];
    for await (const d of readEvents(held!.bus, { filter: { kind: 'Cluster', name: 'member1' }, follow: false }))
      events.push(d.event.id);
    expect(events).toEqual(['e1']);

    await host.stop();
    expect(steps.at(-1)).toBe('stop: bus open, redis ready');
    expect(held!.bus.nc.isClosed()).toBe(true);
    expect(held!.redis.status).toBe('end');
    expect(exits).toEqual([]);
    expect(processHooks()).toEqual(hooksBefore);
  });

  it('closes what it opened when open fails, and start-up fails', async () => {
    let held: { bus: Bus; redis: Redis } | undefined;
    let ran = false;
    const host = await runBusService(
      {
        name: 'demo-controller',
        configSchema: baseConfigSchema,
        redis: { gate: 'redis-timers' },
        open: (_ctx, { bus, redis }) => {
          held = { bus, redis };
          throw new Error('informers could not start');
        },
        async run() {
          ran = true;
          return async () => undefined;
        },
      },
      options,
    );
    expect(host.state).toBe('failed');
    expect(exits).toEqual([1]);
    expect(ran).toBe(false);
    await expect.poll(() => held!.bus.nc.isClosed()).toBe(true);
    expect(held!.redis.status).toBe('end');
    exits.length = 0;
  });

  it('with leader: false runs the work at once, ready only after it, and watches no lease', async () => {
    let readyWhileRunning: number | undefined;
    const host = await runBusService(
      {
        name: 'demo-gateway',
        configSchema: baseConfigSchema,
        leader: false,
        async run({ httpPort }) {
          readyWhileRunning = (await fetch(`http://127.0.0.1:${httpPort}/readyz`)).status;
          return async () => undefined;
        },
      },
      options,
    );
    expect(host.state).toBe('running');
    expect(readyWhileRunning).toBe(503);
    expect(await readyz(host)).toBe(200);
    // No lease key was written for a service every replica serves.
    const redis = createRedis(REDIS_URL);
    expect(await redis.keys(`${prefix}:leader:demo-gateway*`)).toEqual([]);
    redis.disconnect();
    await host.stop();
  });

  it('refuses a lease scope without leader election, naming the service', () => {
    expect(() =>
      runBusService({
        name: 'demo-gateway',
        configSchema: baseConfigSchema,
        leader: false,
        leaseScope: () => 'x',
        run: async () => async () => undefined,
      }),
    ).toThrow('runBusService(demo-gateway): leaseScope goes with leader election, not with leader: false');
  });
});
