import { describe, expect, it } from 'vitest';
import type { CliIo, Session } from '../context.js';
import { rebalanceCommand, rebalancerFor } from './rebalance.js';

const now = new Date('2026-03-08T09:04:05Z');
const base = { selector: [] as string[], timeout: '2m' };

describe('rebalancerFor (flotilla rebalance)', () => {
  it('names namespaced workloads in -n (default "default") and cluster-scoped ones without, with the TTL in seconds', () => {
    const rb = rebalancerFor(
      { ...base, targets: ['deploy/web', 'clusterrole/viewer'], namespace: 'shop', ttl: '10m', name: 'r1' },
      now,
    );
    expect(rb).toEqual({
      apiVersion: 'apps.karmada.io/v1alpha1',
      kind: 'WorkloadRebalancer',
      metadata: { name: 'r1' },
      spec: {
        workloads: [
          { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'shop' },
          { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'viewer' },
        ],
        ttlSecondsAfterFinished: 600,
      },
    });
    expect(
      (
        rebalancerFor({ ...base, targets: ['deploy/web'] }, now) as {
          spec: { workloads: Array<{ namespace: string }> };
        }
      ).spec.workloads[0]!.namespace,
    ).toBe('default');
  });
  it('--selector becomes one workloadSelector in -n, and the generated name carries the time', () => {
    const rb = rebalancerFor({ ...base, targets: [], selector: ['tier=web', 'team=a'], namespace: 'shop' }, now) as {
      metadata: { name: string };
      spec: unknown;
    };
    expect(rb.spec).toEqual({
      workloadSelectors: [{ namespace: 'shop', labelSelector: { matchLabels: { tier: 'web', team: 'a' } } }],
    });
    expect(rb.metadata.name).toMatch(/^rebalance-20260308090405-[0-9a-f]{4}$/);
  });
  it.each([
    [['web'], base, /"web" is not KIND\/NAME/],
    [[], base, /name workloads as KIND\/NAME, or select them/],
    [[], { ...base, selector: ['tier'] }, /--selector "tier" is not key=value/],
    [['deploy/web'], { ...base, ttl: 'soon' }, /--ttl/],
  ])('refuses %j', (targets, o, message) => {
    expect(() => rebalancerFor({ ...o, targets: targets as string[] }, now)).toThrow(message);
  });

  it('checks --timeout before it creates anything', async () => {
    const applied: unknown[] = [];
    const s = { client: { apply: async (o: unknown) => void applied.push(o) } } as unknown as Session;
    const io = { out: () => undefined, err: () => undefined, now: () => now, env: {} } as unknown as CliIo;
    await expect(rebalanceCommand(io, s, { ...base, targets: ['deploy/web'], timeout: 'soon' })).rejects.toThrow(
      /invalid value "soon" for --timeout/,
    );
    expect(applied).toEqual([]);
  });
});
