import { describe, expect, it } from 'vitest';
import { podNodeClaim } from './node-claim.js';

const required = { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }] };
const toleration = { key: 'gpu', operator: 'Exists', effect: 'NoSchedule' };

// Karmada's GenerateNodeClaimByPodSpec: a non-nil nodeSelector, a non-empty toleration list or a non-nil required
// node affinity make a claim; preferred affinity and pod (anti-)affinity do not.
describe('podNodeClaim', () => {
  it.each([
    ['no constraints', { containers: [] }, undefined],
    ['a nodeSelector', { nodeSelector: { disk: 'ssd' } }, { nodeSelector: { disk: 'ssd' } }],
    ['an empty nodeSelector (set, so non-nil in Go)', { nodeSelector: {} }, { nodeSelector: {} }],
    ['tolerations', { tolerations: [toleration] }, { tolerations: [toleration] }],
    ['an empty toleration list', { tolerations: [] }, undefined],
    [
      'required node affinity',
      { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: required } } },
      { hardNodeAffinity: required },
    ],
    [
      'only preferred node affinity',
      { affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [] } } },
      undefined,
    ],
    ['pod affinity', { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [] } } }, undefined],
    [
      'all three',
      {
        nodeSelector: { a: 'b' },
        tolerations: [toleration],
        affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: required } },
      },
      { nodeSelector: { a: 'b' }, tolerations: [toleration], hardNodeAffinity: required },
    ],
    ['no pod spec', undefined, undefined],
  ])('%s', (_name, podSpec, want) => {
    expect(podNodeClaim(podSpec)).toEqual(want);
  });
});
