// End to end: a burst of workloads never assigns a simulated cluster more pods than it can hold, although the
// clusters' reported capacity lags the scheduler's decisions (the scheduler's assume cache).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@flotilla/testkit';
import { flotilla } from './support/cli.js';
import { startSuite, type RunningSuite } from './support/suite.js';

let s: RunningSuite;
let dir: string;
const cli = (...args: string[]) => flotilla(s.env, args);

const POD_CAPACITY = 110;
const WORKLOADS = 200;
const REPLICAS = 3;

interface Binding {
  metadata: { name: string };
  spec: { clusters?: Array<{ name: string; replicas?: number }> };
  status?: { conditions?: Array<{ type: string; status: string; reason?: string }> };
}

const cluster = (name: string) => `apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata: { name: ${name}, labels: { burst: "yes" } }
spec:
  simulation:
    allocatable: { cpu: "64", memory: 256Gi, pods: "${POD_CAPACITY}" }
`;

function burstFile(): string {
  const docs = [
    `apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: { name: burst, namespace: default }
spec:
  resourceSelectors: [{ apiVersion: apps/v1, kind: Deployment, labelSelector: { matchLabels: { burst: "yes" } } }]
  placement:
    clusterAffinity: { labelSelector: { matchLabels: { burst: "yes" } } }
    replicaScheduling:
      replicaSchedulingType: Divided
      replicaDivisionPreference: Weighted
      weightPreference: { dynamicWeight: AvailableReplicas }
`,
  ];
  for (let i = 0; i < WORKLOADS; i++) {
    docs.push(`apiVersion: apps/v1
kind: Deployment
metadata: { name: w${String(i).padStart(3, '0')}, namespace: default, labels: { burst: "yes" } }
spec:
  replicas: ${REPLICAS}
  selector: { matchLabels: { app: w${i} } }
  template:
    metadata: { labels: { app: w${i} } }
    spec: { containers: [{ name: c, image: example/w:1, resources: { requests: { cpu: 10m, memory: 16Mi } } }] }
`);
  }
  return docs.join('---\n');
}

async function bindings(): Promise<Binding[]> {
  const r = await cli('get', 'rb', '-o', 'json');
  if (r.code !== 0) throw new Error(r.err);
  return (JSON.parse(r.out) as { items: Binding[] }).items.filter((b) => /^w\d{3}-deployment$/.test(b.metadata.name));
}

const scheduled = (b: Binding) => b.status?.conditions?.find((c) => c.type === 'Scheduled');

/** Replicas assigned per cluster, over every burst binding. */
function assignedPerCluster(list: Binding[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const b of list) for (const c of b.spec.clusters ?? []) out[c.name] = (out[c.name] ?? 0) + (c.replicas ?? 0);
  return out;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'flotilla-burst-'));
  s = await startSuite(['gateway', 'status-writer', 'member-agent', 'affinity-scheduler'], {
    SIM_TICK_MS: '500',
    RESYNC_MS: '5000',
  });
}, 60_000);

afterAll(async () => {
  await s?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('a burst of workloads', () => {
  it('never assigns a cluster more pods than it holds; the overflow is Unschedulable and placed once room appears', async () => {
    writeFileSync(join(dir, 'clusters.yaml'), `${cluster('burst1')}---\n${cluster('burst2')}`);
    expect((await cli('apply', '-f', join(dir, 'clusters.yaml'))).code).toBe(0);
    for (const c of ['burst1', 'burst2'])
      expect((await cli('wait', '--for=condition=Ready', `cluster/${c}`, '--timeout', '20s')).code).toBe(0);

    writeFileSync(join(dir, 'burst.yaml'), burstFile());
    const applied = await cli('apply', '-f', join(dir, 'burst.yaml'));
    expect(applied.err).toBe('');

    // Every binding decided: scheduled, or failed for lack of room.
    const settled = await eventually(
      async () => {
        const list = await bindings();
        return list.length === WORKLOADS && list.every((b) => scheduled(b)) ? list : undefined;
      },
      60_000,
      'every burst binding has a Scheduled condition',
    );
    const perCluster = assignedPerCluster(settled);
    console.log(
      `burst of ${WORKLOADS}×${REPLICAS} replicas over two clusters of ${POD_CAPACITY} pods: assigned`,
      perCluster,
    );
    for (const c of ['burst1', 'burst2']) expect(perCluster[c] ?? 0).toBeLessThanOrEqual(POD_CAPACITY);
    const failed = settled.filter((b) => scheduled(b)!.status === 'False');
    expect(failed.length).toBeGreaterThan(0);
    for (const b of failed) {
      expect(scheduled(b)!.reason).toBe('Unschedulable');
      expect(b.spec.clusters ?? []).toEqual([]);
    }
    // Room is nearly used up: fewer than one workload's replicas are left unassigned in the two clusters together.
    expect(2 * POD_CAPACITY - (perCluster.burst1 ?? 0) - (perCluster.burst2 ?? 0)).toBeLessThan(REPLICAS);

    // Room appears: a third cluster joins, and the overflow is placed there, again within capacity.
    writeFileSync(join(dir, 'third.yaml'), cluster('burst3'));
    expect((await cli('apply', '-f', join(dir, 'third.yaml'))).code).toBe(0);
    const after = await eventually(
      async () => {
        const list = await bindings();
        const placed = list.filter((b) => scheduled(b)?.status === 'True').length;
        return placed >= settled.length - failed.length + Math.floor(POD_CAPACITY / REPLICAS) ? list : undefined;
      },
      60_000,
      'the overflow placed in the new cluster',
    );
    const afterPerCluster = assignedPerCluster(after);
    console.log('after a third cluster joined: assigned', afterPerCluster);
    for (const c of ['burst1', 'burst2', 'burst3']) expect(afterPerCluster[c] ?? 0).toBeLessThanOrEqual(POD_CAPACITY);
    expect(afterPerCluster.burst3 ?? 0).toBeGreaterThan(POD_CAPACITY - REPLICAS);
  }, 150_000);
});
