import { describe, expect, it } from 'vitest';
import type { StoredLike } from '@flotilla/client';
import { printObjects } from './format.js';

const now = new Date('2026-11-26T12:00:00Z');

function fhpa(name: string, status?: Record<string, unknown>): StoredLike {
  return {
    apiVersion: 'autoscaling.karmada.io/v1alpha1',
    kind: 'FederatedHPA',
    metadata: { name, namespace: 'default', creationTimestamp: '2026-11-26T11:55:00Z', resourceVersion: '1' },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      minReplicas: 2,
      maxReplicas: 10,
    },
    ...(status ? { status } : {}),
  } as unknown as StoredLike;
}

describe('printObjects', () => {
  it("prints a FederatedHPA with Karmada's columns, REPLICAS from status.currentReplicas", () => {
    expect(printObjects([fhpa('web', { currentReplicas: 4 }), fhpa('api')], false, 'table', false, now)).toBe(
      [
        'NAME   REFERENCE-KIND   REFERENCE-NAME   MINPODS   MAXPODS   REPLICAS   AGE',
        'web    Deployment       web              2         10        4          5m',
        'api    Deployment       web              2         10        <none>     5m',
      ].join('\n'),
    );
  });
});
