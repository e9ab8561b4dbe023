// End to end: Karmada's WorkloadRebalancer user stories on the running suite (simulated clusters), driven by the CLI.
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import type { FailBacksReply } from '@flotilla/client';
import { afterWholeSecond, eventually } from '@flotilla/testkit';
import { flotilla } from './support/cli.js';
import { afterPasses } from './support/metrics.js';
import { startSuite, type RunningSuite } from './support/suite.js';

let s: RunningSuite;
type Targets = Array<{ name: string; replicas?: number }>;
type Binding = {
  spec: { clusters?: Targets; rescheduleTriggeredAt?: string };
  status?: { schedulerObservingAffinityName?: string; lastScheduledTime?: string };
};

const cli = (...args: string[]) => flotilla(s.env, args);
const apply = async (yaml: string) => {
  const r = await flotilla(s.env, ['apply', '-f', '-'], yaml);
  expect(r.err).toBe('');
};
const binding = async (name: string) => JSON.parse((await cli('get', 'rb', name, '-o', 'json')).out) as Binding;
const clustersOf = async (name: string) => (await binding(name)).spec.clusters ?? [];
const placed = (name: string, expected: Targets, what: string, timeoutMs = 20_000) =>
  eventually(
    async () => {
      const c = await clustersOf(name).catch(() => []);
      return JSON.stringify(c) === JSON.stringify(expected) ? c : undefined;
    },
    timeoutMs,
    `${what}: ${JSON.stringify(expected)}`,
  );

async function addClusters(cpu: string, ...names: string[]) {
  for (const n of names) expect((await cli('cluster', 'add', n, '--sim', '--cpu', cpu)).code).toBe(0);
  for (const n of names)
    expect((await cli('wait', '--for=condition=Ready', `cluster/${n}`, '--timeout', '20s')).code).toBe(0);
}

const failBacks = async (): Promise<FailBacksReply> => {
  const r = await cli('get', 'failbacks', '-o', 'json');
  expect(r.code, r.err).toBe(0);
  return JSON.parse(r.out) as FailBacksReply;
};

/**
 * The fleet's fail-back budget the suite runs with: one a period, not the default ten a minute. The rebalancer and the
 * gateway both read it (as deploy/ and the chart set it), so `get failbacks` plans with what the rebalancer does.
 */
const BUDGET_PERIOD_MS = 15_000;

const deployment = (name: string, replicas: number) => `
apiVersion: apps/v1
kind: Deployment
metadata: { name: ${name}, namespace: default }
spec:
  replicas: ${replicas}
  selector: { matchLabels: { app: ${name} } }
  template:
    metadata: { labels: { app: ${name} } }
    spec: { containers: [{ name: c, image: nginx, resources: { requests: { cpu: 500m } } }] }
`;

beforeAll(async () => {
  s = await startSuite(['gateway', 'status-writer', 'member-agent', 'affinity-scheduler', 'rebalancer'], {
    FAILOVER_GRACE_MS: '1000',
    SIM_TICK_MS: '200',
    RESYNC_MS: '2000',
    REBALANCER_FAILBACK_BUDGET: '1',
    REBALANCER_FAILBACK_BUDGET_PERIOD_MS: String(BUDGET_PERIOD_MS),
  });
}, 60_000);

afterAll(async () => {
  if (!s) return;
  const codes = await s.suite.stop();
  expect(Object.values(codes).every((c) => c === 0)).toBe(true);
  await s.stop();
});

function showLogs(): void {
  onTestFailed(() => console.log(`the services' last output:\n${s.logs.slice(-40).join('\n')}`));
}

describe('WorkloadRebalancer stories', () => {
  it('story 1: replicas that failed over to member2 are spread over both clusters again once member1 is back; the TTL deletes the rebalancer', async () => {
    showLogs();
    await addClusters('8', 'member1', 'member2');
    await apply(`${deployment('web', 4)}---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: { name: web, namespace: default }
spec:
  resourceSelectors: [{ apiVersion: apps/v1, kind: Deployment, name: web }]
  placement:
    clusterAffinity: { clusterNames: [member1, member2] }
    replicaScheduling:
      replicaSchedulingType: Divided
      replicaDivisionPreference: Weighted
      weightPreference: { staticWeightList: [{ targetCluster: { clusterNames: [member1] }, weight: 1 }, { targetCluster: { clusterNames: [member2] }, weight: 1 }] }
`);
    const both = [
      { name: 'member1', replicas: 2 },
      { name: 'member2', replicas: 2 },
    ];
    await placed('web-deployment', both, 'web divided over both');
    expect((await cli('cluster', 'fail', 'member1')).code).toBe(0);
    await placed('web-deployment', [{ name: 'member2', replicas: 4 }], 'failover to member2');
    expect((await cli('cluster', 'recover', 'member1')).code).toBe(0);
    await cli('wait', '--for=condition=Ready', 'cluster/member1', '--timeout', '20s');
    await eventually(
      async () =>
        (JSON.parse((await cli('get', 'cluster', 'member1', '-o', 'json')).out) as { spec: { taints?: unknown[] } })
          .spec.taints
          ? undefined
          : true,
      20_000,
      'member1 untainted',
    );
    // two scheduler resync passes over every binding: Karmada never fails back by itself
    await afterPasses(s.suite, 'affinity-scheduler', 'scheduling');
    expect(await clustersOf('web-deployment')).toEqual([{ name: 'member2', replicas: 4 }]);

    const r = await cli('rebalance', 'deploy/web', '--name', 'spread-web', '--ttl', '4s', '--wait', '--timeout', '30s');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain('workloadrebalancer.apps.karmada.io/spread-web created');
    expect(r.out).toMatch(/Deployment\/default\/web\s+Successful\s+member2:4\s+member1:2, member2:2/);
    expect(await clustersOf('web-deployment')).toEqual(both);

    const d = await cli('describe', 'workloadrebalancer', 'spread-web');
    expect(d.out).toMatch(
      /Workloads:\n\s+WORKLOAD\s+RESULT\s+BEFORE\s+AFTER\n\s+Deployment\/default\/web\s+Successful\s+member2:4\s+member1:2, member2:2/,
    );
    expect(d.out).toMatch(/RebalanceFinished/);
    const w = await cli('describe', 'deploy', 'web');
    expect(w.out).toMatch(/RescheduleTriggered\s.*WorkloadRebalancer spread-web/);
    expect((await cli('wait', '--for=delete', 'workloadrebalancer/spread-web', '--timeout', '15s')).code).toBe(0);
  }, 120_000);

  it('story 3: an Aggregated workload split over two clusters for lack of room consolidates into one when room appears', async () => {
    showLogs();
    await addClusters('2', 'agg1', 'agg2');
    await apply(`${deployment('batch', 6)}---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: { name: batch, namespace: default }
spec:
  resourceSelectors: [{ apiVersion: apps/v1, kind: Deployment, name: batch }]
  placement:
    clusterAffinity: { clusterNames: [agg1, agg2] }
    replicaScheduling: { replicaSchedulingType: Divided, replicaDivisionPreference: Aggregated }
`);
    const split = await eventually(
      async () => {
        const c = await clustersOf('batch-deployment').catch(() => []);
        return c.length === 2 ? c : undefined;
      },
      20_000,
      'batch split over agg1 and agg2',
    );
    expect(split.reduce((n, c) => n + (c.replicas ?? 0), 0)).toBe(6);
    // room appears: agg2 grows to 8 cpus
    expect((await cli('cluster', 'add', 'agg2', '--sim', '--cpu', '8')).code).toBe(0);
    await eventually(
      async () => {
        const c = JSON.parse((await cli('get', 'cluster', 'agg2', '-o', 'json')).out) as {
          status?: { resourceSummary?: { allocatable?: { cpu?: string } } };
        };
        return c.status?.resourceSummary?.allocatable?.cpu === '8' ? true : undefined;
      },
      20_000,
      'agg2 reports 8 cpus',
    );
    // Karmada's times are whole seconds and Fresh needs the trigger strictly after lastScheduledTime: a rebalancer
    // created in the second of the binding's last scheduling (the capacity change just now) reschedules nothing.
    await afterWholeSecond(Date.now());
    const r = await cli('rebalance', 'deploy/batch', '--wait', '--timeout', '30s');
    expect(r.code).toBe(0);
    const after = await clustersOf('batch-deployment');
    expect(after).toEqual([{ name: 'agg2', replicas: 6 }]);
  }, 120_000);

  it('fail-back (opt-in): a multiple-scheduling-groups workload returns to the first group after the cluster recovered and the period passed', async () => {
    showLogs();
    await addClusters('8', 'primary', 'backup');
    await apply(`${deployment('shop', 2)}---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: shop
  namespace: default
  annotations: { flotilla.io/fail-back-after: 3s }
spec:
  resourceSelectors: [{ apiVersion: apps/v1, kind: Deployment, name: shop }]
  placement:
    clusterAffinities:
      - { affinityName: primary-group, clusterNames: [primary] }
      - { affinityName: backup-group, clusterNames: [backup] }
    replicaScheduling: { replicaSchedulingType: Duplicated }
`);
    await placed('shop-deployment', [{ name: 'primary', replicas: 2 }], 'shop in the primary group');
    expect((await cli('cluster', 'fail', 'primary')).code).toBe(0);
    await placed('shop-deployment', [{ name: 'backup', replicas: 2 }], 'failover to the backup group');
    const failedOverAt = Date.now();
    expect((await cli('cluster', 'recover', 'primary')).code).toBe(0);
    const recoveredAt = Date.now();
    await placed('shop-deployment', [{ name: 'primary', replicas: 2 }], 'fail-back to the primary group', 30_000);
    expect(Date.now() - recoveredAt).toBeGreaterThanOrEqual(3000);
    expect((await binding('shop-deployment')).status?.schedulerObservingAffinityName).toBe('primary-group');
    const ev = await cli('describe', 'rb', 'shop-deployment');
    expect(ev.out).toMatch(/FailBackTriggered\s.*group primary-group could hold the workload again for 3s/);
    expect(failedOverAt).toBeLessThan(recoveredAt);
  }, 120_000);

  it('fail-back by spec.failover.failback, through flotilla get failbacks: once a cluster failed and recovered, both bindings are listed waiting with where they go, one moves, the other waits for the budget, then moves', async () => {
    showLogs();
    await addClusters('8', 'home', 'away');
    await apply(`${deployment('store', 2)}---${deployment('basket', 2)}---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: { name: store, namespace: default }
spec:
  resourceSelectors:
    - { apiVersion: apps/v1, kind: Deployment, name: store }
    - { apiVersion: apps/v1, kind: Deployment, name: basket }
  placement:
    clusterAffinities:
      - { affinityName: home-group, clusterNames: [home] }
      - { affinityName: away-group, clusterNames: [away] }
    replicaScheduling: { replicaSchedulingType: Duplicated }
  failover:
    failback: { enabled: true, stabilizationWindow: 3s }
`);
    const names = ['store-deployment', 'basket-deployment'];
    for (const n of names) await placed(n, [{ name: 'home', replicas: 2 }], `${n} in the home group`);
    expect((await cli('get', 'failbacks')).err).toMatch(/No fail-backs waiting/);

    expect((await cli('cluster', 'fail', 'home')).code).toBe(0);
    for (const n of names) await placed(n, [{ name: 'away', replicas: 2 }], `${n} failed over to the away group`);
    expect((await cli('cluster', 'recover', 'home')).code).toBe(0);

    // 1. Both wait, with the budget in force, from and to which group, and where each would land.
    const waiting = await eventually(
      async () => {
        const q = await failBacks();
        return q.items.length === 2 ? q : undefined;
      },
      20_000,
      'both bindings listed waiting to fail back',
    );
    expect(waiting.budget).toEqual({ max: 1, periodMs: BUDGET_PERIOD_MS });
    expect(waiting.items.map((i) => i.name).sort()).toEqual([...names].sort());
    for (const i of waiting.items) {
      expect(i).toMatchObject({
        fromGroup: 'away-group',
        toGroup: 'home-group',
        clusters: [{ name: 'away', replicas: 2 }],
        targetClusters: [{ name: 'home', replicas: 2 }],
        targetGroup: 'home-group',
      });
      expect(Date.parse(i.readyAt) - Date.parse(i.holdingSince)).toBe(3000);
    }
    // The second's turn is a period after the first's: the budget the rebalancer runs with, not the default.
    const [first, second] = waiting.items;
    expect(Date.parse(second!.moveAt!) - Date.parse(first!.moveAt!)).toBeGreaterThanOrEqual(BUDGET_PERIOD_MS);
    const table = await cli('get', 'failbacks');
    expect(table.out).toMatch(/NAMESPACE\s+NAME\s+FROM\s+TO\s+WAITING\s+MOVES\s+TURN\s+REASON\s+TARGET/);
    expect(table.out).toMatch(/default\s+\S+-deployment\s+away-group\s+home-group\s.*away:2 → home:2/);

    // 2. One moves; the other is still listed, waiting for the budget.
    const movedFirst = await eventually(
      async () => {
        for (const n of names)
          if (JSON.stringify(await clustersOf(n)) === JSON.stringify([{ name: 'home', replicas: 2 }])) return n;
        return undefined;
      },
      // The annotation's fail-back above may hold the budget's one slot for a period yet.
      BUDGET_PERIOD_MS + 20_000,
      'one binding failed back home',
    );
    const other = names.find((n) => n !== movedFirst)!;
    expect(await clustersOf(other)).toEqual([{ name: 'away', replicas: 2 }]);
    const held = await eventually(
      async () => {
        const q = await failBacks();
        return q.items.length === 1 && q.items[0]!.waitingFor === 'Budget' ? q.items[0] : undefined;
      },
      10_000,
      `${other} listed alone, waiting for the budget`,
    );
    expect(held.name).toBe(other);
    expect(held.turn).toBe(1);

    // 3. Its turn comes a period later: it moves, and nothing waits.
    await placed(other, [{ name: 'home', replicas: 2 }], `${other} failed back in its turn`, BUDGET_PERIOD_MS + 20_000);
    await eventually(
      async () => ((await failBacks()).items.length === 0 ? true : undefined),
      10_000,
      'the queue empty',
    );
    expect((await cli('get', 'failbacks')).err).toMatch(/No fail-backs waiting/);
  }, 150_000);
});
