import { describe, expect, it, vi } from 'vitest';
import type { RawObject } from '@flotilla/kube-client';
import { isSimulatedClusterDown } from './sim-objects.js';
import { SimulatedMember } from './simulated-member.js';
import { parseSimulation } from './simulation-spec.js';

/** A Deployment of `replicas` pods of `cpu` cores and 1 GiB each. */
const deployment = (name: string, replicas: number, cpu = '1') => {
  const pod = { containers: [{ name: 'c', resources: { requests: { cpu, memory: '1Gi' } } }] };
  const spec = {
    replicas,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: pod },
  };
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: 'default' }, spec };
};

const hpa = (target: string, min: number, max: number) => ({
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: { name: target, namespace: 'default' },
  spec: {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: target },
    minReplicas: min,
    maxReplicas: max,
    metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }],
  },
});

function member(simulation: Record<string, unknown>, nowMs = Date.parse('2026-01-01T00:00:00Z')) {
  const clock = { ms: nowMs, now: () => new Date(clock.ms) };
  const sim = new SimulatedMember({ cluster: 'm1', clock, hpaSyncPeriodMs: 15_000 });
  sim.configure(parseSimulation(simulation));
  return { sim, clock };
}

const pods = (sim: SimulatedMember) =>
  [...sim.objects.list('v1', 'Pod')].map((p) => ({
    name: p.metadata?.name,
    phase: (p.status as { phase: string }).phase,
  }));
const statusOf = (o: RawObject) => o.status as { replicas: number; readyReplicas: number; availableReplicas: number };

describe('SimulatedMember', () => {
  it('places pods by their requests into the node, leaves the rest Pending, and frees room when a workload goes', async () => {
    const { sim } = member({ allocatable: { cpu: '4', memory: '64Gi', pods: '110' } });
    const a = await sim.apply(deployment('a', 3));
    expect(statusOf(a)).toMatchObject({ replicas: 3, readyReplicas: 3, availableReplicas: 3 });
    const b = await sim.apply(deployment('b', 3));
    // 4 cores: a's 3 pods and one of b's run, two of b's wait
    expect(statusOf(b)).toMatchObject({ replicas: 3, readyReplicas: 1 });
    expect(
      pods(sim)
        .filter((p) => p.phase === 'Pending')
        .map((p) => p.name),
    ).toEqual(['b-deployment-1', 'b-deployment-2']);
    await sim.remove({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'a' });
    expect(statusOf(sim.objects.get('apps/v1', 'Deployment', 'default', 'b')!)).toMatchObject({ readyReplicas: 3 });
    expect(pods(sim).every((p) => p.phase === 'Running')).toBe(true);
  });

  it('places as it places every workload in order, whether only the changed workloads or all are placed', async () => {
    // The kubelet places only the workloads that changed while every pod fits, and every workload otherwise: the
    // outcome is always the namespace/name-order placement (capacity.ts), which this reference computes alone.
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const { sim } = member({ allocatable: { cpu: '16', memory: '64Gi', pods: '20' } });
    // Which way each pass went (the test must see both).
    const changedOnly = vi.spyOn(sim as unknown as { changedIfAllFit(): unknown[] | undefined }, 'changedIfAllFit');
    const want = new Map<string, { replicas: number; cpu: number }>();
    for (let step = 0; step < 400; step++) {
      const name = `w${random(7)}`;
      if (random(5) === 0) {
        await sim.remove({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name });
        want.delete(name);
      } else {
        const replicas = random(5);
        const cpu = 1 + random(3);
        await sim.apply(deployment(name, replicas, String(cpu)));
        want.set(name, { replicas, cpu });
      }
      const left = { cpu: 16, pods: 20 };
      for (const n of [...want.keys()].sort()) {
        const w = want.get(n)!;
        const running = Math.max(0, Math.min(w.replicas, left.pods, Math.floor(left.cpu / w.cpu)));
        left.pods -= running;
        left.cpu -= running * w.cpu;
        const status = statusOf(sim.objects.get('apps/v1', 'Deployment', 'default', n)!);
        expect({ step, n, ready: status.readyReplicas }).toEqual({ step, n, ready: running });
      }
    }
    const placedChangedOnly = changedOnly.mock.results.filter((r) => r.value !== undefined).length;
    expect(placedChangedOnly).toBeGreaterThan(20);
    expect(placedChangedOnly).toBeLessThan(380);
  });

  it('a burst of workloads into a node with room for all costs the kubelet a look at each, not at every one each time', async () => {
    const { sim } = member({ allocatable: { cpu: '1000', memory: '4000Gi', pods: '10000' } });
    for (let i = 0; i < 200; i++) await sim.apply(deployment(`w${String(i).padStart(3, '0')}`, 2));
    // One look at each workload as it came (20,100 when each pass placed every workload of the node).
    expect(sim.workloadsLooked).toBe(200);
    // A node too small for the next one: every workload is placed again, in order, and the newest waits.
    await sim.apply(deployment('zzz', 10_000));
    expect(sim.workloadsLooked).toBe(200 + 201 + 1);
    expect(statusOf(sim.objects.get('apps/v1', 'Deployment', 'default', 'zzz')!).readyReplicas).toBe(600);
  });

  it('refuses an object in a namespace that does not exist, as an API server does', async () => {
    const { sim } = member({ allocatable: { cpu: '4', memory: '8Gi', pods: '10' } });
    const other = { ...deployment('a', 1), metadata: { name: 'a', namespace: 'shop' } };
    await expect(sim.apply(other)).rejects.toThrow('namespaces "shop" not found');
    await sim.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } });
    await expect(sim.apply(other)).resolves.toBeDefined();
  });

  it('cluster fail takes the API server away: requests fail, open watches end; recover brings it back', async () => {
    const { sim } = member({ allocatable: { cpu: '4', memory: '8Gi', pods: '10' } });
    const watch = sim.objects.listWatch('v1', 'Pod');
    let ended: unknown;
    await watch.watch(
      { resourceVersion: '0' },
      () => undefined,
      (err) => (ended = err),
    );
    sim.configure(parseSimulation({ allocatable: { cpu: '4', memory: '8Gi', pods: '10' }, failed: true }));
    expect(isSimulatedClusterDown(ended)).toBe(true);
    await expect(sim.readyz()).rejects.toSatisfy(isSimulatedClusterDown);
    await expect(sim.apply(deployment('a', 1))).rejects.toSatisfy(isSimulatedClusterDown);
    sim.configure(parseSimulation({ allocatable: { cpu: '4', memory: '8Gi', pods: '10' } }));
    expect(await sim.readyz()).toBe(true);
  });

  it('runs an applied HPA against the load model, as metrics-server and the HPA controller would, every sync period', async () => {
    const loads = [{ workload: { kind: 'Deployment', name: 'web' }, model: { type: 'constant', cores: 3 } }];
    const { sim, clock } = member({ allocatable: { cpu: '64', memory: '256Gi', pods: '110' }, loads });
    await sim.apply(deployment('web', 2));
    await sim.apply(hpa('web', 1, 10));
    // 3 cores over 2 pods of 1 core against 50 %: 6 pods
    sim.syncHpas();
    const web = () => sim.objects.get('apps/v1', 'Deployment', 'default', 'web')!;
    expect((web().spec as { replicas: number }).replicas).toBe(4); // at most max(2 x 2, 4) in one pass
    expect(sim.objects.get('autoscaling/v2', 'HorizontalPodAutoscaler', 'default', 'web')!.status).toMatchObject({
      desiredReplicas: 4,
      currentMetrics: [{ resource: { name: 'cpu', current: { averageUtilization: 150 } } }],
    });
    // not again before the sync period ran out
    sim.syncHpas();
    expect((web().spec as { replicas: number }).replicas).toBe(4);
    clock.ms += 15_000;
    sim.syncHpas();
    expect((web().spec as { replicas: number }).replicas).toBe(6);
    const cpu = await sim.podCpuMilli('default');
    expect([...cpu.values()].reduce((a, b) => a + b, 0)).toBe(3000);
    expect(cpu.size).toBe(6);
  });

  it('an apply without spec.replicas keeps the replicas the HPA set', async () => {
    const { sim } = member({ allocatable: { cpu: '64', memory: '256Gi', pods: '110' } });
    await sim.apply(deployment('web', 5));
    const { replicas: _r, ...spec } = deployment('web', 5).spec;
    const after = await sim.apply({ ...deployment('web', 5), spec });
    expect((after.spec as { replicas: number }).replicas).toBe(5);
  });

  it("reports the simulation's foreign HPAs as objects Flotilla did not create", () => {
    const { sim } = member({
      allocatable: { cpu: '4', memory: '8Gi', pods: '10' },
      foreignHorizontalPodAutoscalers: [{ name: 'theirs', scaleTargetRef: { kind: 'Deployment', name: 'web' } }],
    });
    const theirs = sim.objects.get('autoscaling/v2', 'HorizontalPodAutoscaler', 'default', 'theirs');
    expect(theirs?.metadata?.annotations).toBeUndefined();
    expect(theirs?.spec).toMatchObject({ scaleTargetRef: { kind: 'Deployment', name: 'web' } });
  });
});

describe('SimulatedMember: the HPA controller', () => {
  const loads = (model: Record<string, unknown>) => [{ workload: { kind: 'Deployment', name: 'web' }, model }];
  const replicasOf = (sim: SimulatedMember) =>
    (sim.objects.get('apps/v1', 'Deployment', 'default', 'web')!.spec as { replicas: number }).replicas;
  /** Runs the HPA controller `n` times, one sync period (15 s) apart, the clock ending one period after the last. */
  const syncs = (m: ReturnType<typeof member>, n: number) => {
    for (let i = 0; i < n; i++) {
      m.sim.syncHpas();
      m.clock.ms += 15_000;
    }
  };

  it('follows a step load and holds the scale-down for the stabilization window', async () => {
    // 2 cores on 2 pods of 500m at 50% is 200%: 8 pods, in two syncs; after 60 s the load drops to 0.5 core.
    const m = member({
      allocatable: { cpu: '64', memory: '256Gi', pods: '110' },
      loads: loads({ type: 'step', cores: 2, stepCores: 0.5, stepAfter: '60s' }),
    });
    await m.sim.apply(deployment('web', 2, '500m'));
    await m.sim.apply(hpa('web', 1, 10));
    syncs(m, 4); // 0 to 45 s
    expect(replicasOf(m.sim)).toBe(8);
    syncs(m, 17); // 60 to 300 s
    expect(replicasOf(m.sim)).toBe(8); // the 5-minute window still holds the 8
    syncs(m, 8); // 315 to 420 s
    expect(replicasOf(m.sim)).toBe(2); // 0.5 core / (500m × 50%)
  });

  it('damps a scale-up while pods are Pending for lack of room: they count as using nothing', async () => {
    // 2 cores hold 4 pods of 500m; the load of 4 cores on them reads 200 %, but over all the pods asked for it is
    // 4 cores / (n × 500m): the HPA settles at 16, not at its max of 20.
    const m = member({
      allocatable: { cpu: '2', memory: '64Gi', pods: '110' },
      loads: loads({ type: 'constant', cores: 4 }),
    });
    await m.sim.apply(deployment('web', 2, '500m'));
    await m.sim.apply(hpa('web', 1, 20));
    syncs(m, 11);
    const web = m.sim.objects.get('apps/v1', 'Deployment', 'default', 'web')!;
    expect(statusOf(web).readyReplicas).toBe(4);
    expect(pods(m.sim).filter((p) => p.phase === 'Pending').length).toBe(replicasOf(m.sim) - 4);
    expect(replicasOf(m.sim)).toBe(16);
  });

  it('without a load model the HPA has no metric and leaves the replicas alone', async () => {
    const m = member({ allocatable: { cpu: '64', memory: '256Gi', pods: '110' } });
    await m.sim.apply(deployment('web', 2, '500m'));
    await m.sim.apply(hpa('web', 1, 10));
    syncs(m, 6);
    expect(replicasOf(m.sim)).toBe(2);
  });

  it('lifts replicas below minReplicas on its first sync', async () => {
    const m = member({ allocatable: { cpu: '64', memory: '256Gi', pods: '110' } });
    await m.sim.apply(deployment('web', 2, '500m'));
    await m.sim.apply(hpa('web', 3, 10));
    m.sim.syncHpas();
    expect(replicasOf(m.sim)).toBe(3);
  });

  it('freezes while the API server is away (the controller-manager with it), and goes on once it is back', async () => {
    const spec = {
      allocatable: { cpu: '64', memory: '256Gi', pods: '110' },
      loads: loads({ type: 'constant', cores: 4 }),
    };
    const m = member(spec);
    await m.sim.apply(deployment('web', 2, '500m'));
    await m.sim.apply(hpa('web', 1, 10));
    m.sim.syncHpas();
    expect(replicasOf(m.sim)).toBe(4);
    m.sim.configure(parseSimulation({ ...spec, failed: true }));
    m.clock.ms += 15_000;
    syncs(m, 4);
    expect(replicasOf(m.sim)).toBe(4);
    m.sim.configure(parseSimulation(spec));
    syncs(m, 1);
    expect(replicasOf(m.sim)).toBe(8);
  });
});
