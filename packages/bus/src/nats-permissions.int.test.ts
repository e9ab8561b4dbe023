import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, freeTcpPort, PrivateNats } from '@flotilla/testkit';
import { type Bus, connectBus, destroyBus } from './connect.js';
import { busNames } from './names.js';
import type { NatsUser } from '@flotilla/catalogue';
import { natsAuthorization } from './nats-permissions.js';

const names = busNames('perm');
const password = (service: NatsUser) => `secret-of-${service}`;
let nats: PrivateNats;
const buses: Bus[] = [];

async function connectAs(service: NatsUser): Promise<Bus> {
  const bus = await connectBus({
    url: nats.url,
    user: `perm-${service}`,
    password: password(service),
    prefix: names.prefix,
    retention: { maxBytes: 1024 * 1024 },
  });
  buses.push(bus);
  return bus;
}

/** The error a promise rejects with, or undefined when it resolves. */
const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (err: unknown) => err as Error,
  );

beforeAll(async () => {
  nats = new PrivateNats(await freeTcpPort(), { config: natsAuthorization(names, password) });
  await nats.start();
}, 30_000);
afterAll(async () => {
  if (buses[0]) await destroyBus(buses[0]).catch(() => undefined);
  for (const bus of buses) await bus.close();
  await nats?.dispose();
});

describe('per-service NATS users against a nats-server with their authorization block', () => {
  it('each service connects and provisions within its permissions', async () => {
    const gateway = await connectAs('gateway');
    const statusWriter = await connectAs('status-writer');
    await gateway.objects.put('Deployment.default.web', '{}');
    await statusWriter.status.put('Deployment.default.web', '{}');
    await gateway.js.publish(`${names.eventsRoot}.Deployment.default.web.ObjectDeleted`, '{}');
  });

  it('refuses the status writer an object write, an API request and a metric sample', async () => {
    const statusWriter = await connectAs('status-writer');
    const put = await failure(statusWriter.objects.put('Deployment.default.web', '{"forged":true}'));
    expect(put?.message).toMatch(/permissions violation/i);
    const api = await failure(statusWriter.nc.request(`${names.apiRoot}.delete`, '{}', { timeout: 2000 }));
    expect(api?.message).toMatch(/permissions violation/i);
    const metric = await failure(statusWriter.js.publish(`${names.metricsRoot}.default.web`, '[]'));
    expect(metric?.message).toMatch(/permissions violation/i);
    expect(new TextDecoder().decode((await statusWriter.objects.get('Deployment.default.web'))?.value)).toBe('{}');
  });

  it('lets the CLI call the gateway and read objects, and refuses it a direct write', async () => {
    const gateway = await connectAs('gateway');
    gateway.nc.subscribe(`${names.apiRoot}.*`, {
      callback: (_err, msg) => {
        msg.respond('{"ok":true}');
      },
    });
    await gateway.nc.flush();
    const cli = await connectAs('cli');
    expect((await cli.nc.request(`${names.apiRoot}.get`, '{}', { timeout: 2000 })).string()).toBe('{"ok":true}');
    expect(await cli.objects.get('Deployment.default.web')).not.toBeNull();
    const put = await failure(cli.objects.put('Deployment.default.web', '{"forged":true}'));
    expect(put?.message).toMatch(/permissions violation/i);
  });

  it('refuses every service but the gateway a subscription to the API, and any service a stream delete', async () => {
    const scheduler = await connectAs('affinity-scheduler');
    const errors: string[] = [];
    void (async () => {
      for await (const s of scheduler.nc.status()) if (s.type === 'error') errors.push(String(s.error));
    })();
    scheduler.nc.subscribe(`${names.apiRoot}.*`);
    await scheduler.nc.flush();
    // The server's refusal comes back asynchronously, as a status of the connection.
    await eventually(() => (errors.length > 0 ? true : undefined), 5000, "the server's refusal");
    expect(errors.join(' ')).toMatch(/permissions violation for subscription/i);
    const del = await failure(scheduler.jsm.streams.delete(names.eventsStream));
    expect(del?.message).toMatch(/permissions violation/i);
  });
});
