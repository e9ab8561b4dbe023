// End to end: the built services as processes on a fresh prefix. A simulated cluster runs a workload whose CPU
// follows a daily sine; three days of its history are pre-seeded into the metrics stream (the member-agent keeps
// recording every minute), and the hpa-assigner's EffectiveHPA scales the template ahead of the coming peak.
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { connectBus, eventTypeOf, readEvents, type Bus } from '@flotilla/bus';
import { JetStreamHistory } from '@flotilla/metric-history';
import { eventually } from '@flotilla/testkit';
import { flotilla } from './support/cli.js';
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

const manifests = `
apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata: { name: sim1 }
spec:
  syncMode: Push
  simulation:
    allocatable: { cpu: "64", memory: 256Gi, pods: "500" }
    loads:
      - workload: { kind: Deployment, namespace: default, name: web }
        model: { type: sine, cores: 4, amplitude: 3, period: 24h, startTime: "${new Date(originS * 1000).toISOString()}" }
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: web, namespace: default }
spec:
  replicas: 10
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec: { containers: [{ name: web, image: nginx, resources: { requests: { cpu: "1", memory: 256Mi } } }] }
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: { name: web, namespace: default }
spec:
  resourceSelectors: [{ apiVersion: apps/v1, kind: Deployment, name: web }]
  placement: { clusterAffinity: { clusterNames: [sim1] } }
`;

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
    const history = new JetStreamHistory(bus);
    // the member-agent created the metrics stream at start; three days of minutes up to the previous one
    await eventually(
      () =>
        bus.jsm.streams.info(bus.names.metricsStream).then(
          () => true,
          () => undefined,
        ),
      20_000,
      'the metrics stream',
    );
    const seeded: Array<Promise<void>> = [];
    for (let t = nowS - 3 * 86_400; t < nowS; t += 60) {
      seeded.push(
        history.record({ namespace: 'default', kind: 'Deployment', name: 'web' }, [
          t,
          Math.round(usage(t) * 1000) / 1000,
        ]),
      );
    }
    await Promise.all(seeded);
    const applied = await flotilla(s.env, ['apply', '-f', '-'], manifests);
    expect(applied.code, applied.err).toBe(0);
    // the member cluster runs the 10 pods and reports their usage before the EffectiveHPA arrives
    await eventually(
      async () => {
        const r = await flotilla(s.env, ['get', 'rb', 'web-deployment', '-n', 'default', '-o', 'json']);
        const b = JSON.parse(r.out || '{}') as {
          status?: { aggregatedStatus?: Array<{ status?: { cpuUsageMilli?: number; readyReplicas?: number } }> };
        };
        const e = b.status?.aggregatedStatus?.[0]?.status;
        return e?.readyReplicas === 10 && (e.cpuUsageMilli ?? 0) > 0 ? true : undefined;
      },
      30_000,
      'the workload running with its usage reported',
    );
    const r = await flotilla(s.env, ['apply', '-f', '-'], ehpa);
    expect(r.code, r.err).toBe(0);

    const scaled = await eventually(
      async () => {
        for await (const d of readEvents(bus, { filter: { kind: 'EffectiveHorizontalPodAutoscaler', name: 'web' } })) {
          if (eventTypeOf(d.event) === 'EffectiveHPAScaled')
            return d.event.data as { source: string; toReplicas: number; statusPatch: Record<string, any> };
        }
        return undefined;
      },
      60_000,
      'the EffectiveHPA scaling the template',
    );
    // now ~6.4 cores on 10 pods of 1 core at 50 %: observed 13; the forecast's maximum within 3 h (~7 cores): 14
    expect(scaled.source).toBe('prediction');
    expect(scaled.toReplicas).toBe(14);
    expect(scaled.statusPatch.proposals.observed.replicas).toBe(13);

    const got = await eventually(
      async () => {
        const o = JSON.parse((await flotilla(s.env, ['get', 'ehpa', 'web', '-n', 'default', '-o', 'json'])).out) as {
          status?: Record<string, any>;
        };
        return o.status?.expectReplicas !== undefined ? o.status : undefined;
      },
      20_000,
      'the status folded by the status-writer',
    );
    expect(got.conditions).toContainEqual(expect.objectContaining({ type: 'PredictionReady', status: 'True' }));
    expect(got.proposals.prediction.replicas).toBeGreaterThanOrEqual(14);
    const described = await flotilla(s.env, ['describe', 'ehpa', 'web', '-n', 'default']);
    expect(described.out).toMatch(/Prediction window max: {2}\d+\.\d{3} over the next 10800s/);
    const template = JSON.parse(
      (await flotilla(s.env, ['get', 'deploy', 'web', '-n', 'default', '-o', 'json'])).out,
    ) as { spec: { replicas: number } };
    expect(template.spec.replicas).toBeGreaterThanOrEqual(14);
  }, 150_000);
});
