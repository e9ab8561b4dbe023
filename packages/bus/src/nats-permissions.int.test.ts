// The shipped NATS authorization (natsAuthorization, the source of deploy/nats/authorization.example.conf) against a
// real nats-server: each refusal an operator relies on is tried as a hostile client would, past Flotilla's own code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, freeTcpPort, PrivateNats } from '@flotilla/testkit';
import { natsUserEntry, type NatsUser } from '@flotilla/catalogue';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { type Bus, connectBus, destroyBus, isStreamsNotProvisioned } from './connect.js';
import { busNames } from './names.js';
import { inboxPrefixOf, natsAuthorization } from './nats-permissions.js';

const names = busNames('perm');
const password = (user: string) => `secret-of-${user}`;
let nats: PrivateNats;
/** The administering identity's connection, made by the provisioning case. */
let gateway: Bus;
const buses: Bus[] = [];
const conns: NatsConnection[] = [];

/** A service's or API client's connection as Flotilla makes it (its own inbox prefix, administering per catalogue). */
async function connectAs(user: NatsUser | `member-${string}`): Promise<Bus> {
  const bus = await connectBus({
    url: nats.url,
    user: `perm-${user}`,
    password: password(user),
    prefix: names.prefix,
    retention: { maxBytes: 1024 * 1024 },
    administer: !user.startsWith('member-') && natsUserEntry(user as NatsUser).administers === true,
  });
  buses.push(bus);
  return bus;
}

/** A bare client of a user, as another program would connect, with the inbox prefix its user may read. */
async function rawAs(user: string): Promise<NatsConnection> {
  const nc = await connect({
    servers: nats.url,
    user: `perm-${user}`,
    pass: password(user),
    inboxPrefix: inboxPrefixOf(`perm-${user}`),
  });
  conns.push(nc);
  return nc;
}

/** The error a promise rejects with, or undefined when it resolves. */
const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (err: unknown) => err as Error,
  );

/** The server's refusals of a connection's subscriptions, which come back asynchronously as its status. */
function refusals(nc: NatsConnection): string[] {
  const errors: string[] = [];
  void (async () => {
    for await (const s of nc.status()) if (s.type === 'error') errors.push(String(s.error));
  })();
  return errors;
}

beforeAll(async () => {
  nats = new PrivateNats(await freeTcpPort(), {
    config: natsAuthorization(names, password, { memberClusters: ['member1', 'member2'] }),
  });
  await nats.start();
}, 30_000);
afterAll(async () => {
  if (buses[0]) await destroyBus(buses[0]).catch(() => undefined);
  for (const bus of buses) await bus.close();
  for (const nc of conns) await nc.close();
  await nats?.dispose();
});

describe('JetStream administration from one identity', () => {
  it('a service that does not administer waits for the streams instead of making them', async () => {
    const err = await failure(connectAs('status-writer'));
    expect(isStreamsNotProvisioned(err)).toBe(true);
    expect(err?.message).toMatch(/the gateway .* creates it/);
  });

  it('the gateway provisions; every other user connects to what it made', async () => {
    gateway = await connectAs('gateway');
    const info = await gateway.jsm.streams.info(names.eventsStream);
    expect(info.config.deny_delete).toBe(true);
    expect(info.config.deny_purge).toBe(true);
    for (const user of ['status-writer', 'affinity-scheduler', 'member-agent', 'cli', 'cli-read'] as const)
      await connectAs(user);
    await connectAs('member-member1');
  });

  it("refuses the cli user a stream update: neither the objects' history nor a seal", async () => {
    const cli = await rawAs('cli');
    const jsm = await jetstreamManager(cli);
    const stream = `KV_${names.objectsBucket}`;
    const current = (await jsm.streams.info(stream)).config;
    for (const change of [{ max_msgs_per_subject: 1 }, { sealed: true }]) {
      const err = await failure(jsm.streams.update(stream, { ...current, ...change }));
      expect(err?.message).toMatch(/permissions violation/i);
    }
    expect((await jsm.streams.info(stream)).config.sealed).toBeFalsy();
  });

  it('refuses a message delete on the events stream, even to the administering gateway', async () => {
    const ack = await gateway.js.publish(`${names.eventsRoot}.Deployment.default.web.ObjectDeleted`, '{}');
    const err = await failure(gateway.jsm.streams.deleteMessage(names.eventsStream, ack.seq));
    expect(err?.message).toMatch(/permissions violation/i);
    const cli = await jetstreamManager(await rawAs('cli'));
    expect((await failure(cli.streams.deleteMessage(names.eventsStream, ack.seq)))?.message).toMatch(
      /permissions violation/i,
    );
    expect((await failure(cli.streams.purge(names.eventsStream)))?.message).toMatch(/permissions violation/i);
    expect((await gateway.jsm.streams.getMessage(names.eventsStream, { seq: ack.seq }))?.seq).toBe(ack.seq);
  });

  it("refuses a service another's durable consumer: the status writer's cannot be removed", async () => {
    const writer = await connectAs('status-writer');
    await writer.jsm.consumers.add(names.eventsStream, {
      durable_name: 'status-writer',
      ack_policy: 'explicit',
    } as never);
    const scheduler = await jetstreamManager(await rawAs('affinity-scheduler'));
    const err = await failure(scheduler.consumers.delete(names.eventsStream, 'status-writer'));
    expect(err?.message).toMatch(/permissions violation/i);
    expect((await writer.jsm.consumers.info(names.eventsStream, 'status-writer')).name).toBe('status-writer');
  });
});

describe('writes per kind', () => {
  it('refuses the member-agent any object write', async () => {
    const agent = await connectAs('member-agent');
    const err = await failure(agent.objects.put('Deployment.kube-system.evil', '{"forged":true}'));
    expect(err?.message).toMatch(/permissions violation/i);
    expect(await agent.objects.get('Deployment.kube-system.evil')).toBeNull();
  });

  it('lets the scheduler write bindings and Clusters only, the cron scheduler templates and FederatedHPAs', async () => {
    const scheduler = await connectAs('affinity-scheduler');
    await scheduler.objects.put('ResourceBinding.default.web-deployment', '{}');
    await scheduler.objects.put('Cluster._.member1', '{}');
    expect((await failure(scheduler.objects.put('Deployment.default.web', '{}')))?.message).toMatch(
      /permissions violation/i,
    );
    const cron = await connectAs('cron-scheduler');
    await cron.objects.put('Deployment.default.web', '{}');
    await cron.objects.put('FederatedHPA.default.web', '{}');
    for (const key of ['PropagationPolicy.default.web', 'ResourceBinding.default.web-deployment', 'Cluster._.member1'])
      expect((await failure(cron.objects.put(key, '{}')))?.message).toMatch(/permissions violation/i);
  });

  it('refuses the status writer an object write, an API request and a metric sample', async () => {
    const statusWriter = await connectAs('status-writer');
    const put = await failure(statusWriter.objects.put('Deployment.default.web', '{"forged":true}'));
    expect(put?.message).toMatch(/permissions violation/i);
    const api = await failure(statusWriter.nc.request(`${names.apiRoot}.cli.delete`, '{}', { timeout: 2000 }));
    expect(api?.message).toMatch(/permissions violation/i);
    const metric = await failure(statusWriter.js.publish(`${names.metricsRoot}.default.web`, '[]'));
    expect(metric?.message).toMatch(/permissions violation/i);
  });
});

describe('one identity per member cluster', () => {
  it("lets member1's agent renew its own lease and write its usage, and refuses member2's", async () => {
    const member1 = await connectAs('member-member1');
    await member1.leases.put('Cluster._.member1', '{"holder":"member1"}');
    await member1.usage.put('ResourceBinding.default.web.v2-deployment.member1', '{}');
    const lease = await failure(member1.leases.put('Cluster._.member2', '{"holder":"member1"}'));
    expect(lease?.message).toMatch(/permissions violation/i);
    const usage = await failure(member1.usage.put('ResourceBinding.default.web-deployment.member2', '{}'));
    expect(usage?.message).toMatch(/permissions violation/i);
    const forged = await failure(
      member1.js.publish(`${names.eventsRoot}.Cluster._.member2.ClusterStatusReported`, '{}'),
    );
    expect(forged?.message).toMatch(/permissions violation/i);
    const scheduled = await failure(
      member1.js.publish(`${names.eventsRoot}.ResourceBinding.default.web.BindingScheduled`, '{}'),
    );
    expect(scheduled?.message).toMatch(/permissions violation/i);
    await member1.js.publish(`${names.eventsRoot}.Cluster._.member1.ClusterStatusReported`, '{}');
  });
});

describe('the API: private inboxes and callers by name', () => {
  it('lets the CLI call the gateway, which answers on its private inbox, and refuses it a direct write', async () => {
    gateway.nc.subscribe(`${names.apiRoot}.*.*`, {
      callback: (_err, msg) => {
        msg.respond(`{"ok":true,"subject":${JSON.stringify(msg.subject)}}`);
      },
    });
    await gateway.nc.flush();
    const cli = await connectAs('cli');
    const reply = await cli.nc.request(`${names.apiRoot}.cli.get`, '{}', { timeout: 2000 });
    expect(reply.json()).toEqual({ ok: true, subject: `${names.apiRoot}.cli.get` });
    expect(await cli.objects.get('Deployment.default.web')).not.toBeNull();
    const put = await failure(cli.objects.put('Deployment.default.web', '{"forged":true}'));
    expect(put?.message).toMatch(/permissions violation/i);
  });

  it("refuses the read-only CLI user the admin's name, and any user another's replies", async () => {
    const reader = await connectAs('cli-read');
    const borrowed = await failure(reader.nc.request(`${names.apiRoot}.cli.apply`, '{}', { timeout: 2000 }));
    expect(borrowed?.message).toMatch(/permissions violation/i);
    const eavesdropper = await rawAs('cli-read');
    const errors = refusals(eavesdropper);
    eavesdropper.subscribe(`${inboxPrefixOf('perm-cli')}.>`);
    eavesdropper.subscribe('_INBOX.>');
    await eavesdropper.flush();
    await eventually(() => (errors.length >= 2 ? true : undefined), 5000, "the server's refusals");
    expect(errors.join(' ')).toMatch(/permissions violation for subscription to "_INBOX_perm-cli\.>"/i);
    expect(errors.join(' ')).toMatch(/permissions violation for subscription to "_INBOX\.>"/i);
  });

  it('refuses every service but the gateway a subscription to the API, and any service a stream delete', async () => {
    const scheduler = await rawAs('affinity-scheduler');
    const errors = refusals(scheduler);
    scheduler.subscribe(`${names.apiRoot}.*.*`);
    await scheduler.flush();
    await eventually(() => (errors.length > 0 ? true : undefined), 5000, "the server's refusal");
    expect(errors.join(' ')).toMatch(/permissions violation for subscription/i);
    const jsm = await jetstreamManager(scheduler);
    expect((await failure(jsm.streams.delete(names.eventsStream)))?.message).toMatch(/permissions violation/i);
  });
});
