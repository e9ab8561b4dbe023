import { describe, expect, it } from 'vitest';
import { cachedFlotillaObject, cachedHostObject, FLOTILLA_STATUS_PROJECTION } from './cached.js';
import { admittedContent, type AnyObject, contentDigest, mirrorContent, statusDigest } from './content.js';

const API_VERSION = 'autoscaling.karmada.io/v1alpha1';
const hostCron = (targetReplicas: number, metadata: Record<string, unknown> = {}, status?: unknown): AnyObject => ({
  apiVersion: API_VERSION,
  kind: 'CronFederatedHPA',
  metadata: {
    name: 'scale-up',
    namespace: 'default',
    uid: 'host-uid',
    resourceVersion: '812',
    generation: 2,
    creationTimestamp: '2026-11-26T10:00:00Z',
    managedFields: [{ manager: 'kubectl', fieldsV1: { 'f:spec': {} } }],
    finalizers: ['kube-bridge.flotilla.io/mirror'],
    labels: { app: 'web' },
    annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"a":"long record"}', team: 'web' },
    ...metadata,
  },
  spec: {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
    rules: [{ name: 'peak', schedule: '0 8 * * 1-5', targetReplicas }],
  },
  ...(status === undefined ? {} : { status }),
});

describe('cachedHostObject', () => {
  it('keeps identity, labels, resourceVersion, generation, finalizers and the content digest only', () => {
    const o = hostCron(3);
    expect(cachedHostObject(o, API_VERSION, 'CronFederatedHPA')).toEqual({
      apiVersion: API_VERSION,
      kind: 'CronFederatedHPA',
      metadata: {
        name: 'scale-up',
        namespace: 'default',
        uid: 'host-uid',
        resourceVersion: '812',
        generation: 2,
        finalizers: ['kube-bridge.flotilla.io/mirror'],
        labels: { app: 'web' },
      },
      contentDigest: contentDigest(admittedContent(o)),
    });
  });

  it('keeps the deletion mark', () => {
    const o = hostCron(3, { deletionTimestamp: '2026-11-26T11:00:00Z' });
    expect(cachedHostObject(o, API_VERSION, 'CronFederatedHPA').metadata.deletionTimestamp).toBe(
      '2026-11-26T11:00:00Z',
    );
  });

  it.each([
    ['a finalizer', hostCron(3, { finalizers: ['example.com/keep'], resourceVersion: '813' })],
    ['a status', hostCron(3, { resourceVersion: '813' }, { executionHistories: [] })],
    ['managed fields', hostCron(3, { managedFields: [], resourceVersion: '813' })],
    ['the last-applied record', hostCron(3, { annotations: { team: 'web' }, resourceVersion: '813' })],
  ])('a write of %s only leaves the digest as it was', (_what, changed) => {
    const digest = (o: AnyObject) => cachedHostObject(o, API_VERSION, 'CronFederatedHPA').contentDigest;
    expect(digest(changed)).toBe(digest(hostCron(3)));
  });

  it('a spec, label or annotation change is a new digest', () => {
    const digest = (o: AnyObject) => cachedHostObject(o, API_VERSION, 'CronFederatedHPA').contentDigest;
    const before = digest(hostCron(3));
    expect(digest(hostCron(4))).not.toBe(before);
    expect(digest(hostCron(3, { labels: { app: 'api' } }))).not.toBe(before);
    expect(digest(hostCron(3, { annotations: { team: 'api' } }))).not.toBe(before);
  });

  it("reads the same as Flotilla's copy of the same content (admission applied)", () => {
    const flotillaCopy = {
      ...mirrorContent(admittedContent(hostCron(3)) as AnyObject),
      metadata: {
        name: 'scale-up',
        namespace: 'default',
        labels: { app: 'web' },
        annotations: { team: 'web' },
        resourceVersion: '44',
      },
    };
    expect(cachedFlotillaObject(flotillaCopy).contentDigest).toBe(
      cachedHostObject(hostCron(3), API_VERSION, 'CronFederatedHPA').contentDigest,
    );
  });

  it('keeps policies whole but for their status and system metadata: templates are selected by them', () => {
    const policy: AnyObject = {
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'PropagationPolicy',
      metadata: { name: 'web', namespace: 'default', resourceVersion: '9', managedFields: [{}] },
      spec: { resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }] },
      status: { observed: true },
    };
    const cached = cachedHostObject(policy, 'policy.karmada.io/v1alpha1', 'PropagationPolicy');
    expect(cached.spec).toEqual(policy.spec);
    expect(cached.status).toBeUndefined();
    expect(cached.metadata).toEqual({ name: 'web', namespace: 'default', resourceVersion: '9' });
  });
});

describe('FLOTILLA_STATUS_PROJECTION', () => {
  it('keeps the digest of the status, or none while there is none', () => {
    const status = { executionHistories: [{ ruleName: 'peak' }] };
    expect(FLOTILLA_STATUS_PROJECTION.project({ seq: 4, status })).toEqual({ digest: statusDigest(status) });
    expect(FLOTILLA_STATUS_PROJECTION.project({ seq: 4, status: undefined })).toEqual({ digest: undefined });
  });
});
