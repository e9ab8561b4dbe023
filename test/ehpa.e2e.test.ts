// End to end: the built services as processes on a fresh prefix. A simulated cluster runs a workload whose CPU
// follows a daily sine; three days of its history are pre-seeded into the metrics stream (the member-agent keeps
// recording every minute), and the hpa-assigner's EffectiveHPA scales the template ahead of the coming peak.
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { connectBus, eventTypeOf, readEvents, type Bus } from '@flotilla/bus';
import { eventually } from '@flotilla/testkit';
import { flotilla } from './support/cli.js';
import { seedHistory, sineWorkloadManifests, waitForWorkloadReported } from './support/sim-workload.js';
import { startSuite, type RunningSuite } from './support/suite.js';

let s: RunningSuite;
let bus: Bus;
let setupError: unknown;

const nowS = Math.floor(Date.now() / 60_000) * 60;
/** The sine's phase origin: 6 h before its peak, which comes 2.5 h from now. */
const originS = nowS + 9000 - 21_600;
const usage = (t: number) => 4 + 3 * Math.sin((2 * Math.PI * (t - originS)) / 86_400);

beforeAll(async () => {
  try {
    s = await startSuite(['gateway', 'status-writer', 'member-agent', 'affinity-scheduler', 'hpa-assigner'], {
      SIM_TICK_MS: '200',
      SIM_HPA_SYNC_MS: '1000',
      EHPA_SYNC_PERIOD_MS: '1000',
    });
    bus = await connectBus({ url: s.env.NATS_URL!, prefix: s.env.FLOTILLA_PREFIX! });
  } catch (err) {
    setupError = err;
  }
}, 90_000);

afterAll(async () => {
  await bus?.close();
  await s?.stop();
}, 60_000);

function setUp(): void {
  if (setupError) throw setupError;
  onTestFailed(() => console.log(`the services' last output:\n${s?.logs.slice(-40).join('\n')}`));
}

const ehpa = `
apiVersion: autoscaling.crane.io/v1alpha1
kind: EffectiveHorizontalPodAutoscaler
metadata: { name: web, namespace: default }
spec:
  scaleTargetRef: { apiVersion: apps/v1, kind: Deployment, name: web }
  minReplicas: 2
  maxReplicas: 20
  metrics:
    - type: Resource
      resource: { name: cpu, target: { type: Utilization, averageUtilization: 50 } }
  prediction:
    predictionWindowSeconds: 10800
    predictionAlgorithm: { algorithmType: dsp, dsp: { sampleInterval: 60s, historyLength: 3d } }
`;

describe('EffectiveHPA end to end', () => {
  it('scales the template ahead of the predicted peak, with the winning source in its event and status', async () => {
    setUp();
    // three days of minutes up to the previous one
    await seedHistory(bus, nowS - 3 * 86_400, nowS, usage);
    const applied = await flotilla(
      s.env,
      ['apply', '-f', '-'],
      sineWorkloadManifests({ cores: 4, amplitude: 3, originS, replicas: 10 }),
    );
    expect(applied.code, applied.err).toBe(0);
    // the member cluster runs the 10 pods and reports their usage before the EffectiveHPA arrives
    await waitForWorkloadReported(s.env, bus, 10);
    const r = await flotilla(s.env, ['apply', '-f', '-'], ehpa);
    expect(r.code, r.err).toBe(0);

    const scaled = await eventually(
      async () => {
        for await (const d of readEvents(bus, { filter: { kind: 'EffectiveHorizontalPodAutoscaler', name: 'web' } })) {
          if (eventTypeOf(d.event) === 'EffectiveHPAScaled')
            return d.event.data as { source: string; toReplicas: number; statusPatch: Record<string, unknown> };
        }
        return undefined;
      },
      60_000,
      'the EffectiveHPA scaling the template',
    );
    // now ~6.4 cores on 10 pods of 1 core at 50 %: observed 13; the forecast's maximum within 3 h (~7 cores): 14
    expect(scaled.source).toBe('prediction');
    expect(scaled.toReplicas).toBe(14);
    expect(scaled.statusPatch).toMatchObject({ proposals: { observed: { replicas: 13 } } });

    const got = await eventually(
      async () => {
        const o = JSON.parse((await flotilla(s.env, ['get', 'ehpa', 'web', '-n', 'default', '-o', 'json'])).out) as {
          status?: Record<string, unknown>;
        };
        return o.status?.expectReplicas !== undefined ? o.status : undefined;
      },
      20_000,
      'the status folded by the status-writer',
    );
    expect(got.conditions).toContainEqual(expect.objectContaining({ type: 'PredictionReady', status: 'True' }));
    expect((got.proposals as { prediction: { replicas: number } }).prediction.replicas).toBeGreaterThanOrEqual(14);
    const described = await flotilla(s.env, ['describe', 'ehpa', 'web', '-n', 'default']);
    expect(described.out).toMatch(/Prediction window max: {2}\d+\.\d{3} over the next 10800s/);

    // The forecast error: what the fit of 3 h ago (replayed from the history: this leader has no earlier fit) forecast
    // for the last 3 h against the samples of the same sine, in the status, in describe and on /metrics.
    const error = got.forecastError as { mape: number; windowSeconds: number; samples: number };
    expect(error.windowSeconds).toBe(10_800);
    expect(error.samples).toBeGreaterThanOrEqual(150);
    expect(error.mape).toBeGreaterThanOrEqual(0);
    expect(error.mape).toBeLessThan(0.05);
    const errorLine = /Forecast error: {9}(\d+\.\d) % MAPE over the last 10800s \((\d+) samples\)/.exec(described.out);
    expect(errorLine, described.out).not.toBeNull();
    const gauge = await eventually(
      async () => {
        const p = s.suite.processes.find((x) => x.name === 'hpa-assigner')!;
        const text = await (await fetch(`http://127.0.0.1:${p.httpPort}/metrics`)).text();
        const m = /^flotilla_ehpa_forecast_error_ratio\{([^}]*)\} (\S+)$/m.exec(text);
        return m && m[1]!.includes('namespace="default"') && m[1]!.includes('name="web"') ? Number(m[2]) : undefined;
      },
      20_000,
      "the hpa-assigner's forecast error gauge",
    );
    // the status rounds to 0.1 %; the gauge may have moved on by a sample since
    expect(gauge).toBeGreaterThanOrEqual(0);
    expect(Math.abs(gauge - error.mape)).toBeLessThan(0.01);
    const template = JSON.parse(
      (await flotilla(s.env, ['get', 'deploy', 'web', '-n', 'default', '-o', 'json'])).out,
    ) as { spec: { replicas: number } };
    expect(template.spec.replicas).toBeGreaterThanOrEqual(14);
  }, 150_000);
});
