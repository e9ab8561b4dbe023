import { describe, expect, it } from 'vitest';
import { isForbidden, isInvalid } from '@flotilla/kube-client';
import { KubeAccessError, kubeError, KubeRequestError, rbacRule } from './errors.js';
import { mapLimited, TokenBucket } from './rate-limit.js';

describe('errors from the member API server', () => {
  const req = { verb: 'patch', group: 'apps', resource: 'deployments', namespace: 'shop', name: 'web' };

  it('403 names the verb and resource refused and the RBAC rule that grants it', () => {
    const err = kubeError('member1', req, {
      code: 403,
      body: JSON.stringify({
        kind: 'Status',
        message: 'deployments.apps "web" is forbidden: User "agent" cannot patch resource "deployments"',
      }),
    });
    expect(err).toBeInstanceOf(KubeAccessError);
    expect(isForbidden(err)).toBe(true);
    expect(err.message).toBe(
      'member cluster "member1" forbids patch deployments.apps "web" in namespace "shop" (403 Forbidden): the agent\'s role needs the rule {apiGroups: ["apps"], resources: ["deployments"], verbs: ["patch"]} (Role or ClusterRole; see deploy/member/); the API server said: deployments.apps "web" is forbidden: User "agent" cannot patch resource "deployments"',
    );
  });

  it('names the verb RBAC refused, not the one sent: a server-side apply that creates is authorized as create', () => {
    const err = kubeError(
      'm',
      { verb: 'patch', group: '', resource: 'namespaces', name: 'shop' },
      {
        code: 403,
        body: {
          message:
            'namespaces "shop" is forbidden: User "agent" cannot create resource "namespaces" in API group "" in the namespace "shop"',
        },
      },
    );
    expect(err.message).toContain('forbids create namespaces "shop" cluster-wide (403 Forbidden)');
    expect(err.message).toContain('{apiGroups: [""], resources: ["namespaces"], verbs: ["create"]}');
  });

  it('a cluster-wide watch refused asks for a ClusterRole; a watch error carries statusCode', () => {
    const err = kubeError(
      'm',
      { verb: 'watch', group: '', resource: 'pods' },
      { statusCode: 403, message: 'Forbidden' },
    );
    expect(err.message).toContain('forbids watch pods cluster-wide (403 Forbidden)');
    expect(err.message).toContain('{apiGroups: [""], resources: ["pods"], verbs: ["watch"]} (ClusterRole;');
  });

  it('401 points at the credentials', () => {
    expect(kubeError('m', req, { code: 401, body: { message: 'Unauthorized' } }).message).toBe(
      'member cluster "m" did not accept the agent\'s credentials (401 Unauthorized) for patch deployments.apps "web" in namespace "shop": check the kubeconfig or the ServiceAccount token (Unauthorized)',
    );
  });

  it('other failures keep the status and the server message', () => {
    const err = kubeError('m', req, { code: 422, body: { message: 'spec.replicas: Invalid value: -1' } });
    expect(err).toBeInstanceOf(KubeRequestError);
    expect(isInvalid(err)).toBe(true);
    expect(err.message).toBe(
      'member cluster "m": patch deployments.apps "web" in namespace "shop" failed (422): spec.replicas: Invalid value: -1',
    );
    expect(rbacRule(req)).toBe('{apiGroups: ["apps"], resources: ["deployments"], verbs: ["patch"]}');
  });
});

describe('TokenBucket', () => {
  it('lets a burst through, then one per 1/qps', () => {
    const b = new TokenBucket(10, 3);
    expect([0, 0, 0, 0, 0].map((t) => b.take(t))).toEqual([0, 0, 0, 100, 200]);
    expect(b.take(1000)).toBe(0);
  });

  it('rejects a bad rate', () => {
    expect(() => new TokenBucket(0, 1)).toThrow('qps: expected a positive number, got 0');
    expect(() => new TokenBucket(1, 0)).toThrow('burst: expected an integer >= 1, got 0');
  });
});

describe('mapLimited', () => {
  it('keeps at most `concurrency` in flight and returns outcomes in order', async () => {
    let inFlight = 0;
    let most = 0;
    const out = await mapLimited([1, 2, 3, 4, 5], 2, async (n) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((r) => setTimeout(r, 5));
      inFlight--;
      if (n === 3) throw new Error('three');
      return n * 2;
    });
    expect(most).toBe(2);
    expect(out.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message))).toEqual([
      2,
      4,
      'three',
      8,
      10,
    ]);
  });
});
