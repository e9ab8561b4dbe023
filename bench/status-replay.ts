// Status rebuild by replay: events/s folded from the stream, and the whole rebuild including writes.
import { cloudEvent, readEvents, type Bus } from '@flotilla/bus';
import { defaultReducers, rebuildStatus } from '@flotilla/status-writer';
import { fmt, report, withBenchBus } from './support.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 100_000);
const OBJECTS = Number(process.env.BENCH_OBJECTS ?? 10_000);

async function fill(bus: Bus): Promise<void> {
  const window: Promise<unknown>[] = [];
  for (let i = 0; i < EVENTS; i++) {
    const n = i % OBJECTS;
    const e = cloudEvent({
      source: 'bench',
      type: i % 3 === 0 ? 'WorkloadStatusReported' : 'BindingScheduled',
      kind: 'ResourceBinding',
      namespace: 'default',
      name: `app-${n}-deployment`,
      time: new Date(Date.UTC(2026, 0, 1) + i),
      data:
        i % 3 === 0
          ? {
              clusterName: `member${i % 7}`,
              applied: true,
              health: 'Healthy',
              status: { replicas: 3, readyReplicas: 3 },
            }
          : {
              statusPatch: {
                lastScheduledTime: new Date(Date.UTC(2026, 0, 1) + i).toISOString(),
                conditions: [{ type: 'Scheduled', status: 'True', reason: 'Success' }],
              },
            },
    });
    window.push(
      bus.js.publish(
        `${bus.names.eventsRoot}.ResourceBinding.default.app-${n}-deployment.${i % 3 === 0 ? 'WorkloadStatusReported' : 'BindingScheduled'}`,
        JSON.stringify(e),
      ),
    );
    if (window.length >= 1000) await Promise.all(window.splice(0));
  }
  await Promise.all(window);
}

await withBenchBus('replay', async (bus) => {
  await fill(bus);
  // The log read alone, to show how much of the rebuild is the stream and how much the folding.
  const t = performance.now();
  let n = 0;
  for await (const _ of readEvents(bus)) n++;
  const readMs = performance.now() - t;
  const r = await rebuildStatus(bus, defaultReducers());
  report(`status rebuild by replay (${r.events} events over ${r.objects} objects)`, [
    ['read only', `${fmt(n / (readMs / 1000))} events/s (${fmt(readMs)} ms)`],
    ['read + fold', `${fmt(r.events / (r.foldMs / 1000))} events/s (${fmt(r.foldMs)} ms)  (target >= 50,000 events/s)`],
    ['write statuses', `${fmt(r.writeMs)} ms for ${r.objects} records`],
    ['whole rebuild', `${fmt(r.events / ((r.foldMs + r.writeMs) / 1000))} events/s`],
  ]);
});
