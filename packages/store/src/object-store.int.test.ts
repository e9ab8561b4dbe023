import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testBus } from '@flotilla/bus/testing';
import { eventually } from '@flotilla/testkit';
import { AlreadyExistsError, type Bus } from '@flotilla/bus';
import { ObjectStore } from './object-store.js';
import { StatusStore } from './status-store.js';
import { Informer, type InformerEvent } from './informer.js';
import { NotFoundError, StaleResourceVersionError } from './errors.js';
import type { StoredObject } from './object.js';

let bus: Bus & { dispose(): Promise<void> };
let store: ObjectStore;
beforeAll(async () => {
  bus = await testBus('store');
  store = new ObjectStore(bus, { now: () => new Date('2026-01-02T03:04:05.678Z') });
});
afterAll(async () => {
  await bus?.dispose();
});

const deploy = (name: string, replicas: number, labels?: Record<string, string>): StoredObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'default', ...(labels ? { labels } : {}) },
  spec: { replicas },
});

describe('ObjectStore', () => {
  it('sets uid and creationTimestamp once and bumps generation only on spec changes', async () => {
    const a = await store.apply(deploy('gen', 1));
    expect(a.outcome).toBe('created');
    expect(a.object.metadata).toMatchObject({ generation: 1, creationTimestamp: '2026-01-02T03:04:05Z' });
    const uid = a.object.metadata.uid;
    expect(uid).toMatch(/^[0-9a-f-]{36}$/);

    const same = await store.apply(deploy('gen', 1));
    expect(same.outcome).toBe('unchanged');
    expect(same.object.metadata.resourceVersion).toBe(a.object.metadata.resourceVersion);

    const labelled = await store.apply(deploy('gen', 1, { team: 'a' }));
    expect(labelled.outcome).toBe('configured');
    expect(labelled.object.metadata.generation).toBe(1);

    const scaled = await store.apply({
      ...deploy('gen', 3, { team: 'a' }),
      metadata: { name: 'gen', namespace: 'default', labels: { team: 'a' }, uid: 'forged', generation: 99 },
    });
    expect(scaled.object.metadata).toMatchObject({ uid, generation: 2, creationTimestamp: '2026-01-02T03:04:05Z' });
  });

  it('rejects a stale resourceVersion and leaves the stored object as it was', async () => {
    const first = await store.apply(deploy('occ', 1));
    const rv = first.object.metadata.resourceVersion!;
    await store.apply({ ...deploy('occ', 2), metadata: { name: 'occ', namespace: 'default', resourceVersion: rv } });
    await expect(
      store.apply({ ...deploy('occ', 5), metadata: { name: 'occ', namespace: 'default', resourceVersion: rv } }),
    ).rejects.toBeInstanceOf(StaleResourceVersionError);
    expect((await store.get({ kind: 'Deployment', namespace: 'default', name: 'occ' }))?.spec).toEqual({ replicas: 2 });
    await expect(store.delete({ kind: 'Deployment', namespace: 'default', name: 'occ' }, rv)).rejects.toBeInstanceOf(
      StaleResourceVersionError,
    );
  });

  it('creates only what does not exist yet', async () => {
    const created = await store.create(deploy('once', 1));
    expect(created.metadata).toMatchObject({ generation: 1, resourceVersion: expect.stringMatching(/^\d+$/) });
    await expect(store.create(deploy('once', 2))).rejects.toBeInstanceOf(AlreadyExistsError);
    expect((await store.mustGet({ kind: 'Deployment', namespace: 'default', name: 'once' })).spec).toEqual({
      replicas: 1,
    });
  });

  it('lets concurrent controllers update without losing writes', async () => {
    await store.apply({ ...deploy('race', 0) });
    const ref = { kind: 'Deployment', namespace: 'default', name: 'race' };
    await Promise.all(
      Array.from({ length: 20 }, () =>
        store.update(ref, (o) => ({ ...o, spec: { replicas: ((o.spec as { replicas: number }).replicas ?? 0) + 1 } })),
      ),
    );
    const final = await store.mustGet(ref);
    expect(final.spec).toEqual({ replicas: 20 });
    expect(final.metadata.generation).toBe(21);
  });

  it('updates from a cached copy without reading, and from the stored one when the copy is stale', async () => {
    const ref = { kind: 'Deployment', namespace: 'default', name: 'cached' };
    const first = await store.create(deploy('cached', 1));
    const cachedAt = { value: first, revision: Number(first.metadata.resourceVersion) };
    const bump = (o: StoredObject) => ({ ...o, spec: { replicas: (o.spec as { replicas: number }).replicas + 1 } });
    const second = await store.update(ref, bump, { cached: cachedAt });
    expect(second).toMatchObject({ spec: { replicas: 2 }, metadata: { generation: 2, uid: first.metadata.uid } });
    expect(second!.metadata.resourceVersion).not.toBe(first.metadata.resourceVersion);
    // The same, now stale, copy again: the compare-and-set fails, the stored object is read, and no write is lost.
    const third = await store.update(ref, bump, { cached: cachedAt });
    expect(third).toMatchObject({ spec: { replicas: 3 }, metadata: { generation: 3 } });
    expect((await store.mustGet(ref)).spec).toEqual({ replicas: 3 });
    // A cached copy that already is what mutate returns writes nothing.
    const current = await store.mustGet(ref);
    expect(
      await store.update(ref, (o) => o, {
        cached: { value: current, revision: Number(current.metadata.resourceVersion) },
      }),
    ).toBeUndefined();
  });

  it('ignores status on apply; status comes from the status store', async () => {
    await store.apply({ ...deploy('st', 1), status: { replicas: 99 } });
    const ref = { kind: 'Deployment', namespace: 'default', name: 'st' };
    expect((await store.get(ref))?.status).toBeUndefined();
    await new StatusStore(bus).fold(ref, 1, () => ({ readyReplicas: 1 }));
    expect((await store.get(ref))?.status).toEqual({ readyReplicas: 1 });
    expect((await store.list('Deployment', 'default')).find((o) => o.metadata.name === 'st')?.status).toEqual({
      readyReplicas: 1,
    });
    // a redelivered (older or equal) event is not folded again
    await new StatusStore(bus).fold(ref, 1, () => ({ readyReplicas: 7 }));
    expect((await store.get(ref))?.status).toEqual({ readyReplicas: 1 });
    await store.delete(ref);
    await expect(store.mustGet(ref)).rejects.toBeInstanceOf(NotFoundError);
    expect(await new StatusStore(bus).get(ref)).toBeUndefined();
  });
});

describe('Informer', () => {
  it('delivers the listed objects, then every later change once, in order', async () => {
    for (let i = 0; i < 5; i++) await store.apply({ ...deploy(`inf-${i}`, i), kind: 'StatefulSet' });
    const seen: InformerEvent<StoredObject>[] = [];
    const inf = new Informer<StoredObject>({
      bus,
      bucket: 'objects',
      kind: 'StatefulSet',
      onEvent: (e) => {
        seen.push(e);
      },
    });
    await inf.start();
    expect(seen.filter((e) => e.type === 'upsert')).toHaveLength(5);
    await store.apply({ ...deploy('inf-9', 9), kind: 'StatefulSet' });
    await store.delete({ kind: 'StatefulSet', namespace: 'default', name: 'inf-0' });
    await eventually(() => (seen.length >= 7 ? true : undefined), 5000, 'watch events');
    inf.stop();
    expect(seen.slice(5).map((e) => [e.type, e.ref.name])).toEqual([
      ['upsert', 'inf-9'],
      ['delete', 'inf-0'],
    ]);
    expect(inf.get({ kind: 'StatefulSet', namespace: 'default', name: 'inf-9' })?.metadata.resourceVersion).toMatch(
      /^\d+$/,
    );
    expect(inf.cache.size).toBe(5);
  });
});
