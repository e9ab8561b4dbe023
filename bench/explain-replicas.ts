// `flotilla explain replicas`: how long the trail of one workload takes to build from the event stream when that
// workload has 10,000 replica decisions among many other workloads' events (target: within 200 ms).
import { replicaTrail } from '@flotilla/presentation';
import { cloudEvent, type Bus } from '@flotilla/bus';
import { trailAddresses, type AutoscalerLike } from '@flotilla/replica-trail';
import { projectReplicaTrail } from '@flotilla/store';
import { fmt, percentile, report, withBenchBus } from './support.js';

const OWN = Number(process.env.BENCH_OWN_EVENTS ?? 10_000);
const OTHERS = Number(process.env.BENCH_OTHER_EVENTS ?? 50_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
/** Decisions made after the projection was last brought up, which an answer folds from the stream. */
const TAIL = 50;

/** The autoscalers the gateway would list: an EffectiveHPA and a CronFederatedHPA aimed at `web`. */
const autoscalers = {
  EffectiveHorizontalPodAutoscaler: [
    {
      kind: 'EffectiveHorizontalPodAutoscaler',
      metadata: { name: 'web', namespace: 'default' },
      spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' } },
    },
  ],
  CronFederatedHPA: [
    {
      kind: 'CronFederatedHPA',
      metadata: { name: 'web-cron', namespace: 'default' },
      spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' } },
    },
  ],
  FederatedHPA: [],
} as Record<string, unknown[]>;
const client = { list: async (kind: string) => ({ items: autoscalers[kind] ?? [] }) } as never;

/** One of `web`'s decisions, round robin over the deciders; every fifth of the others is web's own status report. */
interface BenchEvent {
  kind: string;
  name: string;
  type: string;
  time: Date;
  data: unknown;
}

function ownEvent(i: number): BenchEvent {
  const time = new Date(Date.UTC(2026, 0, 1) + i * 1000);
  switch (i % 4) {
    case 0:
      return {
        kind: 'EffectiveHorizontalPodAutoscaler',
        name: 'web',
        type: 'EffectiveHPAScaled',
        time,
        data: {
          source: 'observed',
          fromReplicas: 3 + (i % 7),
          toReplicas: 3 + ((i + 1) % 7),
          kubeEvent: { message: 'New size' },
        },
      };
    case 1:
      return {
        kind: 'CronFederatedHPA',
        name: 'web-cron',
        type: 'CronRuleExecuted',
        time,
        data: {
          ruleName: 'up',
          scheduleTime: time.toISOString(),
          appliedReplicas: 5 + (i % 3),
          target: 'Deployment web',
        },
      };
    case 2:
      return {
        kind: 'ResourceBinding',
        name: 'web-deployment',
        type: 'BindingScheduled',
        time,
        data: {
          trigger: 'ReplicasChanged',
          clusters: [
            { name: 'member1', replicas: 2 + (i % 3) },
            { name: 'member2', replicas: 3 },
          ],
          kubeEvent: { message: 'Divided' },
        },
      };
    default:
      return {
        kind: 'Deployment',
        name: 'web',
        type: 'ReplicasApplied',
        time,
        data: {
          fromReplicas: 3,
          requestedReplicas: 4 + (i % 2),
          toReplicas: 4 + (i % 2),
          via: 'nats',
          outcome: 'configured',
        },
      };
  }
}

function otherEvent(i: number): BenchEvent {
  const time = new Date(Date.UTC(2026, 0, 1) + i * 1000);
  if (i % 5 === 0)
    return {
      kind: 'ResourceBinding',
      name: 'web-deployment',
      type: 'WorkloadStatusReported',
      time,
      data: { clusterName: 'member1', status: { replicas: 3 } },
    };
  const n = i % 1000;
  return {
    kind: 'ResourceBinding',
    name: `app-${n}-deployment`,
    type: 'BindingScheduled',
    time,
    data: { trigger: 'ReplicasChanged', clusters: [{ name: 'member1', replicas: 3 }] },
  };
}

async function fill(bus: Bus): Promise<void> {
  const window: Promise<unknown>[] = [];
  const total = OWN + OTHERS;
  for (let i = 0; i < total; i++) {
    // the workload's events spread through the stream, not in one block
    const own = Math.floor(((i + 1) * OWN) / total) > Math.floor((i * OWN) / total);
    const e = own ? ownEvent(i) : otherEvent(i);
    const event = cloudEvent({ source: 'bench', namespace: 'default', ...e });
    window.push(bus.js.publish(`${bus.names.eventsRoot}.${e.kind}.default.${e.name}.${e.type}`, JSON.stringify(event)));
    if (window.length >= 1000) await Promise.all(window.splice(0));
  }
  await Promise.all(window);
}

/** `runs` answers of `explain replicas deploy/web`, sorted, in ms. */
async function timeAnswers(bus: Bus, runs: number): Promise<{ times: number[]; entries: number }> {
  const times: number[] = [];
  let entries = 0;
  for (let r = 0; r < runs; r++) {
    const t = performance.now();
    entries = (await replicaTrail(bus, client, web)).length;
    times.push(performance.now() - t);
  }
  return { times: times.sort((a, b) => a - b), entries };
}

const web = { kind: 'Deployment', namespace: 'default', name: 'web' };
const autoscalerList = [...autoscalers.EffectiveHorizontalPodAutoscaler!, ...autoscalers.CronFederatedHPA!];
const summary = (times: number[]) =>
  `median ${fmt(percentile(times, 50))} ms, p99 ${fmt(percentile(times, 99))} ms  (target <= 200 ms)`;

await withBenchBus('explain', async (bus) => {
  await fill(bus);
  // Before: no projection yet, every answer folds the workload's subjects from the stream.
  const before = await timeAnswers(bus, RUNS);
  // The status writer's projection of web's trail, built once, then kept up with a few new decisions.
  let t = performance.now();
  const built = await projectReplicaTrail(bus, web, trailAddresses(web, autoscalerList as AutoscalerLike[]));
  const buildMs = performance.now() - t;
  const window: Promise<unknown>[] = [];
  for (let i = 0; i < TAIL; i++) {
    const e = ownEvent(OWN + OTHERS + i);
    const event = cloudEvent({ source: 'bench', namespace: 'default', ...e });
    window.push(bus.js.publish(`${bus.names.eventsRoot}.${e.kind}.default.${e.name}.${e.type}`, JSON.stringify(event)));
  }
  await Promise.all(window);
  // After: the projection and the events after it (TAIL of them, not yet projected).
  const after = await timeAnswers(bus, RUNS);
  t = performance.now();
  const kept = await projectReplicaTrail(bus, web, trailAddresses(web, autoscalerList as AutoscalerLike[]));
  const keepMs = performance.now() - t;
  report(
    `explain replicas deploy/web (${OWN} of its events among ${OWN + OTHERS} in the stream, ${RUNS} answers each)`,
    [
      ['trail entries', `${fmt(before.entries, 0)} before, ${fmt(after.entries, 0)} after ${TAIL} more decisions`],
      ['from the stream (no projection)', summary(before.times)],
      ['projection + newer events', summary(after.times)],
      ['building the projection', `${fmt(buildMs)} ms (${fmt(built.folded, 0)} events folded)`],
      ['keeping it up', `${fmt(keepMs)} ms (${fmt(kept.folded, 0)} events folded)`],
    ],
  );
});
