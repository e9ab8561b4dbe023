import { describe, expect, it } from 'vitest';
import {
  FederatedHpaAnnotations,
  formatMemberLimits,
  MemberLimitsError,
  parseMemberLimits,
} from './federated-hpa-annotations.js';

const at = (v: string) => ({ [FederatedHpaAnnotations.memberLimits]: v });

describe('member-limits annotation (per-cluster member HPA min/max)', () => {
  it('round-trips, clusters in name order', () => {
    const text = formatMemberLimits([
      { cluster: 'member2', minReplicas: 1, maxReplicas: 4 },
      { cluster: 'member1', minReplicas: 1, maxReplicas: 2 },
    ]);
    expect(text).toBe('{"member1":{"minReplicas":1,"maxReplicas":2},"member2":{"minReplicas":1,"maxReplicas":4}}');
    expect(parseMemberLimits(at(text))).toEqual(
      new Map([
        ['member1', { minReplicas: 1, maxReplicas: 2 }],
        ['member2', { minReplicas: 1, maxReplicas: 4 }],
      ]),
    );
  });

  it('is absent without the annotation', () => {
    expect(parseMemberLimits({})).toBeUndefined();
    expect(parseMemberLimits(undefined)).toBeUndefined();
  });

  it.each([
    ['not JSON', '{', 'expected JSON'],
    ['an array', '[]', 'expected an object'],
    [
      'a fractional max',
      '{"m":{"minReplicas":1,"maxReplicas":1.5}}',
      '.m.maxReplicas: expected an integer >= 0, got 1.5',
    ],
    ['a missing min', '{"m":{"maxReplicas":2}}', '.m.minReplicas: expected an integer >= 0, got undefined'],
  ])('rejects %s naming the field', (_name, text, message) => {
    expect(() => parseMemberLimits(at(text))).toThrow(MemberLimitsError);
    expect(() => parseMemberLimits(at(text))).toThrow(message);
  });
});
