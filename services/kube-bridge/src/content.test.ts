import { describe, expect, it } from 'vitest';
import { hostBody, mirrorContent, sameContent } from './content.js';

const hostCopy = {
  apiVersion: 'policy.karmada.io/v1alpha1',
  kind: 'PropagationPolicy',
  metadata: {
    name: 'nginx',
    namespace: 'default',
    uid: 'host-uid',
    resourceVersion: '812',
    generation: 2,
    creationTimestamp: '2026-11-26T10:00:00Z',
    managedFields: [{ manager: 'kubectl' }],
    finalizers: ['example.com/keep'],
    labels: { app: 'nginx' },
    annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}', team: 'web' },
  },
  spec: { resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'nginx' }] },
  status: { observed: true },
};
const flotillaCopy = {
  apiVersion: 'policy.karmada.io/v1alpha1',
  kind: 'PropagationPolicy',
  metadata: {
    name: 'nginx',
    namespace: 'default',
    uid: 'flotilla-uid',
    resourceVersion: '44',
    generation: 1,
    labels: { app: 'nginx' },
    annotations: { team: 'web' },
  },
  spec: { resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'nginx' }] },
};

describe('mirrorContent', () => {
  it('reads the same object the same from either side', () => {
    expect(sameContent(mirrorContent(hostCopy), mirrorContent(flotillaCopy))).toBe(true);
    expect(mirrorContent(hostCopy)).toEqual({
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'PropagationPolicy',
      metadata: { name: 'nginx', namespace: 'default', labels: { app: 'nginx' }, annotations: { team: 'web' } },
      spec: hostCopy.spec,
    });
  });
  it('a spec change is a change', () => {
    const changed = { ...flotillaCopy, spec: { resourceSelectors: [] } };
    expect(sameContent(mirrorContent(hostCopy), mirrorContent(changed))).toBe(false);
  });
  it('empty labels and annotations are the same as none', () => {
    const bare = { ...flotillaCopy, metadata: { name: 'nginx', namespace: 'default', labels: {}, annotations: {} } };
    expect(mirrorContent(bare).metadata).toEqual({ name: 'nginx', namespace: 'default' });
  });
});

describe('hostBody', () => {
  it("keeps the host's finalizers and host-only annotations and sets the resourceVersion to compare with", () => {
    const body = hostBody(mirrorContent(flotillaCopy), hostCopy, '812');
    expect(body.metadata).toEqual({
      name: 'nginx',
      namespace: 'default',
      resourceVersion: '812',
      labels: { app: 'nginx' },
      annotations: { team: 'web', 'kubectl.kubernetes.io/last-applied-configuration': '{}' },
      finalizers: ['example.com/keep'],
    });
    expect(body.status).toBeUndefined();
  });
});

describe('admittedContent', () => {
  it("reads a host object as Flotilla stores it after admission's defaulting", async () => {
    const { admittedContent } = await import('./content.js');
    const cron = {
      apiVersion: 'autoscaling.karmada.io/v1alpha1',
      kind: 'CronFederatedHPA',
      metadata: { name: 'c', namespace: 'default' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        rules: [{ name: 'r', schedule: '0 8 * * *', targetReplicas: 3 }],
      },
    };
    const { admit } = await import('@flotilla/api');
    expect(sameContent(admittedContent(cron), mirrorContent(admit(cron) as never))).toBe(true);
    expect(sameContent(mirrorContent(cron), mirrorContent(admit(cron) as never))).toBe(false);
  });
  it('compares an object admission refuses as it is', async () => {
    const { admittedContent } = await import('./content.js');
    const bad = {
      apiVersion: 'autoscaling.karmada.io/v1alpha1',
      kind: 'CronFederatedHPA',
      metadata: { name: 'c' },
      spec: { rules: 'no' },
    };
    expect(admittedContent(bad)).toEqual(mirrorContent(bad));
  });
});
