import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testBus } from '@flotilla/bus/testing';
import { cloudEvent, publishEvent, type Bus } from '@flotilla/bus';
import { foldReplicaTrail, trailAddresses, type AutoscalerLike, type TrailEvent } from '@flotilla/replica-trail';
import { objectKey } from './object.js';
import { projectReplicaTrail, readReplicaTrail, type TrailProjectionHead } from './trail-projection.js';

let bus: Bus & { dispose(): Promise<void> };
beforeAll(async () => {
  bus = await testBus('trails');
});
afterAll(async () => {
  await bus?.dispose();
});

const ehpa = (name: string, target: string): AutoscalerLike => ({
  kind: 'EffectiveHorizontalPodAutoscaler',
  metadata: { name, namespace: 'default' },
  spec: { scaleTargetRef: { kind: 'Deployment', name: target } },
});

let n = 0;
/**
 * A decision of `ehpa` (to `to` replicas), an apply of `workload`, or a change of `conflictOn`'s (an EffectiveHPA's)
 * ReplicaOwnerConflict condition (`to` 1: True, 0: False), published on the stream.
 */
async function decide(e: { ehpa?: string; workload?: string; conflictOn?: string; to: number }): Promise<TrailEvent> {
  const time = new Date(Date.UTC(2026, 4, 4, 8, 0, n++));
  const condition = (status: string, reason: string) => ({
    statusPatch: { conditions: [{ type: 'ReplicaOwnerConflict', status, reason, message: `${reason} at ${n}` }] },
  });
  const [kind, name, type, data] = e.ehpa
    ? ['EffectiveHorizontalPodAutoscaler', e.ehpa, 'EffectiveHPAScaled', { source: 'observed', toReplicas: e.to }]
    : e.conflictOn
      ? [
          'EffectiveHorizontalPodAutoscaler',
          e.conflictOn,
          ...(e.to
            ? ([
                'ReplicaOwnerConflict',
                { conflicts: ['m1/default/local'], ...condition('True', 'ForeignMemberHPA') },
              ] as const)
            : (['ReplicaOwnerConflictResolved', condition('False', 'NoConflict')] as const)),
        ]
      : [
          'Deployment',
          e.workload!,
          'ReplicasApplied',
          { fromReplicas: null, requestedReplicas: e.to, toReplicas: e.to, via: 'nats', outcome: 'configured' },
        ];
  await publishEvent(bus, cloudEvent({ source: 'test', kind, namespace: 'default', name, type, time, data }));
  return { type, kind, namespace: 'default', name, time: time.toISOString(), data };
}

describe('the replica-trail projection', () => {
  it('answers from the projection and the events after it as a fold of the whole stream would', async () => {
    const web = { kind: 'Deployment', namespace: 'default', name: 'web' };
    const addresses = trailAddresses(web, [ehpa('web', 'web'), ehpa('other', 'other')]);
    const seen: TrailEvent[] = [];
    for (let i = 0; i < 7; i++) {
      seen.push(await decide({ ehpa: 'web', to: i + 1 }));
      await decide({ ehpa: 'other', to: i + 10 });
    }
    // An owner conflict of web's EffectiveHPA is in its trail; one of another workload's is not.
    seen.push(await decide({ conflictOn: 'web', to: 1 }));
    await decide({ conflictOn: 'other', to: 1 });
    // No projection yet: folded from the stream.
    expect(await readReplicaTrail(bus, web, addresses)).toMatchObject({ projected: 0, eventsRead: 8 });
    // Chunks of 3 entries: 8 entries end in a partial chunk that the next projection rewrites.
    expect(await projectReplicaTrail(bus, web, addresses, { chunkEntries: 3 })).toEqual({ folded: 8, rebuilt: true });
    // The conflict clears after the projection: the entry's old value comes from the state the head stored.
    seen.push(
      await decide({ workload: 'web', to: 20 }),
      await decide({ conflictOn: 'web', to: 0 }),
      await decide({ ehpa: 'web', to: 21 }),
    );
    const read = await readReplicaTrail(bus, web, addresses);
    expect(read).toMatchObject({ projected: 8, eventsRead: 3 });
    expect(read.entries).toEqual(foldReplicaTrail(seen));
    expect(read.entries.filter((x) => x.field.kind === 'ownerConflict').map((x) => [x.from, x.to])).toEqual([
      [null, { status: 'True', reason: 'ForeignMemberHPA' }],
      [
        { status: 'True', reason: 'ForeignMemberHPA' },
        { status: 'False', reason: 'NoConflict' },
      ],
    ]);

    expect(await projectReplicaTrail(bus, web, addresses, { chunkEntries: 3 })).toEqual({ folded: 3, rebuilt: false });
    expect(await projectReplicaTrail(bus, web, addresses, { chunkEntries: 3 })).toEqual({ folded: 0, rebuilt: false });
    const again = await readReplicaTrail(bus, web, addresses);
    expect(again).toMatchObject({ projected: 11, eventsRead: 0 });
    expect(again.entries).toEqual(foldReplicaTrail(seen));
  });

  it('starts over when the autoscalers aimed at the workload changed, and drops the chunks of the old subjects', async () => {
    const api = { kind: 'Deployment', namespace: 'default', name: 'api' };
    const one = trailAddresses(api, [ehpa('api-a', 'api')]);
    const two = trailAddresses(api, [ehpa('api-a', 'api'), ehpa('api-b', 'api')]);
    const a = await decide({ ehpa: 'api-a', to: 2 });
    const b = await decide({ ehpa: 'api-b', to: 3 });
    await projectReplicaTrail(bus, api, one, { chunkEntries: 1 });
    // Read with the other autoscaler aimed at it too: the projection of one does not fit, the stream answers.
    const read = await readReplicaTrail(bus, api, two);
    expect(read).toMatchObject({ projected: 0, eventsRead: 2 });
    expect(read.entries).toEqual(foldReplicaTrail([a, b]));
    expect(await projectReplicaTrail(bus, api, two, { chunkEntries: 1 })).toEqual({ folded: 2, rebuilt: true });
    const keys: string[] = [];
    for await (const k of await bus.trails.keys(`${objectKey(api)}.>`)) keys.push(k);
    expect(keys).toHaveLength(2);
    expect((await readReplicaTrail(bus, api, two)).projected).toBe(2);
  });

  it('ignores a projection of another stream (one re-created since) or with a chunk missing', async () => {
    const db = { kind: 'Deployment', namespace: 'default', name: 'db' };
    const addresses = trailAddresses(db, []);
    const seen = [await decide({ workload: 'db', to: 1 }), await decide({ workload: 'db', to: 2 })];
    await projectReplicaTrail(bus, db, addresses, { chunkEntries: 3 });
    const key = objectKey(db);
    const head = (await bus.trails.get(key))!.json<TrailProjectionHead>();
    await bus.trails.put(key, JSON.stringify({ ...head, streamCreated: '2020-01-01T00:00:00Z' }));
    expect(await readReplicaTrail(bus, db, addresses)).toMatchObject({ projected: 0, entries: foldReplicaTrail(seen) });
    expect((await projectReplicaTrail(bus, db, addresses, { chunkEntries: 3 })).rebuilt).toBe(true);

    const keys: string[] = [];
    for await (const k of await bus.trails.keys(`${key}.>`)) keys.push(k);
    expect(keys).toHaveLength(1);
    await bus.trails.purge(keys[0]!);
    expect(await readReplicaTrail(bus, db, addresses)).toMatchObject({ projected: 0, entries: foldReplicaTrail(seen) });
    seen.push(await decide({ workload: 'db', to: 3 }));
    // The projection itself starts over rather than continue from the partial chunk it no longer has.
    expect(await projectReplicaTrail(bus, db, addresses, { chunkEntries: 3 })).toEqual({ folded: 3, rebuilt: true });
    expect(await readReplicaTrail(bus, db, addresses)).toMatchObject({ projected: 3, entries: foldReplicaTrail(seen) });
  });
});
