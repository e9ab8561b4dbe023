import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { admit } from './admission.js';
import { parseManifests, toYaml } from './manifests.js';

const dir = new URL('./testdata/', import.meta.url);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.yaml'))
  .sort();
const docs = (file: string) => parseManifests(readFileSync(new URL(file, dir), 'utf8')) as Array<Record<string, any>>;

describe('upstream sample manifests', () => {
  const all = files.flatMap((f) => docs(f).map((d, i) => [`${f}#${i + 1} ${d.kind}/${d.metadata?.name}`, d] as const));

  const upstreamSamples = [
    'cron-federated-hpa-proposal.yaml',
    'federated-hpa-proposal.yaml',
    'effective-hpa.yaml',
    'multiple-scheduling-groups.yaml',
    'workload-rebalancer-proposal.yaml',
  ];

  it('cover every upstream proposal and document Flotilla implements', () => {
    for (const sample of upstreamSamples) expect(files).toContain(sample);
    expect(all.length).toBeGreaterThanOrEqual(25);
  });

  it.each(all)('%s admits cleanly, and admitting it again changes nothing', (_name, doc) => {
    const once = admit(doc);
    const twice = admit(parseManifests(toYaml(once))[0]);
    expect(twice).toEqual(once);
  });

  it('the CronFederatedHPA proposal: rules named by `ruleName` get names, defaults and the default namespace', () => {
    const [story1, fhpa, zones] = docs('cron-federated-hpa-proposal.yaml').map((d) => admit(d) as Record<string, any>);
    expect(story1!.metadata.namespace).toBe('default');
    expect(story1!.spec.rules).toEqual([
      {
        name: 'Scale-Up',
        schedule: '30 08 * * *',
        targetReplicas: 1000,
        suspend: false,
        successfulHistoryLimit: 3,
        failedHistoryLimit: 3,
      },
      {
        name: 'Scale-Down',
        schedule: '0 11 * * *',
        targetReplicas: 1,
        suspend: false,
        successfulHistoryLimit: 3,
        failedHistoryLimit: 3,
      },
    ]);
    expect(fhpa!.spec.rules.map((r: { targetMinReplicas: number }) => r.targetMinReplicas)).toEqual([1000, 1]);
    expect(zones!.spec.rules.map((r: { timeZone: string }) => r.timeZone)).toEqual([
      'Asia/Shanghai',
      'America/Los_Angeles',
    ]);
  });

  it('the FederatedHPA proposal: assignment policies survive, with default metrics', () => {
    const out = docs('federated-hpa-proposal.yaml').map((d) => admit(d) as Record<string, any>);
    // The last one is Karmada's shipped FederatedHPA: it stays without an assignment.
    expect(out.map((o) => o.spec.federatedHPAAssignment?.federatedHPAAssignmentType)).toEqual([
      'Duplicated',
      'StaticWeighted',
      'DynamicWeighted',
      'Aggregated',
      'Prioritized',
      undefined,
    ]);
    expect(
      out[1]!.spec.federatedHPAAssignment.clusterAutoscalingPreference.map(
        (p: { staticWeight: number }) => p.staticWeight,
      ),
    ).toEqual([1, 2, 3]);
    expect(out[0]!.spec.metrics[0].resource.target.averageUtilization).toBe(80);
    expect(out[5]!.spec.metrics[0].resource.target.averageUtilization).toBe(10);
  });

  it('the multiple scheduling groups proposal: ordered affinity groups are kept in order, with Karmada defaults', () => {
    const nginx = admit(docs('multiple-scheduling-groups.yaml')[1]) as Record<string, any>;
    expect(nginx.spec.placement.clusterAffinities.map((t: { affinityName: string }) => t.affinityName)).toEqual([
      'dc-shanghai',
      'dc-beijing',
      'dc-hongkong',
    ]);
    expect(nginx.spec.resourceSelectors[0].namespace).toBe('default');
    expect(nginx.spec).toMatchObject({
      priority: 0,
      preemption: 'Never',
      conflictResolution: 'Abort',
      schedulerName: 'default-scheduler',
    });
  });

  it('the WorkloadRebalancer proposal: the rebalancer is cluster-scoped and its status is kept as given', () => {
    const [, withStatus] = docs('workload-rebalancer-proposal.yaml').map((d) => admit(d) as Record<string, any>);
    expect(withStatus!.metadata.namespace).toBeUndefined();
    expect(withStatus!.status.observedWorkloads[1]).toEqual({
      reason: 'ReferencedBindingNotFound',
      result: 'Failed',
      workload: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'demo-deploy-2', namespace: 'default' },
    });
  });

  it('a hand-written Karmada Cluster keeps its status', () => {
    const member1 = admit(docs('cluster.yaml')[0]) as Record<string, any>;
    expect(member1.status.resourceSummary.allocatable).toEqual({ cpu: '12', memory: '48Gi', pods: '330' });
    expect(member1.metadata.namespace).toBeUndefined();
  });
});
