// End to end: FederatedHPA on the running suite — three simulated clusters whose member HPAs run what the
// hpa-assigner assigns, `flotilla cluster load` driving their utilisation. Short sync periods keep it quick.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { connectBus, type Bus } from '@flotilla/bus';
import { eventually, scaled } from '@flotilla/testkit';
import {
  deployment,
  filler,
  fhpaCli,
  policy,
  prioritizedBurst,
  simCluster,
  staticWeightedFhpa,
  totalMax,
  waitForAssigned,
} from './support/fhpa.js';
import { startSuite, type RunningSuite } from './support/suite.js';

let s: RunningSuite;
let bus: Bus;
let dir: string;
const { cli, apply, getJson, limitsOf, replicasOf } = fhpaCli(
  () => s.env,
  () => dir,
);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'flotilla-fhpa-'));
  s = await startSuite(
    ['gateway', 'status-writer', 'member-agent', 'affinity-scheduler', 'cron-scheduler', 'hpa-assigner'],
    {
      SIM_TICK_MS: '200',
      SIM_HPA_SYNC_MS: '1000',
      SIM_HPA_DOWNSCALE_WINDOW_MS: '3000',
      RESYNC_MS: '2000',
      FAILOVER_GRACE_MS: '2000',
      FHPA_SYNC_PERIOD_MS: '1000',
      FHPA_OPTIMISE_PERIOD_MS: '15000',
    },
  );
  await apply(
    'clusters',
    [
      simCluster('member1', 'weighted', '16'),
      simCluster('member2', 'weighted', '16'),
      simCluster('member3', 'weighted', '16'),
      simCluster('small1', 'prio', '8'),
      simCluster('big2', 'prio', '16'),
      simCluster('big3', 'prio', '16'),
    ].join('---\n'),
  );
  for (const c of ['member1', 'member2', 'member3', 'small1', 'big2', 'big3']) {
    expect((await cli('wait', '--for=condition=Ready', `cluster/${c}`, '--timeout', '20s')).code).toBe(0);
  }
  bus = await connectBus({ url: s.env.NATS_URL!, prefix: s.env.FLOTILLA_PREFIX! });
}, scaled(60_000));

afterAll(async () => {
  await bus?.close();
  await s?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function logOnFailure(): void {
  onTestFailed(() => console.log(`the services' last output:\n${s.logs.slice(-40).join('\n')}`));
}

describe('FederatedHPA with member HPAs, end to end', () => {
  it(
    'StaticWeighted 1:2:3: member HPAs get their shares and scale within them; a failed cluster’s share moves; a CronFederatedHPA raises the min',
    async () => {
      logOnFailure();
      await apply(
        'shop',
        [deployment('shop', 3), policy('shop', 'weighted'), staticWeightedFhpa('shop', 3, 12)].join('---\n'),
      );
      const limits = await eventually(
        async () => {
          const l = await limitsOf('shop');
          return l && Object.keys(l).length === 3 ? l : undefined;
        },
        20_000,
        'member limits',
      );
      expect(limits).toEqual({
        member1: { minReplicas: 1, maxReplicas: 2 },
        member2: { minReplicas: 1, maxReplicas: 4 },
        member3: { minReplicas: 1, maxReplicas: 6 },
      });

      // Load rises in member3: its member HPA scales up to its share (about 6: the periodic optimisation may move a
      // little headroom by the weights), not beyond.
      expect((await cli('cluster', 'load', 'member3', '--workload', 'deploy/shop', '--constant', '4')).code).toBe(0);
      const up = await eventually(
        async () => {
          const m3 = (await replicasOf('shop')).member3;
          return m3?.hpa && m3.replicas === m3.hpa.maxReplicas && m3.replicas! >= 5 ? m3 : undefined;
        },
        30_000,
        'member3 at its max',
      );
      const assigned = (await limitsOf('shop'))!;
      expect(up.replicas).toBe(assigned.member3!.maxReplicas);
      expect(totalMax(assigned)).toBe(12);
      // Load falls: it scales back to its min once the downscale window has passed.
      expect((await cli('cluster', 'load', 'member3', '--workload', 'deploy/shop', '--constant', '0.1')).code).toBe(0);
      await eventually(
        async () => ((await replicasOf('shop')).member3?.replicas === 1 ? true : undefined),
        30_000,
        'member3 back at its min',
      );

      // member2 fails: its share goes to the others by the same weights, and the total max holds.
      expect((await cli('cluster', 'fail', 'member2')).code).toBe(0);
      const moved = await eventually(
        async () => {
          const l = await limitsOf('shop');
          return l && !l.member2 ? l : undefined;
        },
        20_000,
        'member2 failed over',
      );
      expect(totalMax(moved)).toBe(12);
      expect(moved.member3!.maxReplicas).toBeGreaterThan(6);
      // the status writer folds the event a moment after the write
      const described = await eventually(
        async () => {
          const d = await cli('describe', 'fhpa', 'shop');
          return d.out.includes('Reason:   Failover') ? d : undefined;
        },
        10_000,
        'describe shows the failover',
      );
      expect(described.out).toMatch(/Cluster\s+Min\s+Max\s+Current\s+Desired/);
      expect((await cli('describe', 'rb', 'shop-deployment')).out).toContain(
        'Replica division:  FederatedHPA shop (hpa-assigner)',
      );
      expect((await cli('cluster', 'recover', 'member2')).code).toBe(0);
      await eventually(async () => ((await limitsOf('shop'))?.member2 ? true : undefined), 20_000, 'member2 back');

      // A CronFederatedHPA raises the FederatedHPA's min: the assignment follows.
      await apply(
        'shop-cron',
        `apiVersion: autoscaling.karmada.io/v1alpha1
kind: CronFederatedHPA
metadata: { name: shop-floor, namespace: default }
spec:
  scaleTargetRef: { apiVersion: autoscaling.karmada.io/v1alpha1, kind: FederatedHPA, name: shop }
  rules:
  - { name: floor, schedule: "*/2 * * * * *", targetMinReplicas: 6 }
`,
      );
      const raised = await eventually(
        async () => {
          const l = await limitsOf('shop');
          return l && Object.values(l).reduce((n, x) => n + x.minReplicas, 0) === 6 ? l : undefined;
        },
        20_000,
        'mins follow the cron',
      );
      expect(Object.entries(raised).map(([c, l]) => [c, l.minReplicas])).toEqual([
        ['member1', 1],
        ['member2', 2],
        ['member3', 3],
      ]);
      expect(totalMax(raised)).toBe(12);
    },
    scaled(180_000),
  );

  it(
    'Prioritized with a small preferred cluster: pods pend there, and after the delay the next cluster gets the freed max and scales; when load drops the max goes back',
    async () => {
      logOnFailure();
      await apply('burst', prioritizedBurst(2));
      // small1 has room for all 12 when the assignment is made, so it gets the whole max.
      const first = await eventually(
        async () => {
          const l = await limitsOf('burst');
          return l?.small1 ? l : undefined;
        },
        20_000,
        'member limits',
      );
      expect(first).toEqual({ small1: { minReplicas: 2, maxReplicas: 12 } });
      // Then another workload fills most of small1 (its binding sorts first, so its pods are placed first).
      await apply('filler', filler);
      await eventually(
        async () => ((await replicasOf('aaa-filler')).small1?.readyReplicas === 12 ? true : undefined),
        20_000,
        'filler running',
      );
      // Load in small1: its member HPA wants more pods than fit; they pend; after the delay big2 gets the freed max.
      expect((await cli('cluster', 'load', 'small1', '--workload', 'deploy/burst', '--constant', '4')).code).toBe(0);
      const moved = await eventually(
        async () => {
          const l = await limitsOf('burst');
          return l?.big2 ? l : undefined;
        },
        40_000,
        'max moved to big2',
      );
      expect(moved.small1!.maxReplicas).toBe(4); // 8 cores − 6 for the filler hold 4 pods of 500m
      expect(moved.big2).toEqual({ minReplicas: 1, maxReplicas: 8 });
      expect(totalMax(moved)).toBe(12);
      // Assigned once at the start, over the feasible clusters (not first over the one the scheduler chose for itself),
      // then moved across once. Read from the log: the limits above are written directly, while status.lastAssignment
      // is folded from the log a moment later (under load it still showed the assignment before the move).
      // The events are published after those writes, so the move's is waited for.
      const { all: assignments } = await waitForAssigned(bus, 'burst', { reason: 'ScaledUpAcross' });
      expect(assignments.map((e) => e.reason)).toEqual(['Initial', 'ScaledUpAcross']);
      expect(assignments[1]!.moves).toEqual([{ from: 'small1', to: 'big2', replicas: 8 }]);
      // big2 was scaled from 0 to 1; with load of its own its member HPA scales within the new max.
      expect((await cli('cluster', 'load', 'big2', '--workload', 'deploy/burst', '--constant', '2')).code).toBe(0);
      await eventually(
        async () => (((await replicasOf('burst')).big2?.replicas ?? 0) > 1 ? true : undefined),
        30_000,
        'big2 scales',
      );
      // the lowest priority scales down first: while big2 is above its min, small1 is held at its replicas
      await eventually(
        async () => ((await limitsOf('burst'))?.small1?.minReplicas === 4 ? true : undefined),
        20_000,
        'small1 held',
      );

      // Load drops in big2: its member HPA goes down to its min and, a period later, its max returns to small1.
      expect((await cli('cluster', 'load', 'big2', '--workload', 'deploy/burst', '--constant', '0.1')).code).toBe(0);
      expect((await cli('cluster', 'load', 'small1', '--workload', 'deploy/burst', '--constant', '1')).code).toBe(0);
      const back = await eventually(
        async () => {
          const l = await limitsOf('burst');
          return l?.big2?.maxReplicas === 1 ? l : undefined;
        },
        40_000,
        'big2 handed its max back',
      );
      expect(back.small1).toEqual({ minReplicas: 2, maxReplicas: 11 }); // released, and the max handed back
    },
    scaled(180_000),
  );
});

describe('FederatedHPA scaling to and from zero, end to end', () => {
  it(
    'idle: the least weighted cluster goes to 0 while the federation keeps its min; busy again: it comes back',
    async () => {
      logOnFailure();
      // Divided evenly first: one replica per cluster.
      await apply(
        'idle',
        [
          deployment('idle', 3),
          policy(
            'idle',
            'weighted',
            'replicaScheduling: { replicaSchedulingType: Divided, replicaDivisionPreference: Weighted }',
          ),
          staticWeightedFhpa('idle', 2, 12, 'scalingToZero: true'),
        ].join('---\n'),
      );
      for (const c of ['member1', 'member2', 'member3']) {
        expect((await cli('cluster', 'load', c, '--workload', 'deploy/idle', '--constant', '0.05')).code).toBe(0);
      }
      // every member HPA at its min of 1 and 10 % against 50 %: member1 (weight 1) goes to 0; 2 replicas stay
      const fhpa = await eventually(
        async () => {
          const f = await getJson('fhpa', 'idle');
          return f?.status?.lastAssignment?.reason === 'ScaledToZero' ? f : undefined;
        },
        40_000,
        'the ScaledToZero status',
      );
      expect(fhpa.status.lastAssignment.message).toContain('member1 to 0');
      await eventually(
        async () => ((await replicasOf('idle')).member1?.replicas === 0 ? true : undefined),
        20_000,
        'member1 at 0',
      );
      const running = await replicasOf('idle');
      expect((running.member2?.replicas ?? 0) + (running.member3?.replicas ?? 0)).toBeGreaterThanOrEqual(2);

      // busy again: utilisation above target brings member1 back from 0
      for (const c of ['member2', 'member3']) {
        expect((await cli('cluster', 'load', c, '--workload', 'deploy/idle', '--constant', '2')).code).toBe(0);
      }
      const back = await eventually(
        async () => {
          const f = await getJson('fhpa', 'idle');
          return f?.status?.lastAssignment?.reason === 'ScaledFromZero' ? f : undefined;
        },
        40_000,
        'the ScaledFromZero status',
      );
      expect(back.status.lastAssignment.message).toContain('member1 back from 0');
      await eventually(
        async () => (((await replicasOf('idle')).member1?.replicas ?? 0) >= 1 ? true : undefined),
        20_000,
        'member1 back',
      );
    },
    scaled(120_000),
  );
});

describe("Karmada's shipped FederatedHPA, end to end", () => {
  it(
    'computes one replica count from the member clusters and scales the template, which the scheduler divides',
    async () => {
      logOnFailure();
      await apply(
        'web',
        [
          deployment('web', 2),
          policy(
            'web',
            'weighted',
            'replicaScheduling: { replicaSchedulingType: Divided, replicaDivisionPreference: Weighted }',
          ),
          `apiVersion: autoscaling.karmada.io/v1alpha1
kind: FederatedHPA
metadata: { name: web, namespace: default }
spec:
  scaleTargetRef: { apiVersion: apps/v1, kind: Deployment, name: web }
  minReplicas: 1
  maxReplicas: 10
  metrics: [{ type: Resource, resource: { name: cpu, target: { type: Utilization, averageUtilization: 50 } } }]
`,
        ].join('---\n'),
      );
      for (const c of ['member1', 'member2', 'member3']) {
        expect((await cli('cluster', 'load', c, '--workload', 'deploy/web', '--constant', '1')).code).toBe(0);
      }
      const replicas = await eventually(
        async () => {
          const d = await getJson('deploy', 'web');
          return (d?.spec?.replicas as number) > 2 ? (d!.spec.replicas as number) : undefined;
        },
        40_000,
        'the template scaled',
      );
      expect(replicas).toBeGreaterThan(2);
      const fhpa = await getJson('fhpa', 'web');
      expect(fhpa?.status?.conditions).toContainEqual(
        expect.objectContaining({ type: 'ScalingActive', status: 'True' }),
      );
      // no member HPA: the scheduler divides the template's replicas as usual
      expect(await getJson('hpa', 'web')).toBeUndefined();
      await eventually(
        async () => {
          const b = await getJson('rb', 'web-deployment');
          const sum = ((b?.spec?.clusters as Array<{ replicas: number }> | undefined) ?? []).reduce(
            (n, c) => n + c.replicas,
            0,
          );
          const now = ((await getJson('deploy', 'web'))?.spec?.replicas as number) ?? 0;
          return sum === now && sum > 2 ? true : undefined;
        },
        20_000,
        'the scheduler divided the new replicas',
      );
    },
    scaled(120_000),
  );
});
