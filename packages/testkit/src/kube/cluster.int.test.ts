import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../index.js';
import { type KubeCluster, startKubeCluster } from './cluster.js';

interface Pod {
  metadata: { name: string; labels?: Record<string, string> };
  spec: { nodeName?: string };
  status: { phase: string; conditions?: { type: string; status: string; reason?: string; message?: string }[] };
}

// Real etcd, kube-apiserver, kube-controller-manager, kube-scheduler and metrics-server, kubelets played by kwok
// (scripts/kube-env build); without them this fails, it never skips. One cluster for the whole file: two cores.
describe('a cluster with played nodes and metrics', () => {
  let cluster: KubeCluster;
  const ns = 'apps';
  beforeAll(async () => {
    cluster = await startKubeCluster({ name: 'work-test', nodes: 2, cpu: '2', memory: '4Gi', pods: 20, metrics: true });
    console.info(`cluster up (ms per step): ${JSON.stringify(cluster.timings)}`);
  }, 180_000);
  afterAll(() => cluster?.stop(), 60_000);

  const json = async <T>(args: string[]): Promise<T> => {
    const res = await cluster.kubectl([...args, '-o', 'json']);
    if (res.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${res.stderr}`);
    return JSON.parse(res.stdout) as T;
  };
  const apply = async (obj: unknown) => {
    const res = await cluster.kubectl(['apply', '-f', '-'], { input: JSON.stringify(obj) });
    if (res.code !== 0) throw new Error(`kubectl apply: ${res.stderr}`);
  };

  it('registers Ready nodes of the requested capacity', async () => {
    const nodes = await json<{
      items: {
        metadata: { name: string };
        status: { allocatable: Record<string, string>; conditions: { type: string; status: string }[] };
      }[];
    }>(['get', 'nodes']);
    expect(nodes.items.map((n) => n.metadata.name).sort()).toEqual(['work-test-node-1', 'work-test-node-2']);
    for (const node of nodes.items) {
      expect(node.status.allocatable).toMatchObject({ cpu: '2', memory: '4Gi', pods: '20' });
      expect(node.status.conditions.find((c) => c.type === 'Ready')?.status).toBe('True');
    }
  });

  it("runs a Deployment's pods on the played nodes, scheduled by the real kube-scheduler", async () => {
    const started = performance.now();
    await cluster.kubectl(['create', 'namespace', ns]);
    await apply({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: ns },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            containers: [{ name: 'web', image: 'nginx', resources: { requests: { cpu: '500m', memory: '64Mi' } } }],
          },
        },
      },
    });
    await eventually(
      async () => {
        const d = await json<{ status: { availableReplicas?: number } }>(['get', 'deployment', 'web', '-n', ns]);
        return d.status.availableReplicas === 3 ? true : undefined;
      },
      90_000,
      'the Deployment to have 3 available replicas',
    );
    console.info(`Deployment of 3 replicas available in ${Math.round(performance.now() - started)} ms`);
    const pods = await json<{ items: Pod[] }>(['get', 'pods', '-n', ns, '-l', 'app=web']);
    expect(pods.items).toHaveLength(3);
    for (const pod of pods.items) {
      expect(pod.status.phase).toBe('Running');
      expect(pod.spec.nodeName).toMatch(/^work-test-node-[12]$/);
      expect(pod.status.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    }
  });

  it('leaves a pod that fits on no node Pending, Unschedulable', async () => {
    await apply({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'huge', namespace: ns },
      spec: { containers: [{ name: 'huge', image: 'nginx', resources: { requests: { cpu: '3' } } }] },
    });
    const scheduled = await eventually(
      async () => {
        const pod = await json<Pod>(['get', 'pod', 'huge', '-n', ns]);
        return pod.status.conditions?.find((c) => c.type === 'PodScheduled');
      },
      60_000,
      'the scheduler to decide on the pod',
    );
    expect(scheduled).toMatchObject({ status: 'False', reason: 'Unschedulable' });
    expect(scheduled.message).toContain('Insufficient cpu');
    expect((await json<Pod>(['get', 'pod', 'huge', '-n', ns])).status.phase).toBe('Pending');
  });

  it('reports the pod CPU usage it was set to through metrics.k8s.io', async () => {
    await cluster.setPodCpuUsage({ namespace: ns, selector: 'app=web', milliCpu: 250 });
    const started = performance.now();
    const usage = await eventually(
      async () => {
        const res = await cluster.kubectl(['get', '--raw', `/apis/metrics.k8s.io/v1beta1/namespaces/${ns}/pods`]);
        if (res.code !== 0) return undefined;
        const list = JSON.parse(res.stdout) as {
          items: { metadata: { name: string }; containers: { usage: { cpu: string } }[] }[];
        };
        const cpus = list.items.map((p) => p.containers[0]?.usage.cpu ?? '');
        // metrics-server reports a rate over its last two scrapes: wait until both saw the new usage.
        const milli = cpus.map(toMilli);
        return milli.length === 3 && milli.every((m) => Math.abs(m - 250) <= 25) ? milli : undefined;
      },
      120_000,
      'metrics.k8s.io to report 250m for each web pod',
    );
    console.info(`pod metrics at the set usage after ${Math.round(performance.now() - started)} ms: ${usage}`);
    expect(usage).toHaveLength(3);
  }, 150_000);

  it('carries on after an API server outage: the nodes stay Ready and a scale-up runs its new pods', async () => {
    await cluster.stopApiServer();
    expect((await cluster.kubectl(['get', 'nodes', '--request-timeout=2s'])).code).not.toBe(0);
    await cluster.startApiServer();
    const scaled = await cluster.kubectl(['scale', 'deployment', 'web', '-n', ns, '--replicas=4']);
    expect(scaled.code).toBe(0);
    await eventually(
      async () => {
        const d = await json<{ status: { availableReplicas?: number } }>(['get', 'deployment', 'web', '-n', ns]);
        return d.status.availableReplicas === 4 ? true : undefined;
      },
      60_000,
      'the Deployment to have 4 available replicas after the outage',
    );
    const nodes = await json<{ items: { status: { conditions: { type: string; status: string }[] } }[] }>([
      'get',
      'nodes',
    ]);
    for (const node of nodes.items) expect(node.status.conditions.find((c) => c.type === 'Ready')?.status).toBe('True');
  }, 120_000);
});

/** '250m' → 250, '249876543n' → 249.9, '1' → 1000. */
function toMilli(q: string): number {
  const m = q.match(/^(\d+(?:\.\d+)?)(n|u|m)?$/);
  if (!m) return Number.NaN;
  const factor = { n: 1e-6, u: 1e-3, m: 1 }[m[2] as 'n' | 'u' | 'm'] ?? 1000;
  return Number(m[1]) * factor;
}
