import { describe, expect, it } from 'vitest';
import { candidateClusters } from './candidates.js';
import { memberWithRoom } from './testdata/fleet.js';

const clusters = [
  memberWithRoom('m3', 1),
  memberWithRoom('m1', 1),
  memberWithRoom('m2', 1, { ready: false }),
  memberWithRoom('m4', 1),
];
const namesOf = (c: { ready: Array<{ metadata: { name?: string } }>; notReady: string[] }) => ({
  ready: c.ready.map((x) => x.metadata.name),
  notReady: c.notReady,
});

describe('candidateClusters', () => {
  it('takes clusterAffinity when set, ignoring the binding, and sets NotReady clusters apart', () => {
    expect(
      namesOf(
        candidateClusters({ clusterAffinity: { clusterNames: ['m1', 'm2', 'm3', 'm9'] } }, clusters, [{ name: 'm4' }]),
      ),
    ).toEqual({ ready: ['m1', 'm3'], notReady: ['m2'] });
  });

  it("takes the binding's clusters without clusterAffinity", () => {
    expect(namesOf(candidateClusters({}, clusters, [{ name: 'm4', replicas: 2 }, { name: 'm2' }]))).toEqual({
      ready: ['m4'],
      notReady: ['m2'],
    });
  });
});
