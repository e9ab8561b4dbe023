import { APPLIED_PLACEMENT_ANNOTATION } from '@flotilla/api';
import type { StoredObject } from '@flotilla/store';
import { describe, expect, it } from 'vitest';
import { bindingStatusForAgent, withoutPlacement } from './agent-projections.js';

describe('what the sim agent caches of a binding', () => {
  it('drops the placement and its applied-placement record, and keeps every other annotation', () => {
    const binding: StoredObject = {
      apiVersion: 'work.karmada.io/v1alpha2',
      kind: 'ResourceBinding',
      metadata: {
        name: 'web-deployment',
        namespace: 'default',
        annotations: { [APPLIED_PLACEMENT_ANNOTATION]: '{"clusterAffinity":{}}', 'autoscaling.flotilla.io/x': 'y' },
      },
      spec: { placement: { clusterAffinity: {} }, clusters: [{ name: 'm1', replicas: 2 }] },
    };
    expect(withoutPlacement(binding)).toEqual({
      ...binding,
      metadata: { ...binding.metadata, annotations: { 'autoscaling.flotilla.io/x': 'y' } },
      spec: { clusters: [{ name: 'm1', replicas: 2 }] },
    });
    const bare = { ...binding, metadata: { name: 'b' }, spec: {} };
    expect(withoutPlacement(bare)).toEqual(bare);
  });

  it('keeps of its status the aggregated status entries, whole, and not the conditions', () => {
    const entry = { clusterName: 'm1', applied: true, status: { replicas: 2, readyReplicas: 2 } };
    const record = {
      seq: 7,
      status: {
        conditions: [{ type: 'Scheduled', status: 'True', message: 'x'.repeat(100) }],
        aggregatedStatus: [entry],
      },
    };
    expect(bindingStatusForAgent(record)).toEqual({ seq: 7, status: { aggregatedStatus: [entry] } });
    expect(bindingStatusForAgent({ seq: 1, status: { conditions: [] } })).toEqual({ seq: 1, status: {} });
  });
});
