// End to end with real member control planes: two kube clusters (a real kube-apiserver, etcd, controller-manager and
// scheduler each), each with one kwok node of 4 cpu, and a kube member-agent each. A Deployment whose pods request 5
// cpu fits no node, though each cluster has 4 cpu and the two 8: Karmada's general estimator answers 0 for both from
// the resource models the agents report (status.resourceSummary.allocatableModelings), so the binding is
// Unschedulable with the scheduler's reason and nothing reaches any member. A 2-cpu Deployment beside it is placed and
// runs: the 0 is the models' answer for the big pods, not an estimator that answers 0 to everything.
// Duplicated placement does not consult the estimator (nor does Karmada's): the same pods are then applied and stay
// Pending in the members, which FullyApplied does not show; the binding's PodsScheduled condition and a PodsPending
// Warning do.
import { DEFAULT_RESOURCE_MODELS } from '@flotilla/api';
import { eventually } from '@flotilla/testkit';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { flotilla } from './support/cli.js';
import { deployment } from './support/fhpa.js';
import {
  deploymentIn,
  placed,
  podsOf,
  policyOn,
  pushClusters,
  runningPods,
  startKubeAgents,
  stopSuiteAndClusters,
} from './support/kube-e2e.js';
import { memberClusters, type MemberCluster } from './support/member-clusters.js';
import { startSuite, type RunningSuite } from './support/suite.js';

let s: RunningSuite | undefined;
const kube: MemberCluster[] = [];

const cli = (...args: string[]) => flotilla(s!.env, args);
const apply = async (yaml: string) => {
  const r = await flotilla(s!.env, ['apply', '-f', '-'], yaml);
  expect(r.err).toBe('');
};
const getJson = async <T>(...args: string[]): Promise<T> => {
  const r = await cli('get', ...args, '-o', 'json');
  if (r.code !== 0) throw new Error(r.err);
  return JSON.parse(r.out) as T;
};

/** Resolves once the binding places one replica in each kube cluster. */
const onePerCluster = (binding: string, what: string) =>
  placed(
    s!.env,
    binding,
    ['kube1', 'kube2'].map((name) => ({ name, replicas: 1 })),
    what,
  );

/** `describe rb NAME` once its output matches every pattern (its events are folded beside the status). */
const described = (binding: string, patterns: RegExp[]) =>
  eventually(
    async () => {
      const out = (await cli('describe', 'rb', binding)).out;
      return patterns.every((p) => p.test(out)) ? out : undefined;
    },
    30_000,
    `describe rb ${binding} matching ${patterns.join(', ')}`,
  );

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}
interface Binding {
  spec: { clusters?: Array<{ name: string; replicas?: number }> };
  status?: { conditions?: Condition[] };
}

const DYNAMIC_WEIGHT =
  '{ replicaSchedulingType: Divided, replicaDivisionPreference: Weighted, weightPreference: { dynamicWeight: AvailableReplicas } }';

beforeAll(async () => {
  s = await startSuite(['gateway', 'status-writer', 'affinity-scheduler'], {
    // Leadership is not what this file tests: a longer lease keeps it steady on a loaded machine.
    LEADER_LEASE_MS: '10000',
    RESYNC_MS: '2000',
  });
  // One kwok node of 4 cpu and 16Gi in each.
  kube.push(
    ...(await memberClusters([
      { name: 'kube1', cpu: '4' },
      { name: 'kube2', cpu: '4' },
    ])),
  );
  await startKubeAgents(s, kube);
}, 300_000);

afterAll(() => stopSuiteAndClusters(s, kube), 60_000);

describe('resource models on kube members', () => {
  it('a workload whose 5-cpu pods fit no 4-cpu node is Unschedulable with the reason, and nothing is applied to any member', async () => {
    onTestFailed(() => console.log(`the services' last output:\n${s!.logs.slice(-60).join('\n')}`));
    const [kube1, kube2] = kube as [MemberCluster, MemberCluster];
    await apply(pushClusters(['kube1', 'kube2']));
    // Each agent grades its node by Karmada's default models: 4 cpu reach grade 3, 16Gi grade 2, so grade 2.
    const grade2 = DEFAULT_RESOURCE_MODELS.map(({ grade }) => ({ grade, count: grade === 2 ? 1 : 0 }));
    for (const name of ['kube1', 'kube2'])
      await eventually(
        async () => {
          const c = await getJson<{ status?: { resourceSummary?: { allocatableModelings?: unknown } } }>(
            'cluster',
            name,
          );
          return JSON.stringify(c.status?.resourceSummary?.allocatableModelings) === JSON.stringify(grade2)
            ? true
            : undefined;
        },
        60_000,
        `${name} reports its node in grade 2`,
      );

    await apply([deployment('big', 2, '5'), policyOn('big', ['kube1', 'kube2'], DYNAMIC_WEIGHT)].join('---\n'));
    const scheduled = await eventually(
      async () => {
        const b = await getJson<Binding>('rb', 'big-deployment').catch(() => undefined);
        const c = b?.status?.conditions?.find((x) => x.type === 'Scheduled');
        return c?.status === 'False' ? { binding: b!, condition: c } : undefined;
      },
      60_000,
      'big-deployment Scheduled=False',
    );
    // Karmada's scheduler: an UnschedulableError from the division, "Clusters available replicas 0 are not enough".
    expect(scheduled.condition.reason).toBe('Unschedulable');
    expect(scheduled.condition.message).toMatch(/^Clusters available replicas 0 are not enough to schedule\./);
    expect(scheduled.binding.spec.clusters ?? []).toEqual([]);
    await described('big-deployment', [
      /Warning\s+ScheduleBindingFailed\s.*Clusters available replicas 0 are not enough/,
    ]);

    // A workload that fits is placed beside it and runs, one 2-cpu pod per cluster (grade 2 holds one of 2 cpu).
    await apply([deployment('fits', 2, '2'), policyOn('fits', ['kube1', 'kube2'], DYNAMIC_WEIGHT)].join('---\n'));
    await onePerCluster('fits-deployment', 'fits divided over both');
    await runningPods(kube1, 'fits', 1);
    await runningPods(kube2, 'fits', 1);

    // The agents applied fits, so they have reconciled since big was bound: big reached no member, no pod of it exists.
    for (const c of [kube1, kube2]) {
      expect(await deploymentIn(c, 'big')).toBe(false);
      expect(await podsOf(c, 'big')).toEqual([]);
    }
    const still = await getJson<Binding>('rb', 'big-deployment');
    expect(still.spec.clusters ?? []).toEqual([]);
    expect(still.status?.conditions?.find((x) => x.type === 'Scheduled')).toMatchObject({
      status: 'False',
      reason: 'Unschedulable',
    });
  }, 240_000);

  it('pods the members leave Pending (a Duplicated workload, placed without the estimator): FullyApplied True, PodsScheduled False, a PodsPending Warning', async () => {
    onTestFailed(() => console.log(`the services' last output:\n${s!.logs.slice(-60).join('\n')}`));
    const [kube1, kube2] = kube as [MemberCluster, MemberCluster];
    await apply(
      [deployment('dup', 1, '5'), policyOn('dup', ['kube1', 'kube2'], '{ replicaSchedulingType: Duplicated }')].join(
        '---\n',
      ),
    );
    await onePerCluster('dup-deployment', 'dup duplicated to both');
    // The real kube-scheduler finds no node for the pod: PodScheduled=False, Unschedulable.
    for (const c of [kube1, kube2])
      await eventually(
        async () =>
          (await podsOf(c, 'dup'))?.some((p) =>
            p.status.conditions?.some((x) => x.type === 'PodScheduled' && x.status === 'False'),
          ) || undefined,
        60_000,
        `dup's pod Unschedulable in ${c.name}`,
      );
    const conditions = await eventually(
      async () => {
        const b = await getJson<Binding>('rb', 'dup-deployment');
        const c = b.status?.conditions ?? [];
        const pods = c.find((x) => x.type === 'PodsScheduled');
        return pods?.status === 'False' && pods.message?.includes('kube2') ? c : undefined;
      },
      60_000,
      'dup-deployment PodsScheduled=False in both clusters',
    );
    expect(conditions.find((x) => x.type === 'FullyApplied')?.status).toBe('True');
    expect(conditions.find((x) => x.type === 'PodsScheduled')).toMatchObject({
      reason: 'PodsPending',
      message: 'Pods Pending, no node fits them (cluster pending/desired): kube1 1/1, kube2 1/1',
    });
    await described(
      'dup-deployment',
      ['kube1', 'kube2'].map(
        (c) =>
          new RegExp(`Warning\\s+PodsPending\\s.*1 of 1 pod\\(s\\) Pending in cluster ${c}: no node there fits them`),
      ),
    );
    const wide = await cli('get', 'rb', 'dup-deployment', '-o', 'wide');
    expect(wide.out).toMatch(/PODSSCHEDULED[\s\S]*dup-deployment.*\sFalse\b/);
  }, 180_000);
});
