import type { FederatedHPASpec } from '@flotilla/api';
import { describe, expect, it } from 'vitest';
import { federationUtilisation } from './federation-utilisation.js';

const spec = (metrics: FederatedHPASpec['metrics']): FederatedHPASpec => ({
  scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'shop' },
  maxReplicas: 10,
  metrics,
});
const cpu50 = spec([
  { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } },
]);

describe('the federation’s utilisation for scaling to and from zero', () => {
  it('weights each member HPA’s utilisation by its replicas', () => {
    const hpas = [
      { cluster: 'a', currentReplicas: 1, currentCPUUtilizationPercentage: 90 },
      { cluster: 'b', currentReplicas: 3, currentCPUUtilizationPercentage: 10 },
      { cluster: 'c', currentReplicas: 0, currentCPUUtilizationPercentage: 500 },
    ];
    expect(federationUtilisation(cpu50, hpas)).toEqual({ utilisation: { current: 30, target: 50 } });
  });

  it('is unknown without a cpu Utilization target or without a member reporting', () => {
    expect(
      federationUtilisation(spec([]), [{ cluster: 'a', currentReplicas: 1, currentCPUUtilizationPercentage: 90 }]),
    ).toEqual({});
    expect(federationUtilisation(cpu50, [{ cluster: 'a', currentReplicas: 2 }])).toEqual({});
  });
});
