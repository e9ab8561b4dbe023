// The seeds' worked examples (examples/, one file per seed) applied with kubectl to a host API server and taking
// effect on two real member clusters (real control planes, kwok playing the kubelets), outcomes read back with kubectl
// on the host and against each member's own kubeconfig. The steps run in order and share the clusters: seed 003's
// placement, 001, 000, 002, then seed 003's failover (member1's API server stops) and seed 004's rebalance once it is
// back. One list of steps for every way Flotilla runs beside those clusters: processes (test/kubectl-seeds.e2e) and
// the Helm chart's pods on a real node (test/helm-real-node.e2e).
import { join } from 'node:path';
import { afterWholeSecond, eventually } from '@flotilla/testkit';
import type { KubeCluster } from '@flotilla/testkit/kube';
import { expect, it, onTestFailed } from 'vitest';
import { ROOT } from './suite.js';

const examples = join(ROOT, 'examples');

export interface KubeObject {
  metadata?: { annotations?: Record<string, string>; creationTimestamp?: string; uid?: string };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

async function run(cluster: KubeCluster, args: string[], input?: string): Promise<string> {
  const res = await cluster.kubectl(args, input === undefined ? {} : { input });
  if (res.code !== 0) throw new Error(`kubectl ${args.join(' ')} (${cluster.name}): ${res.stderr}`);
  return res.stdout;
}

/** An object read with kubectl from `cluster` (the host or a member), undefined while it does not exist. */
export async function getIn(
  cluster: KubeCluster,
  resource: string,
  name: string,
  namespace = 'default',
): Promise<KubeObject | undefined> {
  const res = await cluster.kubectl(['get', resource, name, '-n', namespace, '-o', 'json']);
  return res.code === 0 ? (JSON.parse(res.stdout) as KubeObject) : undefined;
}

/** kubectl against the host: `kubectl` fails on a non-zero exit with its stderr; `hostGet` reads one object. */
export function hostKubectl(host: () => KubeCluster) {
  return {
    kubectl: (args: string[], input?: string) => run(host(), args, input),
    hostGet: (resource: string, name: string, namespace = 'default') => getIn(host(), resource, name, namespace),
  };
}

type Targets = Array<{ name: string; replicas?: number }>;
const targetsOf = (rb: KubeObject | undefined): Targets =>
  ((rb?.spec?.clusters as Targets | undefined) ?? []).map(({ name, replicas }) => ({ name, replicas }));
const sum = (targets: Targets) => targets.reduce((n, t) => n + (t.replicas ?? 0), 0);

/** A member's Deployment once it asks for `replicas` and all of them are ready (kwok runs the pods). */
export const memberDeployment = (member: KubeCluster, name: string, replicas: number, timeoutMs = 60_000) =>
  eventually(
    async () => {
      const d = await getIn(member, 'deployment', name);
      return d?.spec?.replicas === replicas && (d.status?.readyReplicas ?? 0) === replicas ? d : undefined;
    },
    timeoutMs,
    `deployment ${name} with ${replicas} ready replicas in ${member.name}`,
  );
const goneFrom = (member: KubeCluster, name: string) =>
  eventually(
    async () => ((await member.kubectl(['get', 'deployment', name, '-n', 'default'])).code === 1 ? true : undefined),
    60_000,
    `deployment ${name} gone from ${member.name}`,
  );

/** `minute hour` of `at` on the wall clock of a zone with a fixed offset (Asia/Shanghai: +8 h, no DST). */
const wallClock = (at: Date, offsetHours: number) => {
  const local = new Date(at.getTime() + offsetHours * 3_600_000);
  return { second: local.getUTCSeconds(), minute: local.getUTCMinutes(), hour: local.getUTCHours() };
};

export interface SeedClusters {
  host: () => KubeCluster;
  /** Served by a kube member-agent each, empty until the first step joins them as Clusters member1 and member2. */
  member1: () => KubeCluster;
  member2: () => KubeCluster;
  /** What to print when a step fails: the services' last output, or the pods' states and logs. */
  onFailure?: () => string | Promise<string>;
}

/**
 * Registers the seed steps as tests of the calling `describe`, in order. Flotilla runs with a failover grace of about
 * a second and member-agents that see an API server gone within a few seconds (the e2e settings), so that seed 003's
 * failover fits the steps' minute.
 */
export function seedSteps(c: SeedClusters): void {
  const { kubectl, hostGet } = hostKubectl(c.host);
  const [member1, member2] = [c.member1, c.member2];
  const logsOnFailure = () => {
    const report = c.onFailure;
    if (report) onTestFailed(async () => console.log(await report()));
  };
  /** The binding on the host once `accept` holds for its target clusters. */
  const hostBinding = (name: string, accept: (t: Targets) => boolean, what: string, timeoutMs = 60_000) =>
    eventually(
      async () => {
        const rb = await hostGet('rb', name);
        return rb && accept(targetsOf(rb)) ? rb : undefined;
      },
      timeoutMs,
      `${what} (rb/${name} on the host)`,
    );
  /** `kubectl patch --type=json` of a host object in default: how a user edits one field of what they applied. */
  const jsonPatch = (resource: string, name: string, ops: Array<{ op: 'replace'; path: string; value: unknown }>) =>
    kubectl(['patch', resource, name, '-n', 'default', '--type=json', '-p', JSON.stringify(ops)]);
  /** The host's copy of a template once its `spec.replicas` is `replicas` (Flotilla's, written back by the bridge). */
  const hostReplicas = (name: string, replicas: number, timeoutMs = 60_000) =>
    eventually(
      async () => ((await hostGet('deployment', name))?.spec?.replicas === replicas ? true : undefined),
      timeoutMs,
      `deployment ${name} at ${replicas} replicas on the host`,
    );
  /** `kubectl wait --for=condition=Scheduled rb/NAME` on the host, once the bridge has written the binding there. */
  const waitScheduled = async (binding: string): Promise<void> => {
    await eventually(() => hostGet('rb', binding), 60_000, `rb/${binding} on the host`);
    await kubectl(['wait', '--for=condition=Scheduled', `rb/${binding}`, '-n', 'default', '--timeout=60s']);
  };

  it('joins both member clusters with kubectl, kubectl waits for them to be Ready, and applies the seeds', async () => {
    logsOnFailure();
    // examples/00-clusters.yaml's clusters are simulated; these two are the same Karmada Clusters without
    // `spec.simulation`, served by the kube member-agents.
    await kubectl(
      ['apply', '-f', '-'],
      `
apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata: { name: member1, labels: { location: beijing } }
spec: { syncMode: Push, region: cn-north, zone: cn-north-1a }
---
apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata: { name: member2, labels: { location: hongkong } }
spec: { syncMode: Push, region: ap-east, zone: ap-east-1a }
`,
    );
    for (const name of ['member1', 'member2'])
      await kubectl(['wait', '--for=condition=Ready', `cluster/${name}`, '--timeout=60s']);
    const joined = await hostGet('cluster', 'member1', '');
    expect(joined?.status?.kubernetesVersion).toMatch(/^v1\.\d+\.\d+/);
    expect((joined?.status?.resourceSummary as { allocatable?: unknown })?.allocatable).toMatchObject({ cpu: '8' });
    for (const file of [
      '10-nginx-ordered-groups.yaml',
      '20-web-divided.yaml',
      '30-web-cron.yaml',
      '40-shop-federated-hpa.yaml',
      '50-php-apache-effective-hpa.yaml',
    ])
      await kubectl(['apply', '-f', join(examples, file)]);
  });

  it('seed 003: the ordered groups fall through dc-shanghai and run nginx in dc-beijing (member1)', async () => {
    logsOnFailure();
    await waitScheduled('nginx-deployment');
    const rb = await hostBinding('nginx-deployment', (t) => t.length > 0, 'nginx scheduled');
    expect(targetsOf(rb)).toEqual([{ name: 'member1', replicas: 2 }]);
    expect(rb.status?.schedulerObservingAffinityName).toBe('dc-beijing');
    expect(await kubectl(['get', 'rb', 'nginx-deployment', '-n', 'default'])).toMatch(
      /^NAME\s+SCHEDULED\s+FULLYAPPLIED\s+PODSSCHEDULED\s+AGE\nnginx-deployment\s+True\s+/,
    );
    expect(await kubectl(['describe', 'rb', 'nginx-deployment', '-n', 'default'])).toMatch(
      /Scheduler Observing Affinity Name:\s+dc-beijing/,
    );
    await memberDeployment(member1(), 'nginx', 2);
    // Karmada's FULLYAPPLIED column: True once member1 reported nginx applied, written back to the host's rb.
    await eventually(
      async () =>
        /^nginx-deployment\s+True\s+True\s+/m.test(await kubectl(['get', 'rb', 'nginx-deployment', '-n', 'default']))
          ? true
          : undefined,
      30_000,
      'FULLYAPPLIED True on the host',
    );
    expect(await getIn(member2(), 'deployment', 'nginx')).toBeUndefined();
  });

  it('seed 001: the FederatedHPA runs a member HPA in each cluster with its static-weight share of min/max', async () => {
    logsOnFailure();
    await waitScheduled('shop-deployment');
    // Weights 1:2:3 over member1, member2, member3; member3 is not joined, so min 3 and max 12 split 1:2 between the
    // other two by largest remainder: member1 1..4, member2 2..8.
    const expected = { member1: { min: 1, max: 4 }, member2: { min: 2, max: 8 } };
    for (const [member, limits] of [
      [member1(), expected.member1],
      [member2(), expected.member2],
    ] as const) {
      const hpa = await eventually(
        async () => {
          const h = await getIn(member, 'hpa', 'shop');
          return h?.spec?.minReplicas === limits.min && h.spec.maxReplicas === limits.max ? h : undefined;
        },
        60_000,
        `hpa/shop in ${member.name} with min ${limits.min} and max ${limits.max}`,
      );
      expect(hpa.spec?.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'shop' });
      expect(hpa.spec?.metrics).toEqual([
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } },
      ]);
      // The member's own HPA controller owns the replicas now: whatever the scheduler's division gave this cluster,
      // it ends within the cluster's share (a cluster given fewer than its min is scaled up to it).
      await eventually(
        async () => {
          const d = await getIn(member, 'deployment', 'shop');
          const replicas = d?.spec?.replicas as number | undefined;
          return replicas !== undefined &&
            replicas >= limits.min &&
            replicas <= limits.max &&
            d?.status?.readyReplicas === replicas
            ? true
            : undefined;
        },
        60_000,
        `deployment shop in ${member.name} within ${limits.min}..${limits.max}, all ready`,
      );
    }
    // The host shows the assignment in the FederatedHPA's status, and kubectl get fhpa its columns.
    const fhpa = await eventually(
      async () => {
        const o = await hostGet('fhpa', 'shop');
        return (o?.status?.assignments as unknown[] | undefined)?.length === 2 ? o : undefined;
      },
      60_000,
      'the FederatedHPA assignments on the host',
    );
    expect(fhpa.status?.assignments).toEqual([
      expect.objectContaining({ cluster: 'member1', minReplicas: 1, maxReplicas: 4 }),
      expect.objectContaining({ cluster: 'member2', minReplicas: 2, maxReplicas: 8 }),
    ]);
    expect(await kubectl(['get', 'fhpa', 'shop', '-n', 'default'])).toMatch(
      /^NAME\s+REFERENCE-KIND\s+REFERENCE-NAME\s+MINPODS\s+MAXPODS\s+REPLICAS\s+AGE\nshop\s+Deployment\s+shop\s+3\s+12\s+/,
    );
  });

  it("seed 000: the CronFederatedHPA's rules wait for 08:00 and 20:00 in Shanghai; a rule due now scales web to 10 on both members", async () => {
    logsOnFailure();
    const next = await eventually(
      async () => {
        const o = await hostGet('cronfhpa', 'web-cron');
        const histories = o?.status?.executionHistories as
          | Array<{ ruleName: string; nextExecutionTime?: string }>
          | undefined;
        return histories?.length === 2 && histories.every((h) => h.nextExecutionTime) ? histories : undefined;
      },
      60_000,
      'the CronFederatedHPA status on the host',
    );
    // 08:00 and 20:00 Asia/Shanghai (UTC+8, no DST) are 00:00 and 12:00 UTC, on a weekday.
    for (const [rule, utcHour] of [
      ['scale-up', 0],
      ['scale-down', 12],
    ] as const) {
      const at = new Date(next.find((h) => h.ruleName === rule)!.nextExecutionTime!);
      expect([at.getUTCHours(), at.getUTCMinutes(), at.getUTCSeconds()]).toEqual([utcHour, 0, 0]);
      expect(at.getTime()).toBeGreaterThan(Date.now());
      expect(new Date(at.getTime() + 8 * 3_600_000).getUTCDay()).toBeGreaterThanOrEqual(1); // Monday to Friday there
      expect(new Date(at.getTime() + 8 * 3_600_000).getUTCDay()).toBeLessThanOrEqual(5);
    }
    await waitScheduled('web-deployment');

    // The scale-up rule moved to a second a few seconds from now, still on Shanghai's wall clock.
    const due = wallClock(new Date(Date.now() + 8_000), 8);
    await jsonPatch('cronfhpa', 'web-cron', [
      { op: 'replace', path: '/spec/rules/0/schedule', value: `${due.second} ${due.minute} ${due.hour} * * *` },
    ]);
    await eventually(
      async () => {
        const o = await hostGet('cronfhpa', 'web-cron');
        const up = (
          o?.status?.executionHistories as Array<{ ruleName: string; successfulExecutions?: unknown[] }> | undefined
        )?.find((h) => h.ruleName === 'scale-up');
        return up?.successfulExecutions?.length ? up : undefined;
      },
      60_000,
      'the scale-up execution recorded on the host',
    );
    // The template on the host, the binding and the members' Deployments all follow.
    await hostReplicas('web', 10);
    const rb = await hostBinding('web-deployment', (t) => sum(t) === 10 && t.length === 2, 'web divided 10 ways');
    for (const { name, replicas } of targetsOf(rb))
      await memberDeployment(name === 'member1' ? member1() : member2(), 'web', replicas!);
  });

  it("seed 002: the EffectiveHPA's cron window scales php-apache to its targetReplicas on member1", async () => {
    logsOnFailure();
    // The example's working-hours window moved to cover now (an hour either side, UTC), whatever the time of the run.
    const from = wallClock(new Date(Date.now() - 3_600_000), 0);
    const to = wallClock(new Date(Date.now() + 3_600_000), 0);
    await jsonPatch('ehpa', 'php-apache', [
      { op: 'replace', path: '/spec/crons/0/start', value: `${from.minute} ${from.hour} ? * *` },
      { op: 'replace', path: '/spec/crons/0/end', value: `${to.minute} ${to.hour} ? * *` },
    ]);
    await hostReplicas('php-apache', 4);
    await hostBinding('php-apache-deployment', (t) => JSON.stringify(t) === '[{"name":"member1","replicas":4}]', '4');
    await memberDeployment(member1(), 'php-apache', 4);
    const ehpa = await eventually(
      async () => {
        const o = await hostGet('ehpa', 'php-apache');
        return o?.status?.expectReplicas === 4 ? o : undefined;
      },
      60_000,
      'the EffectiveHPA status on the host',
    );
    expect(ehpa.status?.expectReplicas).toBe(4);
  });

  it("seed 003: member1's API server stops, and nginx fails over to dc-hongkong (member2), web with it", async () => {
    logsOnFailure();
    await member1().stopApiServer();
    const rb = await hostBinding(
      'nginx-deployment',
      (t) => JSON.stringify(t) === '[{"name":"member2","replicas":2}]',
      'nginx failed over to member2',
    );
    await eventually(
      async () =>
        (await hostGet('rb', 'nginx-deployment'))?.status?.schedulerObservingAffinityName === 'dc-hongkong'
          ? true
          : undefined,
      30_000,
      'nginx scheduled by the dc-hongkong group',
    );
    expect(rb).toBeDefined();
    await memberDeployment(member2(), 'nginx', 2);
    await hostBinding('web-deployment', (t) => JSON.stringify(t) === '[{"name":"member2","replicas":10}]', 'web');
    await memberDeployment(member2(), 'web', 10);
    await member1().startApiServer();
    await kubectl(['wait', '--for=condition=Ready', 'cluster/member1', '--timeout=60s']);
  });

  it('seed 004: the WorkloadRebalancer brings nginx back to member1 and divides web over both members again', async () => {
    logsOnFailure();
    // Steady scheduling leaves both where they are now that member1 is back.
    expect(targetsOf(await hostGet('rb', 'nginx-deployment'))).toEqual([{ name: 'member2', replicas: 2 }]);
    // Fresh needs a trigger strictly after lastScheduledTime (whole seconds, and the scheduling is done by now)
    await afterWholeSecond(Date.now());
    await kubectl(['apply', '-f', join(examples, '60-rebalance.yaml')]);
    const rebalancer = await eventually(
      async () => {
        const o = await hostGet('workloadrebalancer', 'demo', '');
        const observed = o?.status?.observedWorkloads as Array<{ result?: string }> | undefined;
        return observed?.length === 2 && observed.every((w) => w.result) ? o : undefined;
      },
      60_000,
      'the WorkloadRebalancer results on the host',
    );
    expect(rebalancer.status?.observedWorkloads).toEqual([
      expect.objectContaining({ workload: expect.objectContaining({ name: 'nginx' }), result: 'Successful' }),
      expect.objectContaining({ workload: expect.objectContaining({ name: 'web' }), result: 'Successful' }),
    ]);
    await hostBinding('nginx-deployment', (t) => JSON.stringify(t) === '[{"name":"member1","replicas":2}]', 'back');
    await waitScheduled('nginx-deployment');
    await memberDeployment(member1(), 'nginx', 2);
    await goneFrom(member2(), 'nginx');
    const web = await hostBinding('web-deployment', (t) => t.length === 2 && sum(t) === 10, 'web divided again');
    for (const { name, replicas } of targetsOf(web))
      await memberDeployment(name === 'member1' ? member1() : member2(), 'web', replicas!);
    // The trigger is the WorkloadRebalancer's creationTimestamp, the host's own: Flotilla's copy keeps the host
    // object's, so the two never differ by a second boundary crossed while mirroring.
    const created = (await hostGet('workloadrebalancer', 'demo', ''))?.metadata?.creationTimestamp;
    expect(created).toBeDefined();
    for (const name of ['nginx-deployment', 'web-deployment'])
      expect((await hostGet('rb', name))?.spec?.rescheduleTriggeredAt).toBe(created);
  });
}
