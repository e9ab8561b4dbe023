import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Bus, getJson, readEvents } from '@flotilla/bus';
import { testBus } from '@flotilla/bus/testing';
import {
  ensureMetricsStream,
  JetStreamHistory,
  PrometheusSource,
  SIM_WORKLOAD_CPU_QUERY,
} from '@flotilla/metric-history';
import { systemClock } from '@flotilla/runtime';
import { Informers, type MemberUsage, memberUsageKey, ObjectStore } from '@flotilla/store';
import { eventually, metricSum, PrivatePrometheus } from '@flotilla/testkit';
import { Registry } from 'prom-client';
import type { AgentLogger } from '../agent-projections.js';
import { WorkloadUsageGauge } from '../usage-metrics.js';
import { UsageRecorder } from '../usage-recorder.js';
import { SimulatedFleet } from './simulated-fleet.js';

// usage.int.test.ts's cases, of the simulated clusters as they now run: a SimulatedFleet (each simulated cluster's
// metrics-server read by its kube driver), scraped by a real Prometheus.

const quiet: AgentLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };
const WEB = { namespace: 'default', kind: 'Deployment', name: 'web' };

let bus: Bus & { dispose(): Promise<void> };
let server: Server;
let prometheus: PrivatePrometheus;
const registry = new Registry();
const gauge = new WorkloadUsageGauge(registry);

const simulatedCluster = (name: string, cores: number) => ({
  apiVersion: 'cluster.karmada.io/v1alpha1',
  kind: 'Cluster',
  metadata: { name },
  spec: {
    syncMode: 'Push',
    simulation: {
      allocatable: { cpu: '8', memory: '32Gi', pods: '110' },
      loads: [
        { workload: { kind: 'Deployment', namespace: 'default', name: 'web' }, model: { type: 'constant', cores } },
      ],
    },
  },
});

/** A fleet recording usage every `intervalMs`, one recorder per cluster as the member-agent has it. */
const fleet = (intervalMs: number) =>
  new SimulatedFleet({
    bus,
    clock: systemClock,
    logger: quiet,
    informers: new Informers({ bus }),
    tickMs: 100,
    registry: new Registry(),
    usageGauge: gauge,
    usageRecorder: (cluster) => new UsageRecorder(new JetStreamHistory(bus), intervalMs, { source: cluster }),
  });

beforeAll(async () => {
  bus = await testBus('sim-fleet-usage');
  await ensureMetricsStream(bus.jsm, bus, 3_600_000);
  const store = new ObjectStore(bus);
  await store.apply(simulatedCluster('m1', 2.5));
  await store.apply(simulatedCluster('m2', 1));
  const labels = { app: 'web' };
  await store.apply({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      replicas: 4,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          containers: [{ name: 'web', image: 'web', resources: { requests: { cpu: '500m', memory: '512Mi' } } }],
        },
      },
    },
  });
  await store.apply({
    apiVersion: 'work.karmada.io/v1alpha2',
    kind: 'ResourceBinding',
    metadata: { name: 'web-deployment', namespace: 'default' },
    spec: {
      resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web', uid: 'u-1' },
      replicas: 4,
      replicaRequirements: { resourceRequest: { cpu: '500m', memory: '512Mi' } },
      clusters: [
        { name: 'm1', replicas: 2 },
        { name: 'm2', replicas: 2 },
      ],
    },
  });
  server = createServer((_req, res) => {
    void registry.metrics().then((body) => {
      res.setHeader('content-type', registry.contentType);
      res.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  prometheus = new PrivatePrometheus([`127.0.0.1:${(server.address() as { port: number }).port}`], 1);
  await prometheus.start();
}, 30_000);

afterAll(async () => {
  await prometheus?.stop();
  await new Promise((r) => server?.close(r));
  await bus?.dispose();
});

describe('the simulated fleet as a source of EffectiveHPA history', () => {
  it("exposes each workload's usage per cluster on /metrics; a real Prometheus answers the sim query summed", async () => {
    const f = fleet(1000);
    await f.start();
    try {
      await eventually(
        async () => {
          const text = await registry.metrics();
          return text.includes(
            'flotilla_sim_workload_cpu_usage_cores{cluster="m1",namespace="default",kind="Deployment",workload="web"} 2.5',
          ) &&
            text.includes(
              'flotilla_sim_workload_cpu_usage_cores{cluster="m2",namespace="default",kind="Deployment",workload="web"} 1',
            )
            ? true
            : undefined;
        },
        10_000,
        "each cluster's usage of web on /metrics",
      );
      const source = new PrometheusSource({ url: prometheus.url, queryTemplate: SIM_WORKLOAD_CPU_QUERY });
      const start = new Date();
      const samples = await eventually(
        async () => {
          const s = await source.range(WEB, { start, end: new Date(), stepSeconds: 1 });
          return s.length >= 3 ? s : undefined;
        },
        20_000,
        'three samples scraped from the fleet',
      );
      expect(samples.every(([, v]) => v === 3.5)).toBe(true);
    } finally {
      await f.stop();
    }
  });

  it("keeps each cluster's latest usage of the binding in the usage bucket, written once while it does not move", async () => {
    const ref = { kind: 'ResourceBinding', namespace: 'default', name: 'web-deployment' };
    const f = fleet(60_000);
    await f.start();
    try {
      const read = async (cluster: string) => getJson<MemberUsage>(bus.usage, memberUsageKey(ref, cluster));
      const first = await eventually(
        async () => {
          const [m1, m2] = await Promise.all([read('m1'), read('m2')]);
          return m1 && m2 ? { m1, m2 } : undefined;
        },
        10_000,
        'usage of both clusters',
      );
      expect(first.m1.value.cpuUsageMilli).toBe(2500);
      expect(first.m2.value.cpuUsageMilli).toBe(1000);
      // Ten more whole passes of each cluster with the same usage write nothing.
      for (let i = 0; i < 10; i++) await Promise.all(['m1', 'm2'].map((c) => f.driver(c)!.reconcileNow()));
      expect((await read('m1'))?.revision).toBe(first.m1.revision);
      expect((await read('m2'))?.revision).toBe(first.m2.revision);
      // and none of the fleet's status reports carries usage
      let reports = 0;
      for await (const d of readEvents(bus, { filter: { kind: 'ResourceBinding', name: 'web-deployment' } })) {
        expect(JSON.stringify(d.event.data)).not.toContain('cpuUsageMilli');
        reports++;
      }
      expect(reports).toBeGreaterThan(0);
    } finally {
      await f.stop();
    }
  });

  it('reads the usage again every metrics period without looking at the binding again', async () => {
    const ref = { kind: 'ResourceBinding', namespace: 'default', name: 'web-deployment' };
    const own = new Registry();
    const f = new SimulatedFleet({
      bus,
      clock: systemClock,
      logger: quiet,
      informers: new Informers({ bus }),
      tickMs: 100,
      hpaSyncPeriodMs: 200,
      registry: own,
    });
    const looks = (pass?: string) =>
      metricSum(own, 'flotilla_kube_member_binding_looks_total', pass === undefined ? {} : { pass });
    await f.start();
    try {
      const read = async (cluster: string) => getJson<MemberUsage>(bus.usage, memberUsageKey(ref, cluster));
      await eventually(
        async () => ((await read('m1'))?.value.cpuUsageMilli === 2500 ? true : undefined),
        10_000,
        "m1's usage",
      );
      await Promise.all(['m1', 'm2'].map((c) => f.driver(c)!.idle()));
      const looked = (await looks()) - (await looks('usage'));
      const usageReads = await looks('usage');
      // Three metrics periods of both clusters: the binding's usage read six times more, its binding looked at no more.
      await eventually(
        async () => ((await looks('usage')) >= usageReads + 6 ? true : undefined),
        10_000,
        'three metrics periods',
      );
      expect((await looks()) - (await looks('usage'))).toBe(looked);
      expect((await read('m1'))?.value.cpuUsageMilli).toBe(2500);
      expect((await read('m2'))?.value.cpuUsageMilli).toBe(1000);
    } finally {
      await f.stop();
    }
  });

  it('records the summed usage into the stream once per interval, and a restarted fleet repeats no interval', async () => {
    const history = new JetStreamHistory(bus);
    const start = new Date();
    const recorded = () =>
      history.range(WEB, { start: new Date(start.getTime() - 1000), end: new Date(), stepSeconds: 1 });
    const intervals = (n: number, what: string) =>
      eventually(async () => ((await recorded()).length >= n ? true : undefined), 10_000, what);
    const first = fleet(1000);
    await first.start();
    await intervals(2, 'two intervals recorded by the first leader');
    await first.stop();
    // a new leader in the same interval writes the same timestamp; the stream drops the repeat
    const second = fleet(1000);
    const before = (await recorded()).length;
    await second.start();
    await intervals(before + 1, 'an interval recorded by the second leader');
    await second.stop();
    const samples = await recorded();
    expect(samples.length).toBeGreaterThanOrEqual(3);
    const times = samples.map(([t]) => t);
    expect(new Set(times).size).toBe(times.length);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBe(1);
    expect(samples.every(([t, v]) => Number.isInteger(t) && v === 3.5)).toBe(true);
  });
});
