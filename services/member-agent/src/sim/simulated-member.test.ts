import { describe, expect, it } from 'vitest';
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
