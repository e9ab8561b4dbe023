import { connectBus, destroyBus, MAX_DECODED_JSON_BYTES, type Bus } from '@flotilla/bus';
import { gzipBomb, testBus } from '@flotilla/bus/testing';
import { ReadinessGates, startHttpServer } from '@flotilla/runtime';
import { eventually, freeTcpPort, metricSum, PrivateNats, uniquePrefix } from '@flotilla/testkit';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Informer, type InformerEvent, type InformerLogger } from './informer.js';
import { Informers, InformerProjectionConflictError } from './informers.js';
import { ObjectStore } from './object-store.js';
import type { StoredObject } from './object.js';

const deploy = (name: string, replicas: number): StoredObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'default' },
  spec: { replicas },
});

/** A logger that keeps its lines, to assert what was logged and how often. */
function recordingLogger() {
  const lines: Array<{ level: string; msg: string; fields: Record<string, unknown> }> = [];
  const at =
    (level: string) =>
    (fields: object, msg: string): void => {
      lines.push({ level, msg, fields: fields as Record<string, unknown> });
    };
  const logger: InformerLogger = { info: at('info'), warn: at('warn'), error: at('error') };
  return { logger, lines };
}

/** The replicas of every cached Deployment, by name: compared with what the bucket holds. */
const replicasOf = (objects: Iterable<StoredObject>) =>
  Object.fromEntries([...objects].map((o) => [o.metadata.name, (o.spec as { replicas: number }).replicas]));

describe('Informer (shared bus)', () => {
  let bus: Bus & { dispose(): Promise<void> };
  let store: ObjectStore;
  const stops: Array<() => void | Promise<void>> = [];
  beforeAll(async () => {
    bus = await testBus('informer');
    store = new ObjectStore(bus);
  });
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
  });
  afterAll(async () => {
    await bus?.dispose();
  });

  it('caughtUpWithBucket: true once the cache holds every write made before the call and its subscribers were told', async () => {
    const informer = new Informer<StoredObject>({ bus, bucket: 'objects', kind: 'DaemonSet' });
    const told: string[] = [];
    const sub = informer.subscribe(async (e) => {
      await new Promise((r) => setTimeout(r, 20)); // a slow subscriber: the cache runs ahead of what it was told
      told.push(`${e.type} ${e.key}`);
    });
    stops.push(() => sub.unsubscribe());
    await sub.synced;
    for (let i = 0; i < 5; i++) await store.apply({ ...deploy(`barrier-${i}`, i), kind: 'DaemonSet' } as StoredObject);
    expect(await informer.caughtUpWithBucket(5000)).toBe(true);
    expect(informer.size).toBe(5);
    expect(told).toEqual([0, 1, 2, 3, 4].map((i) => `upsert DaemonSet.default.barrier-${i}`));
  });

  it('afterReceived: runs once the informer has handed on what its watch received, whatever another watch is at', async () => {
    // Two watches of one bucket, each in order but not with each other: the first one's subscriber is slow, so its
    // changes queue while the second one's, written after them, come through at once.
    const first = new Informer<StoredObject>({ bus, bucket: 'objects', kind: 'Job' });
    const second = new Informer<StoredObject>({ bus, bucket: 'objects', kind: 'CronJob' });
    const told: string[] = [];
    const firstSub = first.subscribe(async (e) => {
      await new Promise((r) => setTimeout(r, 30));
      told.push(e.key);
    });
    const seenThen: Array<{ key: string; told: number }> = [];
    const secondSub = second.subscribe((e) => {
      const toldAtEvent = told.length;
      first.afterReceived(() => seenThen.push({ key: e.key, told: told.length }));
      seenThen.push({ key: `${e.key} (at its event)`, told: toldAtEvent });
    });
    stops.push(
      () => firstSub.unsubscribe(),
      () => secondSub.unsubscribe(),
    );
    await Promise.all([firstSub.synced, secondSub.synced]);
    for (let i = 0; i < 5; i++) await store.apply({ ...deploy(`after-${i}`, i), kind: 'Job' } as StoredObject);
    await store.apply({ ...deploy('after-last', 1), kind: 'CronJob' } as StoredObject);
    await eventually(() => (seenThen.length === 2 ? true : undefined), 10_000, 'the callback');
    // At its own event the second informer was ahead of the first (else this test shows nothing); the callback ran
    // only once the first had handed on all five.
    expect(seenThen[0]).toEqual({ key: 'CronJob.default.after-last (at its event)', told: expect.any(Number) });
    expect(seenThen[0]!.told).toBeLessThan(5);
    expect(seenThen[1]).toEqual({ key: 'CronJob.default.after-last', told: 5 });
    // Nothing waiting: at once.
    let ranAtOnce = false;
    first.afterReceived(() => {
      ranAtOnce = true;
    });
    expect(ranAtOnce).toBe(true);
  });

  it('logs and counts a handler that throws, and goes on with the next event', async () => {
    const registry = new Registry();
    const { logger, lines } = recordingLogger();
    const seen: string[] = [];
    const informer = new Informer<StoredObject>({
      bus,
      bucket: 'objects',
      kind: 'Deployment',
      logger,
      registry,
      onEvent: (e) => {
        if (e.type === 'upsert' && e.ref.name === 'bad') throw new Error('handler broke');
        seen.push(e.ref.name);
      },
    });
    await informer.start();
    stops.push(() => informer.stop());
    await store.apply(deploy('bad', 1));
    await store.apply(deploy('good', 2));
    await eventually(() => (seen.includes('good') ? true : undefined), 5000, 'the event after the failing one');
    expect(await metricSum(registry, 'flotilla_informer_handler_errors_total', { kind: 'Deployment' })).toBe(1);
    const failure = lines.find((l) => l.msg.startsWith('informer handler failed'));
    expect(failure?.fields).toMatchObject({ kind: 'Deployment', key: 'Deployment.default.bad', event: 'upsert' });
    expect((failure?.fields.err as Error | undefined)?.message).toBe('handler broke');
    expect(informer.get({ kind: 'Deployment', namespace: 'default', name: 'bad' })).toBeDefined();
  });

  it('sets aside a gzip bomb it lists or watches: logged once with its key, counted, the cache kept, the watch going on', async () => {
    const kind = 'ReplicaSet';
    const key = (name: string) => `${kind}.default.${name}`;
    // A hostile writer's values, straight into the bucket: JSON that expands to twice the bound.
    const bomb = () =>
      gzipBomb({
        prefix: '{"pad":0',
        padBytes: 2 * MAX_DECODED_JSON_BYTES,
        suffix: `,${JSON.stringify(deploy('x', 9)).slice(1)}`,
      });
    await store.apply({ ...deploy('kept', 1), kind });
    await bus.objects.put(key('listed-bomb'), await bomb());
    const registry = new Registry();
    const { logger, lines } = recordingLogger();
    const informer = new Informer<StoredObject>({ bus, bucket: 'objects', kind, logger, registry });
    await informer.start();
    stops.push(() => informer.stop());
    expect([...informer.keys()]).toEqual([key('kept')]);

    await bus.objects.put(key('kept'), await bomb()); // a good value overwritten by a bomb: the cache keeps the good one
    await store.apply({ ...deploy('after', 2), kind });
    expect(await informer.caughtUpWithBucket(5000)).toBe(true);
    expect(replicasOf(informer.values())).toEqual({ kept: 1, after: 2 });

    const setAside = lines.filter((l) => l.msg.startsWith('informer set aside'));
    expect(setAside.map((l) => [l.level, l.fields.key, l.fields.reason])).toEqual([
      ['error', key('listed-bomb'), 'too-large'],
      ['error', key('kept'), 'too-large'],
    ]);
    expect(String((setAside[0]?.fields.err as Error | undefined)?.message)).toMatch(
      new RegExp(`^cannot decode ${bus.names.objectsBucket} ${key('listed-bomb')}: gzipped`),
    );
    expect(await metricSum(registry, 'flotilla_informer_undecodable_values_total', { kind })).toBe(2);
    expect(await metricSum(registry, 'flotilla_informer_watch_restarts_total')).toBe(0);
  });

  it('is one per (bucket, kind) in a process: a late subscriber is handed the cache, the last one stops it', async () => {
    const informers = new Informers({ bus });
    await store.apply({ ...deploy('shared-1', 1), kind: 'StatefulSet' });
    const a = informers.objects('StatefulSet');
    expect(informers.objects('StatefulSet')).toBe(a);
    const first: string[] = [];
    const late: string[] = [];
    const s1 = a.subscribe((e) => void first.push(`${e.type} ${e.ref.name}`));
    await s1.synced;
    const s2 = a.subscribe((e) => void late.push(`${e.type} ${e.ref.name}`));
    await s2.synced;
    expect(late).toEqual(['upsert shared-1']);
    await store.apply({ ...deploy('shared-2', 2), kind: 'StatefulSet' });
    await eventually(() => (late.length === 2 && first.length === 2 ? true : undefined), 5000, 'both handlers');
    expect(first).toEqual(['upsert shared-1', 'upsert shared-2']);
    s1.unsubscribe();
    await store.apply({ ...deploy('shared-3', 3), kind: 'StatefulSet' });
    await eventually(() => (late.length === 3 ? true : undefined), 5000, 'the remaining handler');
    s2.unsubscribe();
    expect(first).toHaveLength(2);
  });

  it('refuses a second projection of a kind in one process, naming both', () => {
    const informers = new Informers({ bus });
    informers.objects('Cluster', {
      name: 'names-only',
      project: (c: { metadata: { name: string } }) => c.metadata.name,
    });
    expect(() => informers.objects('Cluster')).toThrow(InformerProjectionConflictError);
    expect(() => informers.objects('Cluster')).toThrow(
      'informer objects/Cluster is shared by every user in the process and keeps projection "names-only", but whole values was asked for',
    );
  });

  it('rebuilds the cache when the bucket is purged under it: logged, counted, not ready in between', async () => {
    const own = await testBus('informer-purge');
    stops.push(() => own.dispose());
    const ownStore = new ObjectStore(own);
    const registry = new Registry();
    const gates = new ReadinessGates();
    const { logger, lines } = recordingLogger();
    const readyz = await startHttpServer({
      host: '127.0.0.1',
      port: 0,
      registry,
      readiness: () => gates.reasons(),
      logger: pino({ level: 'silent' }),
    });
    stops.push(() => readyz.close());
    const informer = new Informer<StoredObject>({
      bus: own,
      bucket: 'objects',
      kind: 'Deployment',
      logger,
      registry,
      readiness: gates,
      auditIntervalMs: 200,
    });
    const readiness: string[] = [];
    const deletes: string[] = [];
    // The rebuild delivers its deletes while the gate is closed and awaits each handler, so asking /readyz from the
    // handler sees the rebuild however short it is (polling from outside could fall between two probes).
    const sub = informer.subscribe(async (e: InformerEvent<StoredObject>) => {
      if (e.type !== 'delete') return;
      deletes.push(e.ref.name);
      const r = await fetch(`http://127.0.0.1:${readyz.port}/readyz`);
      readiness.push(`${r.status} ${(await r.text()).trim()}`);
    });
    stops.push(() => sub.unsubscribe());
    expect(gates.reasons()).toEqual(['informer objects/Deployment: cache not synced: listing']);
    await sub.synced;
    for (let i = 0; i < 3; i++) await ownStore.apply(deploy(`p-${i}`, i));
    await eventually(() => (informer.size === 3 ? true : undefined), 5000, 'three cached');

    await own.jsm.streams.purge(`KV_${own.names.objectsBucket}`);
    await ownStore.apply(deploy('after-purge', 7));
    await eventually(
      () => (informer.size === 1 && gates.open ? true : undefined),
      10_000,
      'the cache rebuilt to the bucket',
    );
    const after = await fetch(`http://127.0.0.1:${readyz.port}/readyz`);
    expect(after.status).toBe(200);

    expect(replicasOf(informer.values())).toEqual(replicasOf(await ownStore.list('Deployment')));
    expect(replicasOf(informer.values())).toEqual({ 'after-purge': 7 });
    expect(deletes.sort()).toEqual(['p-0', 'p-1', 'p-2']);
    expect(readiness).toHaveLength(3);
    for (const r of readiness) expect(r).toMatch(/^503 .*informer objects\/Deployment: cache being rebuilt/);
    expect(await metricSum(registry, 'flotilla_informer_watch_restarts_total', { recovery: 'relist' })).toBe(1);
    expect(lines.filter((l) => l.msg === 'informer watch interrupted; relisting')).toHaveLength(1);
    expect(lines.find((l) => l.msg === 'informer watch interrupted; relisting')?.fields).toMatchObject({
      bucket: 'objects',
      kind: 'Deployment',
    });
  });
});

describe('Informer (a NATS server of its own, restarted)', () => {
  let nats: PrivateNats;
  let bus: Bus | undefined;
  beforeAll(async () => {
    nats = new PrivateNats(await freeTcpPort());
    await nats.start();
  });
  afterAll(async () => {
    if (bus) {
      // Not against a server the test left stopped (it failed in between): a request then waits for a reconnect that
      // never comes, and the hook's timeout hid the test's own failure.
      if (nats?.running) await destroyBus(bus).catch(() => undefined);
      await bus.close().catch(() => undefined);
    }
    await nats?.dispose();
  });

  it('resumes from the last revision seen after the watch is cut: logged, counted, not ready in between', async () => {
    bus = await connectBus({ url: nats.url, prefix: uniquePrefix('informer-cut'), name: 'test' });
    const store = new ObjectStore(bus);
    const registry = new Registry();
    const gates = new ReadinessGates();
    const { logger, lines } = recordingLogger();
    const informer = new Informer<StoredObject>({
      bus,
      bucket: 'objects',
      kind: 'Deployment',
      logger,
      registry,
      readiness: gates,
    });
    const reasons: string[][] = [];
    const seen: string[] = [];
    const sub = informer.subscribe((e) => {
      seen.push(`${e.type} ${e.ref.name}`);
      reasons.push(gates.reasons());
    });
    try {
      await store.apply(deploy('before', 1));
      await sub.synced;
      // synced can come from the listing of an empty bucket, before the watch delivers revision 1: the cut must come
      // after it, or the watch resumes from 1, not 2
      await eventually(() => (seen.length === 1 ? true : undefined), 5000, 'the first event');
      await nats.stop();
      await eventually(() => (gates.open ? undefined : true), 5000, 'the watch reported cut');
      expect(gates.reasons()).toEqual([
        expect.stringMatching(/^informer objects\/Deployment: JetStream watch interrupted: /),
      ]);
      await nats.start();
      await eventually(() => (gates.open ? true : undefined), 15_000, 'the watch resumed');
      await store.apply(deploy('after', 2));
      await store.apply(deploy('before', 3));
      await eventually(() => (seen.length === 3 ? true : undefined), 10_000, 'the events after the restart');
      expect(seen).toEqual(['upsert before', 'upsert after', 'upsert before']);
      expect(replicasOf(informer.values())).toEqual(replicasOf(await store.list('Deployment')));
      expect(await metricSum(registry, 'flotilla_informer_watch_restarts_total', { recovery: 'resume' })).toBe(1);
      const restarts = lines.filter((l) => l.msg.startsWith('informer watch interrupted'));
      expect(restarts).toHaveLength(1);
      expect(restarts[0]!.fields).toMatchObject({ kind: 'Deployment', resumeFromRevision: 2 });
    } finally {
      sub.unsubscribe();
    }
  });
});
