import { describe, expect, it } from 'vitest';
import type { StoredLike } from '@flotilla/client';
import { customResourceDefinition, customResourceKinds } from '@flotilla/api';
import { COLUMNS } from './columns.js';
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

  it.each(['FederatedHPA', 'CronFederatedHPA', 'EffectiveHorizontalPodAutoscaler'])(
    '%s: the same columns as kubectl get with the CRD of deploy/crds',
    (kind) => {
      const info = customResourceKinds().find((k) => k.kind === kind)!;
      const crd = customResourceDefinition(info) as {
        spec: { versions: { additionalPrinterColumns: { name: string }[] }[] };
      };
      const kubectl = crd.spec.versions[0]!.additionalPrinterColumns.map((c) => c.name.toUpperCase());
      expect(['NAME', ...COLUMNS[kind]!.map((c) => c.header), 'AGE']).toEqual(['NAME', ...kubectl]);
    },
  );
});
