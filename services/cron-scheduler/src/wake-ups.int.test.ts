import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '@flotilla/runtime';
import { createDelayedQueue, type DelayedQueue } from '@flotilla/runtime/delayed-jobs';
import { eventually } from '@flotilla/testkit';
import { wakeJobId } from './controller.js';
import { cronHpa, deployment, harness, type Harness } from './testing/harness.js';

const HOUR = 3_600_000;
let h: Harness;
let queue: DelayedQueue;

beforeAll(async () => {
  h = await harness('cron-wake');
  queue = createDelayedQueue({ name: h.queueName, prefix: h.prefix, connection: h.redis });
});
afterAll(async () => {
  await queue?.close();
  await h?.dispose();
});

/** A 6-field schedule that fires once a day at `at`'s UTC second. */
const dailyAt = (at: number) => {
  const d = new Date(at);
  return `${d.getUTCSeconds()} ${d.getUTCMinutes()} ${d.getUTCHours()} * * *`;
};
const replicasOf = async (name: string) =>
  ((await h.store.get({ kind: 'Deployment', namespace: 'default', name }))?.spec as { replicas?: number } | undefined)
    ?.replicas;

describe('durable wake-ups (BullMQ): one per instant, armed within the horizon', () => {
  it('an instant beyond the horizon is armed by the resync that finds it within, and that wake-up alone fires its rules', async () => {
    // BullMQ runs on real time, so the instant is a few seconds ahead; the controller's clock starts two hours
    // before it, so its local timers wait for hours and only the durable wake-up can fire the rules in time.
    const due = Math.ceil((Date.now() + 5000) / 1000) * 1000;
    const clock = new ManualClock(due - 2 * HOUR);
    for (const name of ['wake-a', 'wake-b']) {
      await h.apply(deployment(name, 1));
      await h.apply(
        cronHpa(`${name}-cron`, { apiVersion: 'apps/v1', kind: 'Deployment', name }, [
          { name: 'up', schedule: dailyAt(due), targetReplicas: 3 },
        ]),
      );
    }
    // The resync runs on real time: only the test calls it.
    const c = h.controller({ clock, armHorizonMs: HOUR, resyncMs: HOUR / 2 });
    await c.start();
    await c.idle();
    expect(await queue.getJob(wakeJobId(due))).toBeUndefined();

    clock.set(due - HOUR / 2);
    c.resync();
    await c.idle();
    // Both objects share the instant's one wake-up.
    expect((await queue.getDelayed()).map((j) => j.id)).toEqual([wakeJobId(due)]);
    expect(Date.now(), 'the set-up ran past the instant; the wake-up may have found nothing due yet').toBeLessThan(
      due - 500,
    );

    clock.set(due);
    await eventually(
      async () => ((await replicasOf('wake-a')) === 3 && (await replicasOf('wake-b')) === 3 ? true : undefined),
      10_000,
      'both targets scaled',
    );
    for (const name of ['wake-a', 'wake-b']) {
      const executed = (await h.events(`${name}-cron`)).filter((e) => e.type === 'CronRuleExecuted');
      expect(executed.map((e) => Date.parse(e.data.scheduleTime as string))).toEqual([due]);
    }
    await c.stop();
  });
});
