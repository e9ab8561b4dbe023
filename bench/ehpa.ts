// EffectiveHPA refresh at scale (issue: EffectiveHPA): 1,000 EffectiveHPAs (cpu metric, DSP prediction over 3 days
// of 1-minute history, half of them with a cron window) run by the real EffectiveHpaController against real NATS and
// Redis. The history is served from memory (one synthetic daily series per workload), so the figures are the
// controller's: the cold round includes every DSP fit (as after a leader change), a warm round reuses the fits (as
// every sync period between the 12-hourly refits). Targets: a round of 1,000 within one sample interval (60 s) with
// CPU to spare; ≤ 150 MB resident.
import { admit } from '@flotilla/api';
import { publishEvent } from '@flotilla/bus';
import { syntheticDailyTrace } from '@flotilla/ehpa';
import { EffectiveHpaController } from '@flotilla/hpa-assigner';
import type { HistoryRange, MetricHistorySource, Sample, WorkloadRef } from '@flotilla/metric-history';
import { closeRedis, createRedis } from '@flotilla/runtime';
import { createDelayedQueue } from '@flotilla/runtime/delayed-jobs';
import { ObjectStore, type StoredObject } from '@flotilla/store';
import { REDIS_URL } from '@flotilla/testkit';
import { boundedRun, fmt, report, rssMb, withBenchBus } from './support.js';

const COUNT = Number(process.env.BENCH_EHPAS ?? 1000);
const SERIES = 8;
const nowS = Math.floor(Date.now() / 60_000) * 60;
const series = Array.from({ length: SERIES }, (_, i) => syntheticDailyTrace(nowS - 3 * 86_400, 3, 60, i + 1));

/** Each workload reads one of a few synthetic daily series, offset so that no two fits are identical. */
class MemoryHistory implements MetricHistorySource {
  async range(w: WorkloadRef, r: HistoryRange): Promise<Sample[]> {
    const i = Number(/(\d+)$/.exec(w.name)?.[1] ?? 0);
    const base = series[i % SERIES]!;
    const startS = r.start.getTime() / 1000;
    const endS = r.end.getTime() / 1000;
    return base.filter(([t]) => t >= startS && t <= endS).map(([t, v]) => [t, v * (1 + (i % 17) / 100)] as Sample);
  }
}

const logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

await withBenchBus('ehpa', async (bus) => {
  const store = new ObjectStore(bus);
  const redis = createRedis(REDIS_URL);
  const prefix = bus.names.prefix;
  try {
    await boundedRun(COUNT, 32, async (i) => {
      const name = `web-${i}`;
      await store.apply(
        admit({
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name, namespace: 'default' },
          spec: {
            replicas: 4,
            selector: { matchLabels: { app: name } },
            template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'x' }] } },
          },
        }) as StoredObject,
      );
      const hour = i % 24;
      await store.apply(
        admit({
          apiVersion: 'autoscaling.crane.io/v1alpha1',
          kind: 'EffectiveHorizontalPodAutoscaler',
          metadata: { name, namespace: 'default' },
          spec: {
            scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name },
            minReplicas: 2,
            maxReplicas: 40,
            metrics: [
              { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } },
            ],
            prediction: {
              predictionWindowSeconds: 3600,
              predictionAlgorithm: { algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: '3d' } },
            },
            ...(i % 2 === 0
              ? {
                  crons: [
                    {
                      name: 'peak',
                      timezone: 'UTC',
                      start: `0 ${hour} * * *`,
                      end: `30 ${hour} * * *`,
                      targetReplicas: 8,
                    },
                  ],
                }
              : {}),
          },
        }) as StoredObject,
      );
    });

    global.gc?.();
    const rssBefore = rssMb();
    const heapBefore = process.memoryUsage().heapUsed / 2 ** 20;
    const controller = new EffectiveHpaController({
      bus,
      redis,
      queuePrefix: prefix,
      queueName: 'effective-hpa-bench',
      publish: (e) => publishEvent(bus, e),
      logger,
      history: new MemoryHistory(),
      // a period longer than the benchmark: every round below is one the benchmark asks for
      syncPeriodMs: 3_600_000,
    });
    const round = async (start: () => Promise<void>) => {
      const cpu = process.cpuUsage();
      const t = performance.now();
      await start();
      await controller.idle();
      const wall = performance.now() - t;
      const used = process.cpuUsage(cpu);
      return { wall, cpu: (used.user + used.system) / 1000 };
    };
    const cold = await round(() => controller.start());
    const rounds: Array<{ wall: number; cpu: number }> = [];
    for (let r = 0; r < 3; r++) {
      // the sync timer's work, asked for at once: every key, each evaluated regardless of its last sync
      rounds.push(await round(async () => controller.refreshAll()));
    }
    global.gc?.();
    const rss = rssMb();
    const heap = process.memoryUsage().heapUsed / 2 ** 20;
    await controller.stop();
    const warm = rounds.reduce((a, b) => (a.wall < b.wall ? a : b));
    report(`EffectiveHPA controller, ${COUNT} EffectiveHPAs (3 d of 1-minute history each, ${COUNT / 2} with a cron)`, [
      [
        'cold round (every DSP fit)',
        `${fmt(cold.wall / 1000, 2)} s wall, ${fmt(cold.cpu / 1000, 2)} s CPU (${fmt(cold.cpu / COUNT, 2)} ms per EffectiveHPA)`,
      ],
      [
        'warm round (fits reused)',
        `${fmt(warm.wall / 1000, 2)} s wall, ${fmt(warm.cpu / 1000, 2)} s CPU (${fmt(warm.cpu / COUNT, 2)} ms per EffectiveHPA)`,
      ],
      ['share of a 60 s interval (cold, CPU)', `${fmt((100 * cold.cpu) / 60_000, 1)} %`],
      ['resident memory', `${fmt(rss)} MB (${fmt(rssBefore)} MB before the controller started)`],
      [
        'V8 heap in use after GC',
        `${fmt(heap)} MB (${fmt(heapBefore)} MB before: the controller holds ${fmt(heap - heapBefore)} MB)`,
      ],
    ]);
    const queue = createDelayedQueue({ name: 'effective-hpa-bench', prefix, connection: redis });
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
    const left = await redis.keys(`${prefix}:*`);
    if (left.length) await redis.del(...left);
  } finally {
    await closeRedis(redis);
  }
});
