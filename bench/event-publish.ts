// Cost of publishing one domain event (envelope, subject escaping, message-id dedupe) against a bare JetStream
// publish of the same payload, side by side in one run, alternating rounds to share the machine's noise.
import { cloudEvent, eventSubject, publishEvent, encodeJson } from '@flotilla/bus';
import { fmt, report, withBenchBus } from './support.js';

const N = Number(process.env.BENCH_N ?? 5000);
const ROUNDS = 4;

await withBenchBus('pub', async (bus) => {
  const data = {
    statusPatch: { conditions: [{ type: 'Scheduled', status: 'True', reason: 'Success' }] },
    clusters: [{ name: 'member1', replicas: 3 }],
  };
  const make = (i: number) =>
    cloudEvent({
      source: 'bench',
      type: 'BindingScheduled',
      kind: 'ResourceBinding',
      namespace: 'default',
      name: `web-${i}.v2`,
      time: new Date(),
      data,
    });
  // warm-up
  for (let i = 0; i < 500; i++) await publishEvent(bus, make(i));
  let flotillaMs = 0;
  let bareMs = 0;
  for (let r = 0; r < ROUNDS; r++) {
    let t = performance.now();
    for (let i = 0; i < N; i++) await publishEvent(bus, make(i));
    flotillaMs += performance.now() - t;
    // bare: the same bytes to the same kind of subject, no envelope construction, no msgID
    const payloads = Array.from({ length: N }, (_, i) => encodeJson(make(i)));
    const subjects = Array.from({ length: N }, (_, i) =>
      eventSubject(bus.names.eventsRoot, {
        kind: 'ResourceBinding',
        namespace: 'default',
        name: `web-${i}.v2`,
        type: 'BindingScheduled',
      }),
    );
    t = performance.now();
    for (let i = 0; i < N; i++) await bus.js.publish(subjects[i]!, payloads[i]!);
    bareMs += performance.now() - t;
  }
  const total = N * ROUNDS;
  report(`event publish vs bare JetStream publish (${total} each, awaited one by one)`, [
    [
      'flotilla publishEvent',
      `${fmt(total / (flotillaMs / 1000))} events/s, ${fmt((flotillaMs * 1000) / total)} µs each`,
    ],
    ['bare js.publish', `${fmt(total / (bareMs / 1000))} msgs/s, ${fmt((bareMs * 1000) / total)} µs each`],
    ['ratio (flotilla / bare)', `${(flotillaMs / bareMs).toFixed(2)}x  (target <= 1.2x)`],
  ]);
});
