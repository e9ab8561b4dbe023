import { describe, expect, it } from 'vitest';
import { decideClusterHealth, type ClusterHealthInput } from './decide.js';

const GRACE = 40_000;
const T0 = Date.parse('2026-01-01T00:00:00Z');
const lease = (renewTime: string) => ({ holderIdentity: 'member-agent/sim@host/1', renewTime });
const ready = { status: 'True', reason: 'ClusterReady', lastTransitionTime: '2025-12-31T00:00:00Z' } as const;
/** The heartbeat token of `ready`. */
const P = 'True/ClusterReady/2025-12-31T00:00:00Z';
const notReady = {
  status: 'False',
  reason: 'ClusterNotReachable',
  lastTransitionTime: '2026-01-01T00:00:10Z',
} as const;
const expired = {
  status: 'Unknown',
  reason: 'ClusterStatusUnknown',
  lastTransitionTime: '2026-01-01T00:00:40Z',
} as const;
const unknownStopped = {
  type: 'Ready',
  status: 'Unknown',
  reason: 'ClusterStatusUnknown',
  message: 'Cluster status controller stopped posting cluster status.',
} as const;

describe('decideClusterHealth', () => {
  it.each<[string, Omit<ClusterHealthInput, 'graceMs'>, ReturnType<typeof decideClusterHealth>]>([
    [
      'first look (a new leader): a full grace period from now, however old the lease',
      { lease: lease('2025-12-31T23:00:00Z'), ready, nowMs: T0 },
      { probe: { renewTime: '2025-12-31T23:00:00Z', posted: P, probedAtMs: T0 }, recheckAfterMs: GRACE },
    ],
    [
      'first look at a cluster without a lease or status: a full grace period too',
      { nowMs: T0 },
      { probe: { probedAtMs: T0 }, recheckAfterMs: GRACE },
    ],
    [
      'renewed: the grace period starts again when the renewal is seen',
      {
        lease: lease('2026-01-01T00:00:30Z'),
        ready,
        probe: { renewTime: '2026-01-01T00:00:00Z', posted: P, probedAtMs: T0 },
        nowMs: T0 + 30_000,
      },
      { probe: { renewTime: '2026-01-01T00:00:30Z', posted: P, probedAtMs: T0 + 30_000 }, recheckAfterMs: GRACE },
    ],
    [
      'a renewal time from a skewed clock counts all the same (only a change matters)',
      {
        lease: lease('2020-01-01T00:00:00Z'),
        ready,
        probe: { renewTime: '2026-01-01T00:00:00Z', posted: P, probedAtMs: T0 },
        nowMs: T0 + 39_000,
      },
      { probe: { renewTime: '2020-01-01T00:00:00Z', posted: P, probedAtMs: T0 + 39_000 }, recheckAfterMs: GRACE },
    ],
    [
      'an agent posted a new Ready condition (its lease renewal not seen yet): a heartbeat too',
      { lease: lease('a'), ready: notReady, probe: { renewTime: 'a', posted: P, probedAtMs: T0 }, nowMs: T0 + 50_000 },
      {
        probe: { renewTime: 'a', posted: 'False/ClusterNotReachable/2026-01-01T00:00:10Z', probedAtMs: T0 + 50_000 },
        recheckAfterMs: GRACE,
      },
    ],
    [
      'not renewed, within the grace period: look again when it ends',
      { lease: lease('a'), ready, probe: { renewTime: 'a', posted: P, probedAtMs: T0 }, nowMs: T0 + 25_000 },
      { probe: { renewTime: 'a', posted: P, probedAtMs: T0 }, recheckAfterMs: 15_000 },
    ],
    [
      'not renewed for the grace period: Ready=Unknown, Karmada reason and message',
      { lease: lease('a'), ready, probe: { renewTime: 'a', posted: P, probedAtMs: T0 }, nowMs: T0 + GRACE },
      { probe: { renewTime: 'a', posted: P, probedAtMs: T0 }, expire: unknownStopped },
    ],
    [
      'an expired cluster that was not Ready (False) becomes Unknown too',
      {
        lease: lease('a'),
        ready: notReady,
        probe: { renewTime: 'a', posted: 'False/ClusterNotReachable/2026-01-01T00:00:10Z', probedAtMs: T0 },
        nowMs: T0 + 60_000,
      },
      {
        probe: { renewTime: 'a', posted: 'False/ClusterNotReachable/2026-01-01T00:00:10Z', probedAtMs: T0 },
        expire: unknownStopped,
      },
    ],
    [
      'already Unknown (our own condition is no heartbeat): nothing to write, a silent cluster stays quiet',
      { lease: lease('a'), ready: expired, probe: { renewTime: 'a', posted: P, probedAtMs: T0 }, nowMs: T0 + 600_000 },
      { probe: { renewTime: 'a', posted: P, probedAtMs: T0 } },
    ],
    [
      'a new leader finds a cluster already Unknown: nothing to write, ever',
      { lease: lease('a'), ready: expired, nowMs: T0 + 600_000 },
      { probe: { renewTime: 'a', probedAtMs: T0 + 600_000 }, recheckAfterMs: GRACE },
    ],
    [
      'no status ever posted past the grace period: Unknown, never updated',
      { probe: { probedAtMs: T0 }, nowMs: T0 + GRACE },
      {
        probe: { probedAtMs: T0 },
        expire: {
          type: 'Ready' as const,
          status: 'Unknown',
          reason: 'ClusterStatusNeverUpdated',
          message: 'Cluster status controller never posted cluster status.',
        },
      },
    ],
    [
      'the lease disappeared (bucket lost): the grace period starts again from then',
      { ready, probe: { renewTime: 'a', posted: P, probedAtMs: T0 }, nowMs: T0 + 30_000 },
      { probe: { posted: P, probedAtMs: T0 + 30_000 }, recheckAfterMs: GRACE },
    ],
  ])('%s', (_name, input, expected) => {
    expect(decideClusterHealth({ ...input, graceMs: GRACE })).toEqual(expected);
  });

  it('an agent that comes back after the expiry posts Ready: a heartbeat, though its lease renewal lags', () => {
    const afterExpiry = { renewTime: 'a', posted: P, probedAtMs: T0 };
    const back = { status: 'True', reason: 'ClusterReady', lastTransitionTime: '2026-01-01T00:02:00Z' } as const;
    const d = decideClusterHealth({
      lease: lease('a'),
      ready: back,
      probe: afterExpiry,
      nowMs: T0 + 120_000,
      graceMs: GRACE,
    });
    expect(d).toEqual({
      probe: { renewTime: 'a', posted: 'True/ClusterReady/2026-01-01T00:02:00Z', probedAtMs: T0 + 120_000 },
      recheckAfterMs: GRACE,
    });
  });
});
