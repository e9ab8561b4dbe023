import { readEvents, eventTypeOf, publishEvent } from '@flotilla/bus';
import { ensureMetricsStream, JetStreamHistory } from '@flotilla/metric-history';
import { eventually } from '@flotilla/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EffectiveHpaController, type EffectiveHpaControllerOptions } from './effective-hpa-controller.js';
import { deployment, harness, memberEntry, silent, targetBinding, type Harness } from './testing/harness.js';

let h: Harness;
const controllers: EffectiveHpaController[] = [];

function controller(extra: Partial<EffectiveHpaControllerOptions> = {}): EffectiveHpaController {
  const c = new EffectiveHpaController({
    bus: h.bus,
    redis: h.redis,
    queuePrefix: h.prefix,
    queueName: 'effective-hpa',
    publish: (e) => publishEvent(h.bus, e),
    logger: silent,
    history: new JetStreamHistory(h.bus),
    ensureHistoryRetention: (ms) => ensureMetricsStream(h.bus.jsm, h.bus, ms),
    syncPeriodMs: 300,
    ...extra,
  });
  controllers.push(c);
  return c;
}

interface EhpaEvent {
  type: string;
  time: string;
  data: { statusPatch: Record<string, unknown>; source?: string; toReplicas?: number };
}
async function events(name: string): Promise<EhpaEvent[]> {
  const out: EhpaEvent[] = [];
  for await (const d of readEvents(h.bus, { filter: { kind: 'EffectiveHorizontalPodAutoscaler', name } })) {
    out.push({ type: eventTypeOf(d.event), time: d.event.time, data: d.event.data as EhpaEvent['data'] });
  }
  return out;
}
const replicasOf = async (name: string) =>
  ((await h.store.get({ kind: 'Deployment', namespace: 'default', name }))?.spec as { replicas?: number } | undefined)
    ?.replicas;

const ehpa = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: 'autoscaling.crane.io/v1alpha1',
  kind: 'EffectiveHorizontalPodAutoscaler',
  metadata: { name, namespace: 'default' },
  spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name }, ...spec },
});

beforeAll(async () => {
  h = await harness('ehpa');
  await h.cluster('member1', true);
});
afterAll(async () => {
  for (const c of controllers) await c.stop().catch(() => undefined);
  await h?.dispose();
});

describe('EffectiveHPA controller (real NATS and Redis)', () => {
  it('scales ahead of a predicted peak: the forecast from pre-seeded history wins over the observed load', async () => {
    const nowS = Math.floor(Date.now() / 60_000) * 60;
    // a daily sine (4 ± 3 cores) whose peak comes 2.5 h from now; 3 days at 1-minute resolution
    const usage = (t: number) => 4 + 3 * Math.sin((2 * Math.PI * (t - (nowS + 9000) + 21_600)) / 86_400);
    const history = new JetStreamHistory(h.bus);
    await ensureMetricsStream(h.bus.jsm, h.bus, 4 * 86_400_000);
    const web = { namespace: 'default', kind: 'Deployment', name: 'web' };
    const seeded: Array<Promise<void>> = [];
    for (let t = nowS - 3 * 86_400; t <= nowS; t += 60)
      seeded.push(history.record(web, [t, Math.round(usage(t) * 1000) / 1000]));
    await Promise.all(seeded);
    await h.apply({ ...deployment('web', 10), spec: { ...deployment('web', 10).spec, replicas: 10 } });
    await h.apply(targetBinding('web', [{ name: 'member1', replicas: 10 }]));
    const observed = Math.round(usage(nowS) * 1000);
    await h.reportStatus('ResourceBinding', 'default', 'web-deployment', {
      aggregatedStatus: [memberEntry('member1', 10, 10, 0, { cpuRequestMilli: 1000 })],
    });
    await h.reportUsage('default', 'web-deployment', { member1: observed });
    await h.apply(
      ehpa('web', {
        minReplicas: 2,
        maxReplicas: 20,
        metrics: [
          { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } },
        ],
        prediction: {
          predictionWindowSeconds: 10_800,
          predictionAlgorithm: { algorithmType: 'dsp', dsp: { sampleInterval: '60s', historyLength: '3d' } },
        },
      }),
    );
    const c = controller();
    await c.start();
    const scaled = await eventually(
      async () => (await events('web')).find((e) => e.type === 'EffectiveHPAScaled'),
      30_000,
      'a scaling decision',
    );
    // observed: ~6.4 cores over 10 pods of 1 core at 50 % -> 13; the window's maximum (~7.07 -> 7 cores) -> 14
    expect(scaled.data.source).toBe('prediction');
    expect(scaled.data.statusPatch).toMatchObject({
      proposals: { observed: { replicas: 13 }, prediction: { replicas: 14 } },
    });
    expect(scaled.data.statusPatch.conditions).toContainEqual(
      expect.objectContaining({ type: 'PredictionReady', status: 'True' }),
    );
    expect(scaled.data.toReplicas).toBe(14);
    await c.stop();
  }, 60_000);

  it('Preview changes nothing but status', async () => {
    await h.apply(deployment('preview', 3));
    await h.apply(
      ehpa('preview', {
        minReplicas: 1,
        maxReplicas: 10,
        scaleStrategy: 'Preview',
        crons: [{ name: 'always', timezone: 'UTC', start: '0 0 * * *', end: '0 0 * * *', targetReplicas: 7 }],
        behavior: { scaleUp: { policies: [{ type: 'Pods', value: 10, periodSeconds: 15 }] } },
      }),
    );
    const c = controller();
    await c.start();
    const seen = await eventually(
      async () => (await events('preview')).find((e) => e.data.statusPatch.expectReplicas === 7),
      10_000,
      'the preview in status',
    );
    expect(seen.type).toBe('EffectiveHPAObserved');
    expect(seen.data.statusPatch.winningSource).toBe('cron');
    // a sync pass later (over caches that hold every write before it): still nothing scaled
    await c.nextPass();
    expect(await replicasOf('preview')).toBe(3);
    expect((await events('preview')).filter((e) => e.type === 'EffectiveHPAScaled')).toEqual([]);
    await c.stop();
  }, 30_000);

  it('a cron window scales up within 1 s of its start and releases within 1 s of its end; a restart scales nothing twice', async () => {
    // Crons resolve to the minute, so the window is the next whole minute (at least 3 s away); the sync period is
    // long, so only the boundary timer can explain a change right at a boundary. BullMQ keeps real time.
    const startMs = Math.ceil((Date.now() + 3000) / 60_000) * 60_000;
    const start = new Date(startMs);
    const end = new Date(startMs + 60_000);
    const cron = (d: Date) => `${d.getUTCMinutes()} ${d.getUTCHours()} * * *`;
    await h.apply(deployment('burst', 2));
    await h.apply(
      ehpa('burst', {
        minReplicas: 2,
        maxReplicas: 10,
        crons: [{ name: 'burst', timezone: 'UTC', start: cron(start), end: cron(end), targetReplicas: 6 }],
        behavior: {
          scaleUp: { policies: [{ type: 'Pods', value: 10, periodSeconds: 15 }] },
          scaleDown: { stabilizationWindowSeconds: 0, policies: [{ type: 'Pods', value: 10, periodSeconds: 15 }] },
        },
      }),
    );
    const first = controller({ syncPeriodMs: 45_000 });
    await first.start();
    const up = await eventually(
      async () => (await events('burst')).find((e) => e.type === 'EffectiveHPAScaled'),
      70_000,
      'the scale-up at the window start',
    );
    expect(up.data).toMatchObject({ source: 'cron', toReplicas: 6 });
    expect(Date.parse(up.time) - startMs).toBeGreaterThanOrEqual(0);
    expect(Date.parse(up.time) - startMs).toBeLessThan(1000);
    expect(await replicasOf('burst')).toBe(6);

    // a new leader mid-window: it arms the same end boundary (same job id) and writes nothing new
    await first.stop();
    const second = controller({ syncPeriodMs: 45_000 });
    await second.start();
    // the start's pass over every EHPA has ended (its sync period is 45 s: no other pass comes meanwhile)
    await second.idle();
    expect((await events('burst')).filter((e) => e.type === 'EffectiveHPAScaled')).toHaveLength(1);

    const down = await eventually(
      async () => (await events('burst')).filter((e) => e.type === 'EffectiveHPAScaled')[1],
      70_000,
      'the release at the window end',
    );
    expect(down.data).toMatchObject({ source: 'cron', toReplicas: 2 });
    expect(Date.parse(down.time) - end.getTime()).toBeGreaterThanOrEqual(0);
    expect(Date.parse(down.time) - end.getTime()).toBeLessThan(1000);
    expect(await replicasOf('burst')).toBe(2);
    await second.stop();
  }, 160_000);
});
