import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { main } from './main.js';
import type { CliIo } from './context.js';

const path = (p: string) => fileURLToPath(new URL(p, import.meta.url));

async function run(args: string[], stdin = '') {
  let out = '';
  let err = '';
  const io: CliIo = {
    out: (t) => {
      out += `${t}\n`;
    },
    err: (t) => {
      err += `${t}\n`;
    },
    readStdin: async () => stdin,
    now: () => new Date('2026-01-01T00:00:00Z'),
    env: {},
  };
  const code = await main(args, io);
  return { code, out, err };
}

describe('flotilla what-if schedule (offline)', () => {
  it("explains that the examples' simulated clusters have no status offline, and how to give them one", async () => {
    const r = await run(['what-if', 'schedule', '-f', path('../../../examples/'), '--now', '2026-01-01T00:00:00Z']);
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/clusters member1, member2, member3 have no status/);
    expect(r.err).toMatch(/spec\.simulation is played by the member agent of a running suite/);
    expect(r.err).toMatch(/status filled in by hand/);
    expect(r.err).toMatch(/README's "Planning offline"/);
  });

  it('warns about the clusters without status when others have one, and schedules on those', async () => {
    const extra = [
      'apiVersion: cluster.karmada.io/v1alpha1',
      'kind: Cluster',
      'metadata: {name: member9}',
      'spec: {simulation: {allocatable: {cpu: "8", memory: 32Gi, pods: "110"}}}',
    ].join('\n');
    const file = path('../../scheduling/src/testdata/ordered-groups.yaml');
    const r = await run(
      ['what-if', 'schedule', '-f', file, '-f', '-', '-o', 'json', '--now', '2026-01-01T00:00:00Z'],
      extra,
    );
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/warning: cluster member9 has no status/);
    expect(JSON.parse(r.out).items.length).toBeGreaterThan(0);
  });

  it('prints the binding the scheduler would write for the sample of the multiple scheduling groups proposal, as a List, with the observed group', async () => {
    const r = await run([
      'what-if',
      'schedule',
      '-f',
      path('../../scheduling/src/testdata/ordered-groups.yaml'),
      '-o',
      'json',
      '--now',
      '2026-01-01T00:00:00Z',
    ]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const list = JSON.parse(r.out) as {
      kind: string;
      items: Array<{
        metadata: { name: string };
        spec: { clusters: unknown };
        status: { schedulerObservingAffinityName: string; lastScheduledTime: string };
      }>;
    };
    expect(list.kind).toBe('List');
    const nginx = list.items.find((i) => i.metadata.name === 'nginx-deployment')!;
    expect(nginx.spec.clusters).toEqual([{ name: 'member1', replicas: 2 }]);
    expect(nginx.status.schedulerObservingAffinityName).toBe('dc-beijing');
    expect(nginx.status.lastScheduledTime).toBe('2026-01-01T00:00:00Z');
  });

  it('keeps a stored Divided binding that nothing asks to reschedule, and schedules it once its replicas change', async () => {
    const placement =
      '{"clusterAffinity":{"labelSelector":{"matchLabels":{"pool":"a"}}},"replicaScheduling":{"replicaSchedulingType":"Divided","replicaDivisionPreference":"Aggregated"}}';
    const cluster = (name: string, pool: string) => `
apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata: { name: ${name}, labels: { pool: ${pool} } }
spec: { provider: private }
status: { conditions: [{ type: Ready, status: "True" }], resourceSummary: { allocatable: { cpu: "8", pods: "110" } } }
---`;
    const file = (replicas: number) => `${cluster('m1', 'a')}${cluster('m2', 'b')}
apiVersion: apps/v1
kind: Deployment
metadata: { name: web, namespace: default, uid: 4858ca61-3ff8-4095-8267-f3d059d8074c }
spec: { replicas: ${replicas}, selector: { matchLabels: { app: web } }, template: { metadata: { labels: { app: web } }, spec: { containers: [{ name: c, image: nginx }] } } }
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: { name: web, namespace: default }
spec:
  resourceSelectors: [{ apiVersion: apps/v1, kind: Deployment, name: web }]
  placement: ${placement}
---
apiVersion: work.karmada.io/v1alpha2
kind: ResourceBinding
metadata:
  name: web-deployment
  namespace: default
  generation: 4
  annotations: { policy.karmada.io/applied-placement: '${placement}', propagationpolicy.karmada.io/name: web, propagationpolicy.karmada.io/namespace: default }
spec:
  resource: { apiVersion: apps/v1, kind: Deployment, namespace: default, name: web, uid: 4858ca61-3ff8-4095-8267-f3d059d8074c }
  replicas: 4
  placement: ${placement}
  clusters: [{ name: m1, replicas: 3 }, { name: m2, replicas: 1 }]
status: { schedulerObservedGeneration: 4, lastScheduledTime: "2025-12-31T00:00:00Z" }
`;
    type Item = {
      metadata: { generation: number };
      spec: { clusters: unknown };
      status: { schedulerObservedGeneration: number; lastScheduledTime: string };
    };
    const printed = async (replicas: number) => {
      const r = await run(
        ['what-if', 'schedule', '-f', '-', '-o', 'json', '--now', '2026-01-01T00:00:00Z'],
        file(replicas),
      );
      expect(r.err).toBe('');
      return (JSON.parse(r.out) as { items: Item[] }).items[0]!;
    };
    // m2 no longer matches the affinity, but that is no reason to schedule: the binding stands as stored
    const kept = await printed(4);
    expect([kept.spec.clusters, kept.metadata.generation, kept.status]).toEqual([
      [
        { name: 'm1', replicas: 3 },
        { name: 'm2', replicas: 1 },
      ],
      4,
      { schedulerObservedGeneration: 4, lastScheduledTime: '2025-12-31T00:00:00Z' },
    ]);
    // scaled to 5: a reason to schedule; m2 no longer matches the affinity, so m1 holds all the replicas
    const scaled = await printed(5);
    expect(scaled.spec.clusters).toEqual([{ name: 'm1', replicas: 5 }]);
    expect(scaled.status).toMatchObject({ schedulerObservedGeneration: 6, lastScheduledTime: '2026-01-01T00:00:00Z' });
  });

  it("overflowAffinities: Karmada v1.18's answer, the term observed, and which tier each cluster came from", async () => {
    const file = path('../../scheduling/src/testdata/overflow.yaml');
    const r = await run(['what-if', 'schedule', '-f', file, '-o', 'json', '--now', '2026-01-01T00:00:00Z']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.out);
    // 5 replicas: member1 (on-prem) holds 2, the 3 more overflow to member2; member3 is in no tier.
    expect(out.items[0].spec.clusters).toEqual([
      { name: 'member1', replicas: 2 },
      { name: 'member2', replicas: 3 },
    ]);
    expect(out.items[0].status.schedulerObservingAffinityName).toBe('on-prem');
    expect(out.tiers).toEqual([
      {
        binding: 'ResourceBinding default/inference-deployment',
        clusters: { member1: 'on-prem', member2: 'public-cloud' },
      },
    ]);
    // Without overflow the List is exactly as before: no tiers key.
    const plain = await run([
      'what-if',
      'schedule',
      '-f',
      path('../../scheduling/src/testdata/ordered-groups.yaml'),
      '-o',
      'json',
      '--now',
      '2026-01-01T00:00:00Z',
    ]);
    expect(Object.keys(JSON.parse(plain.out))).not.toContain('tiers');
  });

  it('resource models: 5-cpu pods on 4-cpu nodes are Unschedulable with the reason, 2-cpu pods are placed', async () => {
    const file = path('../../scheduling/src/testdata/resource-models.yaml');
    const r = await run(['what-if', 'schedule', '-f', file, '-o', 'json', '--now', '2026-01-01T00:00:00Z']);
    expect(r.err).toBe('');
    type Item = {
      metadata: { name: string };
      spec: { clusters: unknown };
      status: { conditions: Array<{ type: string; status: string; reason: string; message: string }> };
    };
    const items = (JSON.parse(r.out) as { items: Item[] }).items;
    const big = items.find((i) => i.metadata.name === 'big-deployment')!;
    expect(big.spec.clusters).toEqual([]);
    expect(big.status.conditions.find((c) => c.type === 'Scheduled')).toMatchObject({
      status: 'False',
      reason: 'Unschedulable',
      message: expect.stringMatching(/^Clusters available replicas 0 are not enough to schedule\./),
    });
    expect(items.find((i) => i.metadata.name === 'small-deployment')!.spec.clusters).toEqual([
      { name: 'member1', replicas: 2 },
      { name: 'member2', replicas: 2 },
    ]);
  });

  it('fails on an invalid object with the admission field path', async () => {
    const bad =
      'apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: { name: p, namespace: default }\nspec:\n  resourceSelectors: [{ apiVersion: apps/v1, kind: Deployment }]\n  placement:\n    clusterAffinities: [{ affinityName: "", clusterNames: [a] }]\n';
    const r = await run(['what-if', 'schedule', '-f', '-'], bad);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/spec\.placement\.clusterAffinities\[0\]\.affinityName/);
  });
});

describe('flotilla what-if cron (offline)', () => {
  it('gives the CronFederatedHPA proposal\'s example: "3 * * * *" applied at 9:04 next fires at 10:03, and lists the executions in the window', async () => {
    const r = await run([
      'what-if',
      'cron',
      '-f',
      path('./testdata/cron.yaml'),
      '--now',
      '2026-03-02T09:04:00Z',
      '--until',
      '2026-03-03T00:30:00Z',
      '-o',
      'json',
    ]);
    expect(r.err).toBe('');
    const out = JSON.parse(r.out) as {
      kind: string;
      items: Array<{
        metadata: { name: string };
        status: { executionHistories: Array<{ ruleName: string; nextExecutionTime: string }> };
      }>;
      executions: Array<Record<string, unknown>>;
    };
    expect(out.kind).toBe('List');
    const web = out.items.find((i) => i.metadata.name === 'web-cron')!;
    expect(web.status.executionHistories).toEqual([
      { ruleName: 'hourly', nextExecutionTime: '2026-03-02T10:03:00Z' },
      // 08:00 in Shanghai is 00:00 UTC
      { ruleName: 'shanghai-morning', nextExecutionTime: '2026-03-03T00:00:00Z' },
    ]);
    expect(out.executions.filter((e) => e.ruleName === 'hourly')).toHaveLength(15);
    expect(out.executions).toContainEqual({
      ruleName: 'shanghai-morning',
      scheduleTime: '2026-03-03T00:00:00Z',
      targetReplicas: 10,
    });
    expect(out.executions).toContainEqual({
      ruleName: 'raise-floor',
      scheduleTime: '2026-03-02T09:30:00Z',
      targetMinReplicas: 4,
    });
  });

  it('applied at 9:01 the same rule fires at 9:03', async () => {
    const r = await run(['what-if', 'cron', '-f', path('./testdata/cron.yaml'), '--now', '2026-03-02T09:01:00Z']);
    expect(r.out).toMatch(/web-cron\s+hourly\s+2026-03-02T09:03:00Z/);
  });

  it('rejects an invalid schedule with the admission field path, and a bad --now', async () => {
    const bad =
      'apiVersion: autoscaling.karmada.io/v1alpha1\nkind: CronFederatedHPA\nmetadata: { name: c, namespace: default }\nspec:\n  scaleTargetRef: { apiVersion: apps/v1, kind: Deployment, name: w }\n  rules: [{ name: r, schedule: "61 * * * *", targetReplicas: 1 }]\n';
    const r = await run(['what-if', 'cron', '-f', '-', '--now', '2026-03-02T09:01:00Z'], bad);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/spec\.rules\[0\]\.schedule: invalid cron expression "61 \* \* \* \*"/);
    const when = await run(['what-if', 'cron', '-f', path('./testdata/cron.yaml'), '--now', 'yesterday']);
    expect(when.code).toBe(1);
    expect(when.err).toMatch(/--now/);
  });
});

describe('flotilla what-if rebalance (offline)', () => {
  it("-o json: exactly the List, deleted and requeueAfterSeconds, with Karmada's status and the binding written", async () => {
    const r = await run([
      'what-if',
      'rebalance',
      '-f',
      path('./testdata/rebalance.yaml'),
      '--now',
      '2024-04-17T15:04:06Z',
      '-o',
      'json',
    ]);
    expect(r.err).toBe('');
    const out = JSON.parse(r.out) as {
      items: Array<{
        kind: string;
        metadata: { name: string };
        status?: { observedWorkloads: Array<{ result: string }> };
      }>;
    };
    expect(Object.keys(out)).toEqual(['apiVersion', 'kind', 'items', 'deleted', 'requeueAfterSeconds']);
    expect(out).toMatchObject({ apiVersion: 'v1', kind: 'List', deleted: false, requeueAfterSeconds: 60 });
    expect(out.items.map((i) => `${i.kind}/${i.metadata.name}`)).toEqual([
      'WorkloadRebalancer/demo',
      'ResourceBinding/demo-deploy-1-deployment',
    ]);
    expect(out.items[0]!.status!.observedWorkloads.map((w) => w.result)).toEqual([
      'Successful',
      'Failed',
      'Successful',
    ]);
  });

  it('past the TTL of a finished rebalancer: deleted, requeueAfterSeconds null', async () => {
    const first = await run([
      'what-if',
      'rebalance',
      '-f',
      path('./testdata/rebalance.yaml'),
      '--now',
      '2024-04-17T15:04:06Z',
      '-o',
      'yaml',
    ]);
    const again = await run(
      ['what-if', 'rebalance', '-f', '-', '--now', '2024-04-17T15:05:06Z', '-o', 'json'],
      first.out,
    );
    expect(again.err).toBe('');
    expect(JSON.parse(again.out)).toMatchObject({ deleted: true, requeueAfterSeconds: null });
  });

  it('prints a table by default', async () => {
    const r = await run([
      'what-if',
      'rebalance',
      '-f',
      path('./testdata/rebalance.yaml'),
      '--now',
      '2024-04-17T15:04:06Z',
    ]);
    expect(r.out).toMatch(/Deployment\/default\/demo-deploy-2\s+Failed\s+ReferencedBindingNotFound/);
    expect(r.out).toContain(
      'writes ResourceBinding default/demo-deploy-1-deployment: rescheduleTriggeredAt 2024-04-17T15:04:05Z',
    );
    expect(r.out).toContain('deleted: no (TTL runs out in 60s)');
  });

  it('rejects a rebalancer without workloads with the admission field path, and a missing --now', async () => {
    const bad =
      'apiVersion: apps.karmada.io/v1alpha1\nkind: WorkloadRebalancer\nmetadata: { name: r }\nspec: { workloads: [] }\n';
    const r = await run(['what-if', 'rebalance', '-f', '-', '--now', '2026-01-01T00:00:00Z'], bad);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/spec\.workloads: Invalid value: must have at least 1 item/);
    expect((await run(['what-if', 'rebalance', '-f', path('./testdata/rebalance.yaml')])).code).toBe(1);
  });
});

describe('flotilla what-if fhpa (offline)', () => {
  const example = path('../../assignment/src/testdata/what-if-fhpa.yaml');

  it('prints the binding after the assignment as a List, and one assignment per member HPA', async () => {
    const r = await run(['what-if', 'fhpa', '-f', example, '-o', 'json', '--now', '2026-01-01T00:00:00Z']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.out) as {
      apiVersion: string;
      kind: string;
      items: Array<{
        kind: string;
        metadata: { name: string; annotations: Record<string, string> };
        spec: { clusters: unknown };
      }>;
      assignments: unknown;
    };
    expect(Object.keys(out)).toEqual(['apiVersion', 'kind', 'items', 'assignments']);
    expect([out.apiVersion, out.kind, out.items.length]).toEqual(['v1', 'List', 1]);
    // StaticWeighted 1:2:3 of min 3 / max 12
    expect(out.assignments).toEqual([
      { cluster: 'member1', minReplicas: 1, maxReplicas: 2 },
      { cluster: 'member2', minReplicas: 1, maxReplicas: 4 },
      { cluster: 'member3', minReplicas: 1, maxReplicas: 6 },
    ]);
    const binding = out.items[0]!;
    expect(binding.kind).toBe('ResourceBinding');
    expect(binding.metadata.name).toBe('shop-deployment');
    expect(binding.metadata.annotations['autoscaling.flotilla.io/federated-hpa']).toBe('shop');
    // the scheduler's Aggregated division put the 6 replicas on one cluster; each is now clamped into its member HPA
    const clusters = binding.spec.clusters as Array<{ name: string; replicas: number }>;
    expect(clusters.map((c) => c.name)).toEqual(['member1', 'member2', 'member3']);
    expect(clusters.every((c, i) => c.replicas >= 1 && c.replicas <= [2, 4, 6][i]!)).toBe(true);
  });

  it('takes a given binding as it stands and prints YAML by default', async () => {
    const binding = `
---
apiVersion: work.karmada.io/v1alpha2
kind: ResourceBinding
metadata: { name: shop-deployment, namespace: default }
spec:
  resource: { apiVersion: apps/v1, kind: Deployment, namespace: default, name: shop }
  clusters: [{ name: member1, replicas: 2 }, { name: member2, replicas: 5 }]
`;
    const { readFile } = await import('node:fs/promises');
    const text = (await readFile(example, 'utf8')) + binding;
    const r = await run(['what-if', 'fhpa', '-f', '-', '--now', '2026-01-01T00:00:00Z'], text);
    expect(r.err).toBe('');
    expect(r.out).toContain('kind: List');
    expect(r.out).toMatch(/assignments:\n {2}- cluster: member1\n {4}minReplicas: 1\n {4}maxReplicas: 2/);
    // member2 runs 5 and its member HPA allows up to 4
    expect(r.out).toMatch(/- name: member2\n\s+replicas: 4/);
  });

  it('refuses a FederatedHPA without an assignment, naming the field', async () => {
    const { readFile } = await import('node:fs/promises');
    const text = (await readFile(example, 'utf8')).replace(/ {2}federatedHPAAssignment:[\s\S]*$/, '');
    const r = await run(['what-if', 'fhpa', '-f', '-', '-o', 'json'], text);
    expect(r.code).not.toBe(0);
    expect(r.err).toContain('spec.federatedHPAAssignment');
  });
});
