import { getJson, type Bus } from '@flotilla/bus';
import { JetStreamHistory, type Sample, type WorkloadRef } from '@flotilla/metric-history';
import { memberUsageKey, type MemberUsage } from '@flotilla/store';
import { eventually } from '@flotilla/testkit';
import { flotilla } from './cli.js';

export const WEB: WorkloadRef = { namespace: 'default', kind: 'Deployment', name: 'web' };

/**
 * A simulated cluster `sim1` running the Deployment `web` (pods of 1 core) under a daily sine load, and the policy
 * that places it there.
 */
export function sineWorkloadManifests(o: { cores: number; amplitude: number; originS: number; replicas: number }) {
  return `
apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata: { name: sim1 }
spec:
  syncMode: Push
  simulation:
    allocatable: { cpu: "64", memory: 256Gi, pods: "500" }
    loads:
      - workload: { kind: Deployment, namespace: default, name: web }
        model:
          type: sine
          cores: ${o.cores}
          amplitude: ${o.amplitude}
          period: 24h
          startTime: "${new Date(o.originS * 1000).toISOString()}"
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: web, namespace: default }
spec:
  replicas: ${o.replicas}
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec: { containers: [{ name: web, image: nginx, resources: { requests: { cpu: "1", memory: 256Mi } } }] }
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: { name: web, namespace: default }
spec:
  resourceSelectors: [{ apiVersion: apps/v1, kind: Deployment, name: web }]
  placement: { clusterAffinity: { clusterNames: [sim1] } }
`;
}

/**
 * Records one sample a minute of `web`'s usage over [fromS, toS) into the metrics stream, once the member-agent has
 * created it; returns the samples as recorded (cores rounded to millicores).
 */
export async function seedHistory(bus: Bus, fromS: number, toS: number, usage: (t: number) => number) {
  await eventually(
    () =>
      bus.jsm.streams.info(bus.names.metricsStream).then(
        () => true,
        () => undefined,
      ),
    20_000,
    'the metrics stream',
  );
  const history = new JetStreamHistory(bus);
  const samples: Sample[] = [];
  for (let t = fromS; t < toS; t += 60) samples.push([t, Math.round(usage(t) * 1000) / 1000]);
  await history.recordAll(WEB, samples);
  return samples;
}

/**
 * Waits until the member cluster runs `replicas` ready pods of `web` (the binding's status) and reports their usage
 * (the usage bucket, where the member-agents keep it apart from the status).
 */
export async function waitForWorkloadReported(env: Record<string, string>, bus: Bus, replicas: number): Promise<void> {
  await eventually(
    async () => {
      const r = await flotilla(env, ['get', 'rb', 'web-deployment', '-n', 'default', '-o', 'json']);
      const b = JSON.parse(r.out || '{}') as {
        status?: { aggregatedStatus?: Array<{ clusterName?: string; status?: { readyReplicas?: number } }> };
      };
      const e = b.status?.aggregatedStatus?.[0];
      if (e?.status?.readyReplicas !== replicas || !e.clusterName) return undefined;
      const ref = { kind: 'ResourceBinding', namespace: 'default', name: 'web-deployment' };
      const usage = await getJson<MemberUsage>(bus.usage, memberUsageKey(ref, e.clusterName));
      return (usage?.value.cpuUsageMilli ?? 0) > 0 ? true : undefined;
    },
    30_000,
    'the workload running with its usage reported',
  );
}
