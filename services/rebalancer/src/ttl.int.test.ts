// ttlSecondsAfterFinished on the controller's own clock (a ManualClock the test moves): whether the TTL has run out is
// decided on that clock, so the test sets the moment instead of waiting out real seconds and racing them.
import { ManualClock } from '@flotilla/runtime';
import { createDelayedQueue, jobDueAt } from '@flotilla/runtime/delayed-jobs';
import { decodeJson } from '@flotilla/bus';
import { objectKey, type StoredObject } from '@flotilla/store';
import { eventually } from '@flotilla/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RebalancerController } from './controller.js';
import { bindingFor, harness, rebalancer, workload, type Harness } from './testing/harness.js';

const TTL_SECONDS = 3600;
const RESYNC_MS = 200;
let h: Harness;
let controller: RebalancerController;
// Starts at the store's time (creationTimestamp is the store's), whole seconds like finishTime.
const clock = new ManualClock(Math.ceil(Date.now() / 1000) * 1000 + 1000);

beforeAll(async () => {
  h = await harness('rebalancer-ttl');
  // Every rebalancer is reconsidered every RESYNC_MS: a pass soon after each move of the clock.
  controller = h.controller({ clock, resyncMs: RESYNC_MS });
  await controller.start();
});
afterAll(async () => {
  await h?.dispose();
});

const ref = { kind: 'WorkloadRebalancer', name: 'short-lived' };
type Status = { observedWorkloads?: Array<{ workload: { name: string }; result?: string }>; finishTime?: string };
const statusOf = async () => (await h.store.get(ref))?.status as Status | undefined;
/** Two resync passes on the clock as it is now, each over caches that hold every write before it. */
const passes = async () => {
  await controller.nextPass();
  await controller.nextPass();
};

describe('rebalancer TTL on the controller clock', () => {
  it("waits out ttlSecondsAfterFinished after finishTime; a workload added before moves it (Karmada's case 1)", async () => {
    await h.apply(bindingFor('ttl-1'));
    await h.apply(bindingFor('ttl-2'));
    await h.apply(rebalancer('short-lived', [workload('ttl-1')], { ttlSecondsAfterFinished: TTL_SECONDS }));
    const first = await eventually(async () => (await statusOf())?.finishTime, 10_000, 'finished');
    expect(Date.parse(first)).toBe(clock.now().getTime());

    // The durable timer: a BullMQ delayed job due when the TTL runs out, so a restart or a new leader keeps it.
    const queue = createDelayedQueue({ name: 'rebalancer', prefix: h.bus.names.prefix, connection: h.redis });
    try {
      const armed = await eventually(async () => {
        const jobs = await queue.getJobs(['delayed']);
        return jobs.length ? jobs : undefined;
      });
      expect(armed.map(jobDueAt)).toContain(Date.parse(first) + TTL_SECONDS * 1000);
    } finally {
      await queue.close();
    }

    // Half the TTL later a second workload is added: finishTime moves to then.
    clock.advance((TTL_SECONDS / 2) * 1000);
    const current = (await h.store.get(ref)) as StoredObject;
    await h.store.apply({
      ...current,
      spec: { workloads: [workload('ttl-1'), workload('ttl-2')], ttlSecondsAfterFinished: TTL_SECONDS },
    });
    const second = await eventually(
      async () => {
        const s = await statusOf();
        return s?.finishTime !== first && s?.observedWorkloads?.every((o) => o.result === 'Successful') ? s : undefined;
      },
      10_000,
      'finished again',
    );
    expect(Date.parse(second.finishTime!)).toBe(Date.parse(first) + (TTL_SECONDS / 2) * 1000);

    // Past the first deadline, a second before the second one: passes keep it.
    clock.set(Date.parse(second.finishTime!) + TTL_SECONDS * 1000 - 1000);
    await passes();
    expect(await h.store.get(ref)).toBeDefined();

    // The second deadline: deleted.
    clock.advance(1000);
    await eventually(async () => ((await h.store.get(ref)) ? undefined : true), 10_000, 'the TTL delete');
  });

  it('deletes a finished rebalancer only once the status writer has stored its finished status', async () => {
    const lagging = { kind: 'WorkloadRebalancer', name: 'lagging' };
    const statuses: Status[] = [];
    let stored: { unsubscribe(): void } | undefined;
    await h.apply(bindingFor('ttl-3'));
    await h.pauseFolding();
    try {
      // TTL 0: past it as soon as it finishes, in the pass that finishes it.
      await h.apply(rebalancer('lagging', [workload('ttl-3')], { ttlSecondsAfterFinished: 0 }));
      await eventually(
        async () =>
          (
            (await h.store.get({ kind: 'ResourceBinding', namespace: 'default', name: 'ttl-3-deployment' }))?.spec as {
              rescheduleTriggeredAt?: string;
            }
          )?.rescheduleTriggeredAt,
        10_000,
        'the trigger written',
      );
      await passes();
      expect(await h.store.get(lagging), 'deleted before its status was stored').toBeDefined();
    } finally {
      // Every status the status writer stores from now on, as a reader watching it would see them.
      stored = h.bus.nc.subscribe(`$KV.${h.bus.names.statusBucket}.${objectKey(lagging)}`, {
        callback: (_err, msg) => {
          if (msg.data.length) statuses.push(decodeJson<{ status: Status }>(msg.data).status);
        },
      });
      await h.bus.nc.flush();
      await h.resumeFolding();
    }
    // The status writer stores the finished status; that change of it brings the deletion.
    await eventually(async () => ((await h.store.get(lagging)) ? undefined : true), 10_000, 'the TTL delete');
    stored?.unsubscribe();
    expect(statuses.some((st) => st.finishTime && st.observedWorkloads?.every((o) => o.result === 'Successful'))).toBe(
      true,
    );
  });
});
