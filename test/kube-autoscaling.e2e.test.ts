// End to end: autoscaling on real member control planes. Two kube clusters (each a real kube-apiserver, etcd,
// controller-manager with its HPA controller, scheduler and metrics-server; kwok plays the kubelets and the pods' CPU
// usage), a kube member-agent each, and the running suite with the hpa-assigner and the cron-scheduler:
// - a Prioritized FederatedHPA whose pods the real kube-scheduler leaves Pending in the full preferred cluster scales
//   across to the next one after autoscaleMultiClusterDelay, and back when load falls;
// - Karmada's shipped FederatedHPA scales a workload on pod metrics read from metrics.k8s.io;
// - a CronFederatedHPA scales a workload at its schedule;
// - an HPA created by hand in a member cluster on a workload a FederatedHPA scales is an owner conflict (condition
//   and Warning) until it is deleted;
// - a member watch that etcd compaction expires (a real 410 Gone) makes the driver list again, and nothing is applied
//   twice or lost.
// The clusters are shared by every case (their start-up is most of this file's run time).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clusterAvailability, parsedPodRequests } from '@flotilla/assignment';
import { type Bus, connectBus, readEvents } from '@flotilla/bus';
import type { ServiceProcess } from '@flotilla/launcher';
import { eventually, scaled } from '@flotilla/testkit';
import { type KubeCluster, startKubeCluster } from '@flotilla/testkit/kube';
import type { Cluster } from '@flotilla/scheduling';
import { afterAll, beforeAll, describe, expect, it, onTestFailed, onTestFinished } from 'vitest';
import { deployment, fhpaCli, prioritizedFhpa, waitForAssigned } from './support/fhpa.js';
import { describedWith, ownerCondition } from './support/owner-conflict.js';
import {
  policyOn,
  stopSuiteAndClusters,
  memberReplicas,
  podsOf,
  pushClusters,
  runningPods,
  scrapedSum,
  startKubeAgents,
} from './support/kube-e2e.js';
import { afterPasses } from './support/metrics.js';
import { startSuite, type RunningSuite } from './support/suite.js';

let s: RunningSuite | undefined;
let dir: string;
const kube: KubeCluster[] = [];
let agents: ServiceProcess[] = [];
const { cli, apply, getJson, limitsOf } = fhpaCli(
  () => s!.env,
  () => dir,
);
let bus: Bus | undefined;
const kube1 = () => kube[0]!;
const kube2 = () => kube[1]!;

/** The member HPAs act every 3 s (kube-controller-manager's default is 15 s); metrics-server scrapes every 10 s. */
const CONTROLLER_MANAGER_ARGS = ['--horizontal-pod-autoscaler-sync-period=3s'];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'flotilla-kube-autoscaling-'));
  s = await startSuite(['gateway', 'status-writer', 'affinity-scheduler', 'hpa-assigner', 'cron-scheduler'], {
    // Leadership is not what this file tests: a longer lease keeps it steady on a loaded machine.
    LEADER_LEASE_MS: '10000',
    RESYNC_MS: '2000',
    FHPA_SYNC_PERIOD_MS: '1000',
    // A cluster that just received max hands it back after this long at its min: longer than a real member HPA
    // needs to act on a new pod (metrics-server's 10 s resolution and the HPA's sample rules), else load that
    // arrives there is too late to keep it.
    FHPA_OPTIMISE_PERIOD_MS: '40000',
  });
  // kube2 serves Deployments without the watch cache: their watches go to etcd, so compacting it expires them.
  kube.push(
    ...(await Promise.all([
      startKubeCluster({
        name: 'kube1',
        cpu: '4',
        memory: '16Gi',
        metrics: true,
        extraControllerManagerArgs: CONTROLLER_MANAGER_ARGS,
      }),
      startKubeCluster({
        name: 'kube2',
        cpu: '4',
        memory: '16Gi',
        metrics: true,
        extraControllerManagerArgs: CONTROLLER_MANAGER_ARGS,
        extraApiServerArgs: ['--watch-cache-sizes=deployments.apps#0'],
      }),
    ])),
  );
  // Watches resume every 4-6 s, so an expired resourceVersion is found out quickly.
  bus = await connectBus({ url: s.env.NATS_URL!, prefix: s.env.FLOTILLA_PREFIX! });
  agents = await startKubeAgents(s, kube, { KUBE_WATCH_TIMEOUT_SECONDS: '5' });
  await apply('clusters', pushClusters(['kube1', 'kube2']));
  for (const c of ['kube1', 'kube2'])
    expect((await cli('wait', '--for=condition=Ready', `cluster/${c}`, '--timeout', '60s')).code).toBe(0);
}, scaled(300_000));

afterAll(async () => {
  try {
    await bus?.close();
    await stopSuiteAndClusters(s, kube);
  } finally {
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}, scaled(60_000));

/** kube-scheduler's FailedScheduling Events for the pods of a Deployment (`<name>-…`) in the default namespace. */
async function failedSchedulingEvents(cluster: KubeCluster, name: string): Promise<{ message: string }[]> {
  const r = await cluster.kubectl([
    'get',
    'events',
    '-n',
    'default',
    '--field-selector',
    'reason=FailedScheduling,involvedObject.kind=Pod',
    '-o',
    'json',
  ]);
  if (r.code !== 0) return [];
  const { items } = JSON.parse(r.stdout) as { items: { message?: string; involvedObject: { name: string } }[] };
  return items.filter((e) => e.involvedObject.name.startsWith(`${name}-`)).map((e) => ({ message: e.message ?? '' }));
}

/**
 * On failure, prints the services' last output and, for `workload`, what the autoscaling decided from: its template
 * replicas, its autoscalers' status, the binding's per-cluster status and each member's pod metrics.
 */
function logOnFailure(workload?: string): void {
  onTestFailed(async () => {
    console.log(`the services' last output:\n${s!.logs.slice(-60).join('\n')}`);
    if (workload) console.log(await workloadReport(workload).catch((err: unknown) => String(err)));
  });
}

async function workloadReport(name: string): Promise<string> {
  const lines = [`${name} when the test failed:`, `  template replicas: ${await templateReplicas(name)}`];
  for (const kind of ['fhpa', 'cronfhpa'])
    lines.push(`  ${kind} status: ${JSON.stringify((await getJson(kind, name))?.status ?? null)}`);
  lines.push(`  binding status: ${JSON.stringify((await getJson('rb', `${name}-deployment`))?.status ?? null)}`);
  lines.push(...(await foldReport(`${name}-deployment`)));
  for (const c of kube) {
    const metrics = await c.kubectl(['get', '--raw', '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods']);
    lines.push(`  ${c.name} pods: ${JSON.stringify(await podsOf(c, name))}`);
    lines.push(
      `  ${c.name} metrics.k8s.io: ${metrics.code === 0 ? metrics.stdout.replace(/\s+/g, ' ') : metrics.stderr}`,
    );
  }
  return lines.join('\n');
}

/**
 * Whether a binding's status lags its events, to tell the agents' side from the status writer's: the binding's last
 * events (the agents' reports among them) and how far the status writer's consumer has come in the stream.
 */
async function foldReport(binding: string): Promise<string[]> {
  if (!bus) return [];
  const events: string[] = [];
  for await (const d of readEvents(bus, { filter: { kind: 'ResourceBinding', namespace: 'default', name: binding } }))
    events.push(
      `    #${d.seq} ${d.event.time} ${d.event.type} ${d.event.source} ${JSON.stringify(d.event.data).slice(0, 300)}`,
    );
  let position: string;
  try {
    const c = await bus.jsm.consumers.info(bus.names.eventsStream, 'status-writer');
    position = JSON.stringify({
      delivered: c.delivered.stream_seq,
      ackFloor: c.ack_floor.stream_seq,
      pending: c.num_pending,
      ackPending: c.num_ack_pending,
      redelivered: c.num_redelivered,
    });
  } catch (err) {
    position = String(err);
  }
  return [
    `  ${binding} events (the last 12 of ${events.length}):`,
    ...events.slice(-12),
    `  status-writer consumer: ${position}`,
  ];
}

/** Divided over both kube clusters, half each. */
const evenlyDivided = (name: string) =>
  policyOn(
    name,
    ['kube1', 'kube2'],
    '{ replicaSchedulingType: Divided, replicaDivisionPreference: Weighted, weightPreference: { staticWeightList: ' +
      '[{ targetCluster: { clusterNames: [kube1] }, weight: 1 }, { targetCluster: { clusterNames: [kube2] }, weight: 1 }] } }',
  );

/** Both member Deployments at `each` replicas, with that many pods Running in each cluster. */
async function runningInBoth(name: string, each: number, timeoutMs = 90_000): Promise<void> {
  for (const c of kube) {
    await eventually(
      async () => ((await memberReplicas(c, name)) === each ? true : undefined),
      timeoutMs,
      `${name} at ${each} replicas in ${c.name}`,
    );
    await runningPods(c, name, each, timeoutMs);
  }
}

const templateReplicas = async (name: string) => (await getJson('deploy', name))?.spec?.replicas as number | undefined;

describe('autoscaling on kube member clusters', () => {
  it(
    'a real 410 Gone: a member watch whose resourceVersion etcd compacted lists again, and nothing is applied twice or lost',
    async () => {
      logOnFailure('steady');
      const agent = agents[1]!; // kube2's
      await apply(
        'steady',
        [deployment('steady', 2, '100m'), policyOn('steady', ['kube2'], '{ replicaSchedulingType: Duplicated }')].join(
          '---\n',
        ),
      );
      await runningPods(kube2(), 'steady', 2);
      const memberDeployment = async () => {
        const r = await kube2().kubectl(['get', 'deployment', 'steady', '-n', 'default', '-o', 'json']);
        return r.code === 0
          ? (JSON.parse(r.stdout) as { metadata: { uid: string; generation: number }; spec: { replicas: number } })
          : undefined;
      };
      const before = (await memberDeployment())!;
      const expired = () =>
        scrapedSum(agent, 'flotilla_kube_watch_expired_total', { cluster: 'kube2', resource: 'apps/v1/Deployment' });
      const writes = () => scrapedSum(agent, 'flotilla_kube_member_writes_total', { cluster: 'kube2' });
      // Everything is applied: the agent's writes have stopped (two resync passes of its controller without one).
      const writesBefore = await eventually(
        async () => {
          const at = await writes();
          await afterPasses({ processes: [agent] }, 'member-agent', 'kube-member');
          return (await writes()) === at ? at : undefined;
        },
        60_000,
        'the agent stops writing',
      );
      const expiredBefore = await expired();

      // Twice: after the first expiry the informer lists and watches from the list's resourceVersion, which a later
      // compaction expires again. Compacting again while waiting is harmless (a driver that just listed, e.g. in a new
      // leader term, holds a resourceVersion from after the last compaction).
      for (const round of [1, 2]) {
        await eventually(
          async () => {
            if ((await expired()) >= expiredBefore + round) return true;
            await kube2().compactEtcd();
            // The watch hears of it at its next event or timeout: wait for the expiry a while, then compact again.
            return eventually(
              async () => ((await expired()) >= expiredBefore + round ? true : undefined),
              3000,
              'the expiry after this compaction',
            ).catch(() => undefined);
          },
          60_000,
          `the Deployment watch expired (${round})`,
        );
      }
      expect(
        s!.logs.some(
          (l) =>
            l.includes('member watch expired (410 Gone); listing again') &&
            l.includes('"cluster":"kube2"') &&
            l.includes('"informer":"apps/v1/Deployment"'),
        ),
      ).toBe(true);
      // Nothing applied twice: the relists found everything as applied, and the member Deployment is the same object.
      expect(await writes()).toBe(writesBefore);
      const after = (await memberDeployment())!;
      expect(after.metadata.uid).toBe(before.metadata.uid);
      expect(after.metadata.generation).toBe(before.metadata.generation);

      // Nothing lost: the watches after the relist see what changes in the member cluster and in Flotilla.
      expect((await kube2().kubectl(['delete', 'deployment', 'steady', '-n', 'default'])).code).toBe(0);
      const recreated = await eventually(
        async () => {
          const d = await memberDeployment();
          return d && d.metadata.uid !== before.metadata.uid ? d : undefined;
        },
        30_000,
        'the agent re-creates the Deployment deleted behind its back',
      );
      expect(recreated.spec.replicas).toBe(2);
      expect(await writes()).toBe(writesBefore + 1);
      await apply('steady-3', deployment('steady', 3, '100m'));
      await runningPods(kube2(), 'steady', 3);
    },
    scaled(180_000),
  );

  it(
    'Prioritized FederatedHPA: pods the real scheduler leaves Pending in the full preferred cluster scale across after autoscaleMultiClusterDelay, and back when load falls',
    async () => {
      logOnFailure('burst');
      // The workload first, under its policy: Aggregated puts its two pods in kube1.
      await apply(
        'burst',
        [
          deployment('burst', 2, '500m'),
          policyOn(
            'burst',
            ['kube1', 'kube2'],
            '{ replicaSchedulingType: Divided, replicaDivisionPreference: Aggregated }',
          ),
        ].join('---\n'),
      );
      await runningPods(kube1(), 'burst', 2);
      // The FederatedHPA only once kube1's Cluster status counts those two pods. The workload's own replicas are not
      // added back to a cluster's availability (the proposal's Prioritized rule, packages/assignment availability.ts),
      // so what the hpa-assigner assigns first depends on whether kube1's report counted them: waiting for it here
      // makes that order, and so the first assignment, one answer. kube1 has 4 cores: 8 pods of 500m, 6 beside burst's.
      const burstPod = parsedPodRequests({ cpu: '500m', memory: '128Mi' });
      await eventually(
        async () => {
          const cluster = await getJson('cluster', 'kube1');
          return cluster && clusterAvailability(cluster as Cluster, burstPod) === 6 ? true : undefined;
        },
        30_000,
        "kube1's Cluster status counts burst's two pods",
      );
      await apply(
        'burst-fhpa',
        prioritizedFhpa('burst', {
          minReplicas: 2,
          maxReplicas: 8,
          delaySeconds: 10,
          clusters: ['kube1', 'kube2'],
          extra: 'behavior: { scaleDown: { stabilizationWindowSeconds: 0 } }',
        }),
      );
      // kube1 takes the 6 it has room for, kube2 the other 2 of the max. (The hpa-assigner assigns only once the affinity
      // scheduler has written the clusters its filters keep, kube1 and kube2, never over kube1 alone where burst runs.)
      const first = await eventually(
        async () => {
          const l = await limitsOf('burst');
          return l?.kube1 ? l : undefined;
        },
        30_000,
        'member limits',
      );
      expect(first).toEqual({ kube1: { minReplicas: 2, maxReplicas: 6 }, kube2: { minReplicas: 1, maxReplicas: 2 } });
      // ... and that was the first assignment the hpa-assigner made, not a later correction of another. Its event is
      // published after the writes that the limits above come from, so it is waited for.
      const { event: assigned } = await waitForAssigned(bus!, 'burst');
      expect(assigned.assignments).toEqual([
        { cluster: 'kube1', minReplicas: 2, maxReplicas: 6 },
        { cluster: 'kube2', minReplicas: 1, maxReplicas: 2 },
      ]);
      await runningPods(kube1(), 'burst', 2);
      // Then another tenant of kube1 takes half of it: 4 pods of 500m, created there directly, not by Flotilla.
      const filler = await kube1().kubectl(['apply', '-f', '-'], { input: deployment('filler', 4, '500m') });
      // Whatever this case's outcome, the next cases find kube1 with room: a failure here left it full, and each case
      // after it failed waiting for its one pod to run.
      onTestFinished(async () => {
        await kube1().kubectl(['delete', 'deployment', 'filler', '-n', 'default', '--ignore-not-found']);
      });
      expect(filler.code, filler.stderr).toBe(0);
      await runningPods(kube1(), 'filler', 4);

      // Load: every burst pod, wherever it runs, uses twice its request. kube1's member HPA (kube-controller-manager's,
      // on metrics-server's numbers) scales burst up to its max of 8; 4 fit, the real scheduler leaves the rest Pending.
      for (const c of kube) await c.setPodCpuUsage({ namespace: 'default', selector: 'app=burst', milliCpu: 1000 });
      // The real scheduler's word that it left burst pods Pending: its FailedScheduling Events, which stay. The pods
      // themselves are Unschedulable only until the move below lets kube1's HPA drop them, autoscaleMultiClusterDelay
      // (10 s) after they pend: on a busy machine this test's own kubectl calls took longer than that, and a probe of the
      // pods' conditions found none left.
      const unschedulable = await eventually(
        async () => {
          const events = await failedSchedulingEvents(kube1(), 'burst');
          return events.length > 0 ? events : undefined;
        },
        120_000,
        "kube-scheduler's FailedScheduling events for burst pods in kube1",
      );
      expect(
        unschedulable.every((e) => e.message.includes('Insufficient cpu')),
        JSON.stringify(unschedulable),
      ).toBe(true);
      // After the delay the max kube1 cannot use moves to kube2 (what fits in kube1 stays there).
      const { event: across } = await waitForAssigned(bus!, 'burst', { reason: 'ScaledUpAcross', timeoutMs: 60_000 });
      expect(across.moves).toEqual([{ from: 'kube1', to: 'kube2', replicas: 2 }]);
      expect(across.assignments).toEqual([
        { cluster: 'kube1', minReplicas: 2, maxReplicas: 4 },
        { cluster: 'kube2', minReplicas: 1, maxReplicas: 4 },
      ]);
      // kube1's member HPA is held to what fits: nothing pends any more. kube2's scales up within its new max.
      await eventually(
        async () => {
          const pods = (await podsOf(kube1(), 'burst')) ?? [];
          return pods.length === 4 && pods.every((p) => p.status.phase === 'Running') ? true : undefined;
        },
        60_000,
        '4 burst pods Running in kube1 and none Pending',
      );
      await eventually(
        async () => (((await memberReplicas(kube2(), 'burst')) ?? 0) > 1 ? true : undefined),
        90_000,
        'kube2 scales up',
      );
      // kube1, more preferred, is held at its replicas while kube2 is above its min.
      await eventually(
        async () => ((await limitsOf('burst'))?.kube1?.minReplicas === 4 ? true : undefined),
        30_000,
        'kube1 held at 4',
      );

      // Load falls everywhere. kube2, the least preferred, scales down first; while it is above its min, kube1 stays at 4
      // although its own HPA alone would go to 2. Then kube1 scales down, and a period after the move kube2's max goes
      // back to kube1.
      await kube1().setPodCpuUsage({ namespace: 'default', selector: 'app=burst', milliCpu: 100 });
      await kube2().setPodCpuUsage({ namespace: 'default', selector: 'app=burst', milliCpu: 50 });
      const kube1WhileKube2ScalesDown: number[] = [];
      const back = await eventually(
        async () => {
          const l = await limitsOf('burst');
          if (l?.kube2?.maxReplicas === 1) return l;
          const [one, two] = await Promise.all([memberReplicas(kube1(), 'burst'), memberReplicas(kube2(), 'burst')]);
          if (one !== undefined && two !== undefined && two > 1) kube1WhileKube2ScalesDown.push(one);
          return undefined;
        },
        120_000,
        'kube2 handed its max back',
      );
      expect(kube1WhileKube2ScalesDown.length).toBeGreaterThan(0);
      expect(Math.min(...kube1WhileKube2ScalesDown)).toBe(4);
      expect(back).toEqual({ kube1: { minReplicas: 2, maxReplicas: 7 }, kube2: { minReplicas: 1, maxReplicas: 1 } });
      await eventually(
        async () => ((await memberReplicas(kube1(), 'burst')) === 2 ? true : undefined),
        90_000,
        'kube1 scales down to its min once released',
      );
      expect(await memberReplicas(kube2(), 'burst')).toBe(1);
    },
    scaled(600_000),
  );

  it(
    'a member HPA created in a member cluster by hand, on a workload a FederatedHPA scales: the conflict is seen at once, and cleared when it goes',
    async () => {
      logOnFailure('owned');
      await apply(
        'owned',
        [
          deployment('owned', 1, '100m'),
          policyOn('owned', ['kube2'], '{ replicaSchedulingType: Duplicated }'),
          prioritizedFhpa('owned', { minReplicas: 1, maxReplicas: 2, delaySeconds: 10, clusters: ['kube2'] }),
        ].join('---\n'),
      );
      // Flotilla's own member HPA for it is there first (it carries the binding annotation: not foreign).
      await eventually(
        async () => ((await kube2().kubectl(['get', 'hpa', 'owned', '-n', 'default'])).code === 0 ? true : undefined),
        60_000,
        "Flotilla's member HPA in kube2",
      );
      // Someone with access to kube2 adds an HPA of their own on the same Deployment.
      const foreign = await kube2().kubectl(['apply', '-f', '-'], {
        input: `apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: { name: owned-local, namespace: default }
spec:
  scaleTargetRef: { apiVersion: apps/v1, kind: Deployment, name: owned }
  minReplicas: 1
  maxReplicas: 3
  metrics: [{ type: Resource, resource: { name: cpu, target: { type: Utilization, averageUtilization: 80 } } }]
`,
      });
      expect(foreign.code, foreign.stderr).toBe(0);
      // kube2's agent lists it in the Cluster's status, and only it (Flotilla's member HPA is not someone else's) ...
      const listed = await eventually(
        async () => {
          const hpas = (await getJson('cluster', 'kube2'))?.status?.foreignHorizontalPodAutoscalers as unknown[] | null;
          return hpas?.length ? hpas : undefined;
        },
        30_000,
        "kube2's foreign HPA in its Cluster status",
      );
      expect(listed).toEqual([
        {
          namespace: 'default',
          name: 'owned-local',
          scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'owned' },
          minReplicas: 1,
          maxReplicas: 3,
        },
      ]);
      // ... the hpa-assigner finds the conflict: the condition on the FederatedHPA, naming the member HPA ...
      const env = s!.env;
      const condition = await ownerCondition(env, 'fhpa', 'owned', 'True', 30_000);
      expect(condition).toMatchObject({ reason: 'ForeignMemberHPA' });
      expect(condition.message).toContain(
        'HorizontalPodAutoscaler kube2/default/owned-local (not created by Flotilla)',
      );
      // ... and a Warning on both objects, naming both.
      await describedWith(
        env,
        ['fhpa/owned', 'deploy/owned'],
        /Warning\s+ReplicaOwnerConflict.*HorizontalPodAutoscaler kube2\/default\/owned-local.*FederatedHPA default\/owned scales/,
        30_000,
      );

      // The member HPA is deleted: the condition clears, with a Normal event, and kube2 lists no foreign HPA.
      const deleted = await kube2().kubectl(['delete', 'hpa', 'owned-local', '-n', 'default']);
      expect(deleted.code, deleted.stderr).toBe(0);
      const cleared = await ownerCondition(env, 'fhpa', 'owned', 'False', 30_000);
      expect(cleared).toMatchObject({ reason: 'NoConflict' });
      await describedWith(env, ['fhpa/owned'], /Normal\s+ReplicaOwnerConflictResolved/, 30_000);
      expect((await getJson('cluster', 'kube2'))?.status).not.toHaveProperty('foreignHorizontalPodAutoscalers');
      // Flotilla's member HPA was never touched.
      expect((await kube2().kubectl(['get', 'hpa', 'owned', '-n', 'default'])).code).toBe(0);
    },
    scaled(180_000),
  );

  it(
    "Karmada's shipped FederatedHPA scales a workload on its pods' CPU usage from metrics.k8s.io",
    async () => {
      logOnFailure('web');
      await apply(
        'web',
        [
          deployment('web', 2, '100m'),
          evenlyDivided('web'),
          `apiVersion: autoscaling.karmada.io/v1alpha1
kind: FederatedHPA
metadata: { name: web, namespace: default }
spec:
  scaleTargetRef: { apiVersion: apps/v1, kind: Deployment, name: web }
  minReplicas: 2
  maxReplicas: 6
  metrics: [{ type: Resource, resource: { name: cpu, target: { type: Utilization, averageUtilization: 50 } } }]
  behavior: { scaleDown: { stabilizationWindowSeconds: 0 } }
`,
        ].join('---\n'),
      );
      await runningInBoth('web', 1);
      // Each pod uses all it asked for (100 % of its request, twice the target): the template goes to the max.
      for (const c of kube) await c.setPodCpuUsage({ namespace: 'default', selector: 'app=web', milliCpu: 100 });
      const busyAt = Date.now();
      await eventually(async () => ((await templateReplicas('web')) === 6 ? true : undefined), 120_000, 'web at 6');
      // The margin a busy machine leaves: metrics-server's two scrapes, the agents' metrics period, one FHPA sync.
      console.log(`web at 6 ${Date.now() - busyAt} ms after its pods' usage was set`);
      await runningInBoth('web', 3);
      // Idle (10 %): back to the min.
      for (const c of kube) await c.setPodCpuUsage({ namespace: 'default', selector: 'app=web', milliCpu: 10 });
      const idleAt = Date.now();
      await eventually(async () => ((await templateReplicas('web')) === 2 ? true : undefined), 120_000, 'web at 2');
      console.log(`web at 2 ${Date.now() - idleAt} ms after its pods' usage was set`);
      await runningInBoth('web', 1);
    },
    scaled(360_000),
  );

  it(
    'a CronFederatedHPA scales a workload on the kube clusters at its schedule',
    async () => {
      logOnFailure('nightly');
      await apply('nightly', [deployment('nightly', 2, '100m'), evenlyDivided('nightly')].join('---\n'));
      await runningInBoth('nightly', 1);
      // A whole second far enough ahead for the rule to be stored and timed first (6-field cron: seconds first).
      const at = new Date(Math.ceil((Date.now() + 15_000) / 1000) * 1000);
      const schedule = `${at.getUTCSeconds()} ${at.getUTCMinutes()} ${at.getUTCHours()} * * *`;
      await apply(
        'nightly-cron',
        `apiVersion: autoscaling.karmada.io/v1alpha1
kind: CronFederatedHPA
metadata: { name: nightly, namespace: default }
spec:
  scaleTargetRef: { apiVersion: apps/v1, kind: Deployment, name: nightly }
  rules:
    - { name: peak, schedule: "${schedule}", timeZone: UTC, targetReplicas: 6 }
`,
      );
      const done = await eventually(
        async () => {
          const h = (await getJson('cronfhpa', 'nightly'))?.status?.executionHistories as
            | Array<{
                ruleName: string;
                successfulExecutions?: Array<{ scheduleTime: string; appliedReplicas?: number }>;
              }>
            | undefined;
          return h?.find((x) => x.ruleName === 'peak')?.successfulExecutions?.[0];
        },
        60_000,
        'the rule ran',
      );
      expect(new Date(done.scheduleTime).getTime()).toBe(at.getTime());
      expect(done.appliedReplicas).toBe(6);
      expect(await templateReplicas('nightly')).toBe(6);
      await runningInBoth('nightly', 3);
    },
    scaled(180_000),
  );
});
