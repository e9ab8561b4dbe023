// What the kube end-to-end tests share: member-agents with the kube driver for each member cluster, and reading
// where a binding placed a workload and what runs in a member cluster.
import type { ServiceProcess } from '@flotilla/launcher';
import { eventually } from '@flotilla/testkit';
import { flotilla } from './cli.js';
import { placementPolicy } from './fhpa.js';
import type { RunningSuite } from './suite.js';

export { scrapedSum } from './metrics.js';

export type Targets = Array<{ name: string; replicas?: number }>;

/** What the helpers need of a member cluster (test/support/member-clusters.ts, @flotilla/testkit/kube). */
interface Member {
  readonly name: string;
  readonly kubeconfigPath: string;
  kubectl(args: string[], opts?: { input?: string }): Promise<{ stdout: string; stderr: string; code: number }>;
}

/** Short periods: the tests see a change within a second or two. */
export const KUBE_AGENT_ENV = {
  MEMBER_DRIVER: 'kube',
  KUBE_POLL_MS: '500',
  KUBE_FAILURE_THRESHOLD_MS: '2000',
  KUBE_SUCCESS_THRESHOLD_MS: '2000',
  KUBE_RESYNC_MS: '2000',
} as const;

/**
 * Starts one member-agent with the kube driver per cluster, in order; a failure carries the services' last output.
 * Resolves with their processes (`httpPort` serves each one's /metrics).
 */
export async function startKubeAgents(
  s: RunningSuite,
  clusters: readonly Member[],
  env: Record<string, string> = {},
): Promise<ServiceProcess[]> {
  const agents: ServiceProcess[] = [];
  for (const c of clusters)
    agents.push(
      await s.suite
        .startService('member-agent', {
          ...KUBE_AGENT_ENV,
          KUBE_CLUSTER_NAME: c.name,
          KUBECONFIG: c.kubeconfigPath,
          ...env,
        })
        .catch((err: unknown) => {
          throw new Error(`${(err as Error).message}\n${s.logs.slice(-30).join('\n')}`);
        }),
    );
  return agents;
}

/**
 * Stops the suite (every service must exit cleanly), then the member clusters, whatever happened before: a kube
 * end-to-end file's afterAll.
 */
export async function stopSuiteAndClusters(
  s: RunningSuite | undefined,
  clusters: ReadonlyArray<{ stop(): Promise<void> }>,
): Promise<void> {
  try {
    if (s) {
      const codes = await s.suite.stop();
      await s.stop();
      const unclean = Object.entries(codes).filter(([, c]) => c !== 0);
      if (unclean.length) throw new Error(`services exited uncleanly: ${JSON.stringify(Object.fromEntries(unclean))}`);
    }
  } finally {
    await Promise.all(clusters.map((c) => c.stop()));
  }
}

/** A PropagationPolicy placing Deployment `name` on `clusters` with this replicaScheduling (flow YAML). */
export const policyOn = (name: string, clusters: readonly string[], replicaScheduling: string) =>
  placementPolicy(name, `{ clusterNames: [${clusters.join(', ')}] }`, `replicaScheduling: ${replicaScheduling}`);

/** Cluster objects for `clusters`, Push mode (their member-agents report their status). */
export const pushClusters = (names: readonly string[]) =>
  names
    .map(
      (name) => `apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata: { name: ${name} }
spec: { syncMode: Push }
`,
    )
    .join('---\n');

/** A binding's spec.clusters as the CLI prints it. */
export async function clustersOf(env: Record<string, string>, binding: string): Promise<Targets> {
  const r = await flotilla(env, ['get', 'rb', binding, '-o', 'json']);
  if (r.code !== 0) throw new Error(r.err);
  return ((JSON.parse(r.out) as { spec: { clusters?: Targets } }).spec.clusters ?? []) as Targets;
}

/** Resolves once the binding places the workload exactly as `expected`. */
export const placed = (
  env: Record<string, string>,
  binding: string,
  expected: Targets,
  what: string,
  timeoutMs = 30_000,
) =>
  eventually(
    async () => {
      const c = await clustersOf(env, binding).catch(() => []);
      return JSON.stringify(c) === JSON.stringify(expected) ? c : undefined;
    },
    timeoutMs,
    `${what}: ${JSON.stringify(expected)}`,
  );

export interface KubePod {
  metadata: { name: string };
  status: { phase: string; conditions?: Array<{ type: string; status: string; reason?: string }> };
}

/** The pods labelled app=`app` in a member cluster's default namespace. */
export async function podsOf(cluster: Member, app: string): Promise<KubePod[] | undefined> {
  const r = await cluster.kubectl(['get', 'pods', '-n', 'default', '-l', `app=${app}`, '-o', 'json']);
  if (r.code !== 0) return undefined;
  return (JSON.parse(r.stdout) as { items: KubePod[] }).items;
}

/** The Deployment's pods in a kube cluster, once `count` of them are Running. */
export const runningPods = (cluster: Member, app: string, count: number, timeoutMs = 60_000) =>
  eventually(
    async () => {
      const pods = await podsOf(cluster, app);
      return pods && pods.filter((p) => p.status.phase === 'Running').length === count ? pods : undefined;
    },
    timeoutMs,
    `${count} ${app} pods Running in ${cluster.name}`,
  );

/** A member Deployment's spec.replicas (undefined while it does not exist). */
export async function memberReplicas(cluster: Member, name: string): Promise<number | undefined> {
  const r = await cluster.kubectl(['get', 'deployment', name, '-n', 'default', '-o', 'json']);
  if (r.code !== 0) return undefined;
  return (JSON.parse(r.stdout) as { spec: { replicas?: number } }).spec.replicas;
}

export const deploymentIn = async (cluster: Member, name: string) =>
  (await cluster.kubectl(['get', 'deployment', name, '-n', 'default'])).code === 0;
