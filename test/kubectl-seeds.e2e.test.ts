// End to end: each seed's worked example applied with kubectl to a host API server (a real kube-apiserver with
// deploy/crds/), mirrored into the running suite by the kube-bridge, and taking effect on two real member clusters,
// each joined by a kube member-agent: the steps of test/support/seed-steps.ts, with Flotilla's services as processes.
// Then a burst of 50 Deployments through kubectl.
import { join } from 'node:path';
import { eventually, measureCpuShare, testTimeScale, timeScaleForCpuShare } from '@flotilla/testkit';
import { type KubeCluster, startKubeCluster } from '@flotilla/testkit/kube';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { startKubeAgents, stopSuiteAndClusters } from './support/kube-e2e.js';
import { hostKubectl, seedSteps } from './support/seed-steps.js';
import { ROOT, type RunningSuite, startSuite } from './support/suite.js';

let host: KubeCluster | undefined;
const members: KubeCluster[] = [];
let s: RunningSuite | undefined;
const startedAt = Date.now();

const { kubectl, hostGet } = hostKubectl(() => host!);

beforeAll(async () => {
  // One control plane at a time for the host (it has no controllers: envtest's shape), then both members at once,
  // which is what two cores allow. Both members get 8 cpus and 64Gi, so that either alone holds every workload after a
  // failover: the scheduler estimates by Karmada's default resource models, which grade a node by the lower of its cpu
  // and memory grades (with 32Gi, 8 cpus with some in use count as [2,4) cores: room for 4 of web's pods, not 5).
  host = await startKubeCluster({ name: 'seeds-host', controlPlaneOnly: true });
  await kubectl(['apply', '-f', join(ROOT, 'deploy', 'crds')]);
  await host.waitCrdsEstablished();
  members.push(
    ...(await Promise.all(
      ['member1', 'member2'].map((name) => startKubeCluster({ name, nodes: 1, cpu: '8', memory: '64Gi', pods: 110 })),
    )),
  );
  // The default 10 s lease rather than the e2e suites' 2 s: with three control planes beside the suite on two cores,
  // the kube clients' event loops stall long enough to lose a 2 s lease over and over (each new term lists both sides
  // again), and no step here is about leader failover.
  s = await startSuite(
    ['gateway', 'status-writer', 'affinity-scheduler', 'cron-scheduler', 'hpa-assigner', 'rebalancer', 'kube-bridge'],
    {
      LEADER_LEASE_MS: '10000',
      FAILOVER_GRACE_MS: '1000',
      RESYNC_MS: '2000',
      KUBE_BRIDGE_KUBECONFIG: host.kubeconfigPath,
    },
    {},
    { readyTimeoutMs: 60_000 },
  );
  await startKubeAgents(s, members);
}, 300_000);

afterAll(async () => {
  try {
    await stopSuiteAndClusters(s, [...members, ...(host ? [host] : [])]);
  } finally {
    console.log(`kubectl seeds on real members: ${((Date.now() - startedAt) / 1000).toFixed(0)} s in all`);
  }
}, 120_000);

describe('the seeds through kubectl, on real member clusters', { timeout: 180_000 }, () => {
  const logsOnFailure = () =>
    onTestFailed(() => console.log(`the services' last output:\n${s!.logs.slice(-60).join('\n')}`));

  seedSteps({
    host: () => host!,
    member1: () => members[0]!,
    member2: () => members[1]!,
    onFailure: () => `the services' last output:\n${s!.logs.slice(-60).join('\n')}`,
  });

  it('50 Deployments applied with kubectl: 50 ScheduleBindingSucceed events on the host, each within 2 s and once', async () => {
    logsOnFailure();
    const names = Array.from({ length: 50 }, (_, i) => `burst-${i}`);
    const deployment = (name: string) => `apiVersion: apps/v1
kind: Deployment
metadata: { name: ${name}, namespace: default, labels: { burst: "yes" } }
spec:
  replicas: 1
  selector: { matchLabels: { app: ${name} } }
  template:
    metadata: { labels: { app: ${name} } }
    spec: { containers: [{ name: c, image: nginx, resources: { requests: { cpu: 10m, memory: 16Mi } } }] }
`;
    const policy = `apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: { name: burst, namespace: default }
spec:
  resourceSelectors: [{ apiVersion: apps/v1, kind: Deployment, labelSelector: { matchLabels: { burst: "yes" } } }]
  placement: { clusterAffinity: { clusterNames: [member1] } }
`;
    // Issue 24's 2 s, scaled for a busy machine as nats-node-kill's slack is: by the larger of the suite's factor and
    // the one measured now (1 on an idle machine, so the figure itself there). Beside two busy loops the worst event
    // came 2 s late, at the unscaled bound.
    const boundS = 2 * Math.max(testTimeScale(), timeScaleForCpuShare(measureCpuShare()));
    await kubectl(['apply', '-f', '-'], [policy, ...names.map(deployment)].join('---\n'));
    interface HostEvent {
      count: number;
      firstTimestamp: string;
      metadata: { creationTimestamp: string };
      involvedObject: { kind: string; name: string; uid?: string };
    }
    const events = await eventually(
      async () => {
        const list = JSON.parse(
          await kubectl([
            'get',
            'events',
            '-n',
            'default',
            '--field-selector',
            'reason=ScheduleBindingSucceed',
            '-o',
            'json',
          ]),
        ) as { items: HostEvent[] };
        const burst = list.items.filter(
          (e) => e.involvedObject.kind === 'ResourceBinding' && /^burst-\d+-deployment$/.test(e.involvedObject.name),
        );
        return burst.length >= names.length ? burst : undefined;
      },
      120_000,
      'a ScheduleBindingSucceed event on the host for each of the 50 bindings',
    );
    // Each once: one event per binding, counted once.
    expect(events.map((e) => e.involvedObject.name).sort()).toEqual(names.map((n) => `${n}-deployment`).sort());
    const late: number[] = [];
    const sinceDecision: number[] = [];
    for (const e of events) {
      expect(e.count).toBe(1);
      // On the host within 2 s of when it could be: of the decision, or of its binding reaching the host when that
      // came later (an event goes on the host object). Host times are whole seconds.
      const binding = await hostGet('rb', e.involvedObject.name);
      expect(e.involvedObject.uid).toBe(binding?.metadata?.uid);
      const written = Date.parse(e.metadata.creationTimestamp);
      const decided = Date.parse(e.firstTimestamp);
      const possible = Math.max(decided, Date.parse(binding!.metadata!.creationTimestamp!));
      late.push((written - possible) / 1000);
      sinceDecision.push((written - decided) / 1000);
    }
    const worst = (xs: number[]) => Math.max(...xs);
    console.log(
      `50 ScheduleBindingSucceed events: on the host at most ${worst(late)} s after the event and its binding were ` +
        `both there (bound ${boundS} s); ${worst(sinceDecision)} s at most after the decision (the binding's own ` +
        'trip included)',
    );
    expect(worst(late)).toBeLessThanOrEqual(boundS);
  });
});
