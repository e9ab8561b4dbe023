import { describe, expect, it } from 'vitest';
import { APPLIED_PLACEMENT_ANNOTATION, buildBinding, type PropagationPolicy } from '@flotilla/scheduling';
import type { StoredObject } from '@flotilla/store';
import {
  bindingStatusProjection,
  clusterSchedulingSignature,
  PlacementSharing,
  templateProjection,
} from './projections.js';

const deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'web',
    namespace: 'default',
    uid: 'u1',
    resourceVersion: '7',
    labels: { app: 'web' },
    annotations: { big: 'x'.repeat(1000) },
  },
  spec: {
    replicas: 3,
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: {
        containers: [
          {
            name: 'c',
            image: 'img',
            env: [{ name: 'A', value: 'B' }],
            resources: { requests: { cpu: '250m', memory: '64Mi' } },
          },
          { name: 'd', image: 'img' },
        ],
      },
    },
  },
};
const policy: PropagationPolicy = {
  apiVersion: 'policy.karmada.io/v1alpha1',
  kind: 'PropagationPolicy',
  metadata: { name: 'p', namespace: 'default' },
  spec: {
    resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment' }],
    placement: { clusterAffinity: { clusterNames: ['m1'] } },
  },
};

describe('projections', () => {
  it('a projected template builds the same binding as the whole template', () => {
    const projected = templateProjection(deployment);
    expect(JSON.stringify(projected).length).toBeLessThan(JSON.stringify(deployment).length / 3);
    expect(buildBinding(projected as never, policy)).toEqual(buildBinding(deployment as never, policy));
  });

  it('builds the same binding as the whole template with init containers, limits standing in for requests and overhead', () => {
    const podSpec = {
      containers: [
        { name: 'app', image: 'img', resources: { requests: { cpu: '0.3' }, limits: { cpu: '1', memory: '512Mi' } } },
        { name: 'log', image: 'img', resources: { limits: { 'example.com/dongle': 1 } } },
      ],
      initContainers: [
        { name: 'migrate', image: 'img', resources: { requests: { cpu: '2', memory: '64Mi' } } },
        { name: 'proxy', image: 'img', restartPolicy: 'Always', resources: { requests: { memory: '1Gi' } } },
      ],
      overhead: { cpu: '250m', memory: '120Mi' },
      volumes: [{ name: 'v', emptyDir: {} }],
    };
    const full = { ...deployment, spec: { ...deployment.spec, template: { spec: podSpec } } };
    const binding = buildBinding(templateProjection(full) as never, policy);
    expect(binding).toEqual(buildBinding(full as never, policy));
    expect(binding.spec.replicaRequirements).toEqual({
      resourceRequest: { cpu: '2250m', memory: '1144Mi', 'example.com/dongle': '1' },
    });
  });

  it('keeps a pod spec whose request cannot be computed, so detection reports the field as for the stored template', () => {
    const bad = {
      ...deployment,
      spec: {
        ...deployment.spec,
        template: { spec: { containers: [{ name: 'c', resources: { limits: { memory: 'lots' } } }] } },
      },
    };
    expect(() => buildBinding(templateProjection(bad) as never, policy)).toThrow(
      'spec.template.spec.containers[0].resources.limits.memory: invalid quantity "lots"',
    );
  });

  it("keeps the pod template's node constraints, so the projected template builds the same node claim", () => {
    const required = { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }] };
    const constrained = {
      ...deployment,
      spec: {
        ...deployment.spec,
        template: {
          spec: {
            containers: [{ name: 'c', image: 'img' }],
            nodeSelector: { disk: 'ssd' },
            tolerations: [{ key: 'gpu', operator: 'Exists' }],
            affinity: {
              nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: required },
              podAntiAffinity: { big: 'x'.repeat(500) },
            },
          },
        },
      },
    };
    const binding = buildBinding(templateProjection(constrained) as never, policy);
    expect(binding).toEqual(buildBinding(constrained as never, policy));
    expect(binding.spec.replicaRequirements?.nodeClaim).toEqual({
      nodeSelector: { disk: 'ssd' },
      tolerations: [{ key: 'gpu', operator: 'Exists' }],
      hardNodeAffinity: required,
    });
  });

  it('a template without requests projects to no pod template at all', () => {
    const plain = {
      ...deployment,
      spec: { replicas: 2, template: { spec: { containers: [{ name: 'c', image: 'img' }] } } },
    };
    expect(templateProjection(plain).spec).toEqual({ replicas: 2 });
    expect(buildBinding(templateProjection(plain) as never, policy)).toEqual(buildBinding(plain as never, policy));
  });

  it('keeps only what scheduling reads of a binding status', () => {
    const r = bindingStatusProjection({
      seq: 9,
      status: {
        schedulerObservingAffinityName: 'g1',
        lastScheduledTime: 't',
        schedulerObservedGeneration: 3,
        conditions: [
          { type: 'Scheduled', status: 'True' },
          { type: 'FullyApplied', status: 'True' },
        ],
        aggregatedStatus: [{ clusterName: 'm1', applied: true }],
      },
    });
    expect(r).toEqual({
      seq: 9,
      status: {
        schedulerObservingAffinityName: 'g1',
        lastScheduledTime: 't',
        schedulerObservedGeneration: 3,
        conditions: [{ type: 'Scheduled', status: 'True' }],
      },
    });
  });

  it('keeps of the aggregated status only the replicas each cluster reported (the assume cache releases them)', () => {
    const r = bindingStatusProjection({
      seq: 2,
      status: {
        aggregatedStatus: [
          { clusterName: 'm1', applied: true, status: { replicas: 3, readyReplicas: 2 } },
          { clusterName: 'm2', applied: false, health: 'Unknown' },
        ],
      },
    });
    expect(r).toEqual({ seq: 2, reported: { m1: 3 }, status: {} });
  });

  it('signs readiness and API enablements, not capacity', () => {
    const a = clusterSchedulingSignature({
      conditions: [{ type: 'Ready', status: 'True' }],
      resourceSummary: { allocated: { cpu: '1' } },
    });
    const b = clusterSchedulingSignature({
      conditions: [{ type: 'Ready', status: 'True' }],
      resourceSummary: { allocated: { cpu: '5' } },
    });
    const c = clusterSchedulingSignature({
      conditions: [{ type: 'Ready', status: 'False' }],
      resourceSummary: { allocated: { cpu: '5' } },
    });
    expect(a).toBe(b);
    expect(c).not.toBe(a);
  });
});

describe('PlacementSharing', () => {
  const placement = {
    clusterAffinity: { clusterNames: ['m1', 'm2'] },
    replicaScheduling: { replicaSchedulingType: 'Divided' },
  };
  // As the informer hands it over: decoded anew from the stored JSON each time.
  const stored = (name: string, p: unknown = placement, applied: unknown = p) =>
    JSON.parse(
      JSON.stringify({
        apiVersion: 'work.karmada.io/v1alpha2',
        kind: 'ResourceBinding',
        metadata: {
          name,
          namespace: 'default',
          annotations: { [APPLIED_PLACEMENT_ANNOTATION]: JSON.stringify(applied) },
        },
        spec: { resource: { apiVersion: 'apps/v1', kind: 'Deployment', name }, placement: p },
      }),
    ) as StoredObject & { spec: { placement: unknown } };

  it('gives bindings with the same placement one frozen copy of it and of its applied-placement JSON', () => {
    const sharing = new PlacementSharing();
    const a = sharing.share(stored('a'));
    const b = sharing.share(stored('b'));
    expect(b.spec.placement).toBe(a.spec.placement);
    expect(b.spec.placement).toEqual(placement);
    const annotation = (o: StoredObject) => o.metadata.annotations?.[APPLIED_PLACEMENT_ANNOTATION];
    expect(annotation(b)).toBe(annotation(a));
    expect(JSON.parse(annotation(b)!)).toEqual(placement);
    expect(Object.isFrozen(a.spec.placement)).toBe(true);
    expect(() => {
      (a.spec.placement as { clusterAffinity: { clusterNames: string[] } }).clusterAffinity.clusterNames.push('m3');
    }).toThrow(TypeError);
    expect(sharing.size).toBe(1);
  });

  it('keeps a different placement apart, and an applied placement that is not the current one as it is', () => {
    const sharing = new PlacementSharing();
    const a = sharing.share(stored('a'));
    const other = { clusterAffinity: { clusterNames: ['m9'] } };
    const c = sharing.share(stored('c', other, placement));
    expect(c.spec.placement).not.toBe(a.spec.placement);
    expect(c.spec.placement).toEqual(other);
    expect(JSON.parse(c.metadata.annotations![APPLIED_PLACEMENT_ANNOTATION]!)).toEqual(placement);
    expect(sharing.size).toBe(2);
  });

  it('starts over past its limit, and leaves a binding without a placement alone', () => {
    const sharing = new PlacementSharing(2);
    for (const n of [1, 2, 3]) sharing.share(stored(`b${n}`, { clusterAffinity: { clusterNames: [`m${n}`] } }));
    expect(sharing.size).toBe(1);
    const bare = stored('bare');
    delete (bare.spec as { placement?: unknown }).placement;
    expect(sharing.share(bare)).toEqual(bare);
    expect(sharing.size).toBe(1);
  });
});
