import { existsSync, readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, freeTcpPort } from '../index.js';
import { kubeBinDir } from './bin-dir.js';
import { type KubeCluster, readKubeClusterRecord, startKubeCluster } from './cluster.js';
import { isAlive } from './processes.js';
import { REAL_NODE_NAME, realNodeImage } from './real-node.js';

interface Pod {
  spec: { nodeName?: string };
  status: {
    phase: string;
    podIP?: string;
    conditions?: { type: string; status: string }[];
    containerStatuses?: { ready: boolean; restartCount: number; state: Record<string, unknown> }[];
  };
}

/** kubectl on the cluster; its stdout, or an error with its stderr. */
async function kubectlOk(cluster: KubeCluster, args: string[], input?: string): Promise<string> {
  const res = await cluster.kubectl(args, { input });
  if (res.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${res.stderr}`);
  return res.stdout;
}

// The pods below serve from /tmp inside their own container, not a folder of the machine (a /srv made there instead
// never became Ready when tried).
// A real kubelet with Debian's containerd and runc (scripts/kube-env build builds and installs them); without them
// this fails, it never skips. No played node (nodes: 0): whatever the scheduler places runs for real.
describe('a cluster with a real node', () => {
  let cluster: KubeCluster;
  /** The port the pod's server listens on (host networking: the machine's loopback). */
  let port: number;
  beforeAll(async () => {
    cluster = await startKubeCluster({ name: 'real-node-test', nodes: 0, realNode: true, pods: 20 });
    console.info(`cluster with a real node up (ms per step): ${JSON.stringify(cluster.timings)}`);
  }, 180_000);
  afterAll(() => cluster?.stop(), 60_000);

  const kubectl = (args: string[], input?: string) => kubectlOk(cluster, args, input);

  it('registers the node Ready, run by containerd', async () => {
    const node = JSON.parse(await kubectl(['get', 'node', REAL_NODE_NAME, '-o', 'json'])) as {
      status: {
        nodeInfo: { containerRuntimeVersion: string; kubeletVersion: string };
        conditions: { type: string; status: string }[];
        daemonEndpoints: { kubeletEndpoint: { Port: number } };
      };
    };
    expect(node.status.conditions.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(node.status.nodeInfo.containerRuntimeVersion).toMatch(/^containerd:\/\//);
    expect(node.status.nodeInfo.kubeletVersion).toMatch(/^v1\.\d+\.\d+$/);
  });

  it('runs a hostNetwork pod from a locally imported image until Running and Ready by its probe', async () => {
    const image = realNodeImage(kubeBinDir(), 'busybox');
    await cluster.importImage(image.archivePath);
    port = await freeTcpPort();
    const started = performance.now();
    await kubectl(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'web', namespace: 'default' },
        spec: {
          hostNetwork: true,
          containers: [
            {
              name: 'web',
              image: image.ref,
              imagePullPolicy: 'Never',
              command: [
                '/bin/sh',
                '-c',
                `echo serving on ${port}; echo hello from the real node > /tmp/index.html; ` +
                  `exec /bin/busybox httpd -f -p 127.0.0.1:${port} -h /tmp`,
              ],
              // The pod's IP is the node's (not loopback); the server listens on loopback only.
              readinessProbe: { httpGet: { host: '127.0.0.1', port, path: '/index.html' }, periodSeconds: 1 },
            },
          ],
        },
      }),
    );
    const pod = await eventually(
      async () => {
        const p = JSON.parse(await kubectl(['get', 'pod', 'web', '-o', 'json'])) as Pod;
        return p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? p : undefined;
      },
      90_000,
      'the pod to be Ready',
    );
    console.info(`hostNetwork pod Ready ${Math.round(performance.now() - started)} ms after it was created`);
    expect(pod.spec.nodeName).toBe(REAL_NODE_NAME);
    expect(pod.status.phase).toBe('Running');
    expect(pod.status.containerStatuses?.[0]).toMatchObject({ ready: true, restartCount: 0 });
    expect(pod.status.containerStatuses?.[0]?.state).toHaveProperty('running');
    // Host networking: the container's server answers on the machine's loopback.
    expect(await (await fetch(`http://127.0.0.1:${port}/index.html`)).text()).toBe('hello from the real node\n');
    // The API server reaches the kubelet (on loopback, as `localhost`) for the container's log.
    expect(await kubectl(['logs', 'web'])).toContain(`serving on ${port}`);
  }, 120_000);

  it("stops every process it started, the pod's included, and removes its cgroup and folder", async () => {
    const record = await readKubeClusterRecord(cluster.dir);
    const cgroup = record?.realNode?.cgroup;
    expect(cgroup).toBeDefined();
    const pids = Object.values(record?.pids ?? {});
    expect(Object.keys(record?.pids ?? {})).toEqual(expect.arrayContaining(['kubelet', 'containerd']));
    await cluster.stop();
    expect(pids.some(isAlive)).toBe(false);
    expect(existsSync(cluster.dir)).toBe(false);
    const hierarchies = readdirSync('/sys/fs/cgroup').map((h) => `/sys/fs/cgroup/${h}`);
    for (const hierarchy of ['/sys/fs/cgroup', ...hierarchies])
      expect(existsSync(`${hierarchy}/${cgroup}`), `${hierarchy}/${cgroup}`).toBe(false);
    // The pod's server ran in the node's cgroup: it is gone too.
    expect(await fetch(`http://127.0.0.1:${port}/index.html`).catch((err: Error) => err)).toBeInstanceOf(Error);
  }, 60_000);
});

// The pod network (podNetwork): pods on addresses of their own, two replicas of one Deployment on the one node, each
// reached from the node (probes, the API server's webhook calls) and from the other pod, and the API server reached
// from a pod at the network's gateway.
describe('a real node with a pod network', () => {
  let cluster: KubeCluster;
  beforeAll(async () => {
    cluster = await startKubeCluster({ name: 'pod-net-test', nodes: 0, realNode: true, podNetwork: true, pods: 20 });
  }, 180_000);
  afterAll(() => cluster?.stop(), 60_000);

  const kubectl = (args: string[], input?: string) => kubectlOk(cluster, args, input);

  it('runs two replicas on the one port, each on its own address, reached from the node and from each other', async () => {
    const network = cluster.podNetwork!;
    expect(network.subnet).toMatch(/^10\.244\.\d+\.0\/24$/);
    const image = realNodeImage(kubeBinDir(), 'busybox');
    await cluster.importImage(image.archivePath);
    const apiPort = new URL(cluster.server).port;
    await kubectl(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', namespace: 'default' },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: 'web' } },
          template: {
            metadata: { labels: { app: 'web' } },
            spec: {
              containers: [
                {
                  name: 'web',
                  image: image.ref,
                  imagePullPolicy: 'Never',
                  command: [
                    '/bin/sh',
                    '-c',
                    'hostname -i > /tmp/index.html; exec /bin/busybox httpd -f -p 8080 -h /tmp',
                  ],
                  ports: [{ containerPort: 8080 }],
                  readinessProbe: { httpGet: { port: 8080, path: '/index.html' }, periodSeconds: 1 },
                },
              ],
            },
          },
        },
      }),
    );
    const ips = await eventually(
      async () => {
        const list = JSON.parse(await kubectl(['get', 'pods', '-l', 'app=web', '-o', 'json'])) as { items: Pod[] };
        const ready = list.items.filter((p) =>
          p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
        );
        return ready.length === 2 ? ready.map((p) => p.status.podIP!) : undefined;
      },
      90_000,
      'two web pods Ready by their probes',
    );
    const prefix = network.gateway.replace(/\.1$/, '.');
    for (const ip of ips) {
      expect(ip.startsWith(prefix), ip).toBe(true);
      // From the node, as the kubelet's probes and the API server's webhook calls go.
      expect((await (await fetch(`http://${ip}:8080/index.html`)).text()).trim()).toBe(ip);
    }
    // From one pod to the other, and to the API server at the gateway (any answer over TLS: it is reached).
    const [first] = (
      JSON.parse(await kubectl(['get', 'pods', '-l', 'app=web', '-o', 'json'])) as {
        items: { metadata: { name: string } }[];
      }
    ).items;
    const fromPod = await kubectl([
      'exec',
      first!.metadata.name,
      '--',
      '/bin/busybox',
      'wget',
      '-q',
      '-O-',
      `http://${ips[1]}:8080/index.html`,
    ]);
    expect(fromPod.trim()).toBe(ips[1]);
    const reach = await cluster.kubectl([
      'exec',
      first!.metadata.name,
      '--',
      '/bin/sh',
      '-c',
      `echo | /bin/busybox nc -w 5 ${network.gateway} ${apiPort}`,
    ]);
    expect(reach.code, reach.stderr).toBe(0);
  }, 150_000);

  it('removes its bridge with the node', async () => {
    const bridge = cluster.podNetwork!.bridge;
    expect(existsSync(`/sys/class/net/${bridge}`)).toBe(true);
    await cluster.stop();
    expect(existsSync(`/sys/class/net/${bridge}`)).toBe(false);
  }, 60_000);
});
