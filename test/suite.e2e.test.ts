// End to end: the real services as separate processes on real NATS and Redis, driven through the real CLI.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { eventually } from '@flotilla/testkit';
import { flotilla } from './support/cli.js';
import { afterPasses } from './support/metrics.js';
import { ROOT, startSuite, type RunningSuite } from './support/suite.js';

let s: RunningSuite;
const cli = (...args: string[]) => flotilla(s.env, args);
const example = (f: string) => join(ROOT, 'examples', f);

interface Binding {
  spec: { clusters?: Array<{ name: string; replicas?: number }> };
  status?: {
    schedulerObservingAffinityName?: string;
    conditions?: Array<{ type: string; status: string; reason?: string; message?: string }>;
    aggregatedStatus?: unknown[];
  };
}

async function getJson<T>(...args: string[]): Promise<T> {
  const r = await cli('get', ...args, '-o', 'json');
  if (r.code !== 0) throw new Error(r.err);
  return JSON.parse(r.out) as T;
}

/** Polls `get -o json` until `pick` returns something. */
function until<T, R>(args: string[], pick: (o: T) => R | undefined, what: string, timeoutMs = 20_000): Promise<R> {
  return eventually(async () => pick(await getJson<T>(...args)), timeoutMs, what);
}

beforeAll(async () => {
  s = await startSuite(['gateway', 'status-writer', 'member-agent', 'affinity-scheduler'], {
    FAILOVER_GRACE_MS: '1000',
    SIM_TICK_MS: '200',
    RESYNC_MS: '2000',
  });
}, 60_000);

afterAll(async () => {
  if (!s) return;
  const codes = await s.suite.stop();
  // every service stops cleanly on SIGTERM
  expect(Object.values(codes).every((c) => c === 0)).toBe(true);
  await s.stop();
});

describe('the suite with simulated member clusters', () => {
  it('applies the examples and reports the clusters Ready with their capacity', async () => {
    const clusters = await cli('apply', '-f', example('00-clusters.yaml'));
    expect(clusters.err).toBe('');
    expect(clusters.out.trim().split('\n')).toEqual([
      'cluster/member1 created',
      'cluster/member2 created',
      'cluster/member3 created',
    ]);
    for (const c of ['member1', 'member2', 'member3']) {
      const w = await cli('wait', '--for=condition=Ready', `cluster/${c}`, '--timeout', '20s');
      expect(w.out.trim()).toBe(`cluster/${c} condition met`);
    }
    // workloads after the clusters are Ready, so the first placement sees all three (Steady mode keeps it after);
    // web placed before nginx runs in member1, so its division does not depend on when member1 reports nginx's pods
    const web = await cli('apply', '-f', example('20-web-divided.yaml'));
    expect(web.err).toBe('');
    expect(web.out.trim().split('\n')).toEqual(['deployment/web created', 'propagationpolicy/web created']);
    await until<Binding, true>(
      ['rb', 'web-deployment'],
      (b) => ((b.spec.clusters?.length ?? 0) > 0 ? true : undefined),
      'web scheduled',
    );
    const nginx = await cli('apply', '-f', example('10-nginx-ordered-groups.yaml'));
    expect(nginx.err).toBe('');
    expect(nginx.out.trim().split('\n')).toEqual(['deployment/nginx created', 'propagationpolicy/nginx created']);
    const m1 = await getJson<{
      status: { kubernetesVersion: string; resourceSummary: { allocatable: Record<string, string> } };
    }>('cluster', 'member1');
    expect(m1.status.kubernetesVersion).toMatch(/^v1\./);
    expect(m1.status.resourceSummary.allocatable).toMatchObject({ pods: '110' });
    const table = await cli('get', 'clusters');
    expect(table.out).toMatch(/^NAME\s+VERSION\s+MODE\s+READY\s+AGE/);
    expect(table.out).toMatch(/member2\s+v1\.\S+\s+Push\s+True/);
  });

  it('the multiple scheduling groups proposal: skips the unavailable group and places nginx in dc-beijing, with the reason visible', async () => {
    const rb = await until<Binding, Binding>(
      ['rb', 'nginx-deployment'],
      (b) => (b.status?.schedulerObservingAffinityName ? b : undefined),
      'nginx scheduled',
    );
    expect(rb.spec.clusters).toEqual([{ name: 'member1', replicas: 2 }]);
    expect(rb.status?.schedulerObservingAffinityName).toBe('dc-beijing');
    expect(rb.status?.conditions?.find((c) => c.type === 'Scheduled')).toMatchObject({
      status: 'True',
      reason: 'Success',
    });
    const d = await cli('describe', 'rb', 'nginx-deployment');
    expect(d.out).toMatch(/ScheduleBindingSucceed/);
    expect(d.out).toMatch(/dc-beijing/);
  });

  it('divides web over three clusters of different capacity by available replicas', async () => {
    const rb = await until<Binding, Binding>(
      ['rb', 'web-deployment'],
      (b) => ((b.spec.clusters?.length ?? 0) > 0 ? b : undefined),
      'web scheduled',
    );
    // member1 is one node of 8 cpu / 32Gi, member2 4 / 16Gi, member3 2 / 8Gi. Their resource models (Karmada's
    // default grades) answer 8, 4 and 2 replicas of 0.5 cpu / 512Mi: the grade minimums of each node's free room, 4,
    // 2 and 1 cpu. 7 replicas divide 4 / 2 / 1 by dynamic weight. (Once nginx runs in member1 its free room falls a
    // grade, to 4 replicas, and the same 7 would divide 3 / 3 / 1: hence web is placed first.)
    expect(rb.spec.clusters).toEqual([
      { name: 'member1', replicas: 4 },
      { name: 'member2', replicas: 2 },
      { name: 'member3', replicas: 1 },
    ]);
    const reported = await until<Binding, unknown[]>(
      ['rb', 'web-deployment'],
      (b) =>
        (b.status?.aggregatedStatus?.length ?? 0) === (rb.spec.clusters?.length ?? -1)
          ? b.status!.aggregatedStatus
          : undefined,
      'workload status from every cluster',
    );
    expect(reported.length).toBe(rb.spec.clusters!.length);
  });

  it('fails member1: nginx moves to the next group; recovering member1 does not pull it back', async () => {
    expect((await cli('cluster', 'fail', 'member1')).code).toBe(0);
    await cli('wait', '--for=condition=Ready=False', 'cluster/member1', '--timeout', '20s');
    const moved = await until<Binding, Binding>(
      ['rb', 'nginx-deployment'],
      (b) =>
        b.spec.clusters?.[0]?.name === 'member2' && b.status?.schedulerObservingAffinityName === 'dc-hongkong'
          ? b
          : undefined,
      'failover to dc-hongkong',
    );
    expect(moved.spec.clusters).toEqual([{ name: 'member2', replicas: 2 }]);

    expect((await cli('cluster', 'recover', 'member1')).code).toBe(0);
    await cli('wait', '--for=condition=Ready', 'cluster/member1', '--timeout', '20s');
    await until<{ spec: { taints?: unknown[] } }, true>(
      ['cluster', 'member1'],
      (c) => (c.spec.taints === undefined ? true : undefined),
      'not-ready taint removed',
    );
    await afterPasses(s.suite, 'affinity-scheduler', 'scheduling'); // two resync passes over every binding
    expect((await getJson<Binding>('rb', 'nginx-deployment')).spec.clusters).toEqual([
      { name: 'member2', replicas: 2 },
    ]);
  });

  it('honours taints and tolerations', async () => {
    expect(
      (await cli('cluster', 'add', 'gpu1', '--sim', '--cpu', '4', '--taint', 'dedicated=ml:NoSchedule')).out.trim(),
    ).toBe('cluster/gpu1 created');
    await cli('wait', '--for=condition=Ready', 'cluster/gpu1', '--timeout', '20s');
    const manifest = (tolerate: boolean) => `
apiVersion: v1
kind: ConfigMap
metadata: { name: trainer, namespace: default }
data: { a: b }
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: { name: trainer, namespace: default }
spec:
  resourceSelectors: [{ apiVersion: v1, kind: ConfigMap, name: trainer }]
  placement:
    clusterAffinity: { clusterNames: [gpu1] }
${tolerate ? '    clusterTolerations: [{ key: dedicated, operator: Equal, value: ml, effect: NoSchedule }]' : ''}
`;
    await flotilla(s.env, ['apply', '-f', '-'], manifest(false));
    const failed = await until<Binding, Binding>(
      ['rb', 'trainer-configmap'],
      (b) => (b.status?.conditions?.some((c) => c.type === 'Scheduled' && c.status === 'False') ? b : undefined),
      'unschedulable without toleration',
    );
    expect(failed.status?.conditions?.find((c) => c.type === 'Scheduled')?.message).toMatch(/taint/i);
    await flotilla(s.env, ['apply', '-f', '-'], manifest(true));
    const placed = await until<Binding, Binding>(
      ['rb', 'trainer-configmap'],
      (b) => ((b.spec.clusters?.length ?? 0) > 0 ? b : undefined),
      'scheduled with toleration',
    );
    expect(placed.spec.clusters?.map((c) => c.name)).toEqual(['gpu1']);
  });

  it('streams every decision as CloudEvents', async () => {
    const r = await cli('events', '--for', 'rb/nginx-deployment', '-o', 'json');
    const envelopes = r.out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { specversion: string; type: string; subject: string });
    expect(envelopes.length).toBeGreaterThan(1);
    expect(
      envelopes.every((e) => e.specversion === '1.0' && e.subject === 'ResourceBinding/default/nginx-deployment'),
    ).toBe(true);
    expect(envelopes.map((e) => e.type)).toContain('io.flotilla.BindingScheduled');
  });

  it('answers bad input with clear errors on stderr and stores nothing', async () => {
    const before = await getJson<{ apiVersion: string; kind: string; items: unknown[] }>('deploy');
    expect(before).toMatchObject({ apiVersion: 'v1', kind: 'List' });
    expect(before.items).toHaveLength(2);
    const malformed = await flotilla(
      s.env,
      ['apply', '-f', '-'],
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: [oops\n',
    );
    expect(malformed.code).toBe(1);
    expect(malformed.err).toMatch(/document 1/i);
    const noKind = await flotilla(s.env, ['apply', '-f', '-'], 'apiVersion: apps/v1\nmetadata: { name: x }\n');
    expect(noKind.code).toBe(1);
    expect(noKind.err).toMatch(/kind/);
    const unknownKind = await cli('get', 'gizmos');
    expect(unknownKind.code).toBe(1);
    expect(unknownKind.err).toMatch(/gizmos/);
    const bothAffinities = await flotilla(
      s.env,
      ['apply', '-f', '-'],
      'apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: { name: bad, namespace: default }\nspec:\n  resourceSelectors: [{ apiVersion: apps/v1, kind: Deployment, name: x }]\n  placement:\n    clusterAffinity: { clusterNames: [a] }\n    clusterAffinities: [{ affinityName: g, clusterNames: [a] }]\n',
    );
    expect(bothAffinities.code).toBe(1);
    expect(bothAffinities.err).toMatch(/spec\.placement/);
    const huge = await flotilla(
      s.env,
      ['apply', '-f', '-'],
      `apiVersion: v1\nkind: ConfigMap\nmetadata: { name: huge, namespace: default }\ndata: { blob: "${'x'.repeat(2 * 1024 * 1024)}" }\n`,
    );
    expect(huge.code).toBe(1);
    expect(huge.err).toMatch(/configmap\/huge: object is too large/);
    const wrongType = await flotilla(
      s.env,
      ['apply', '-f', '-'],
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: web, namespace: default }\nspec: { replicas: many }\n',
    );
    expect(wrongType.code).toBe(1);
    expect(wrongType.err).toMatch(/spec\.replicas/);
    expect(await getJson<{ items: unknown[] }>('deploy')).toEqual(before);
    expect((await cli('get', 'cm', 'huge')).code).toBe(1);
    expect((await cli('get', 'pp', 'bad')).code).toBe(1);
  });
});
