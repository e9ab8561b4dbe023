import { describe, expect, it } from 'vitest';
import { customResourceDefinition, customResourceKinds } from '@flotilla/api';
import { COLUMNS } from './columns.js';

describe('COLUMNS', () => {
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
