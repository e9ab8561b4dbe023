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
  it('keeps identity, resourceVersion, finalizers and the content digest only', () => {
    const o = hostCron(3);
    expect(cachedHostObject(o, API_VERSION, 'CronFederatedHPA')).toEqual({
      apiVersion: API_VERSION,
      kind: 'CronFederatedHPA',
      metadata: {
        name: 'scale-up',
        namespace: 'default',
        uid: 'host-uid',
        resourceVersion: '812',
        finalizers: ['kube-bridge.flotilla.io/mirror'],
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

describe('what each cache keeps', () => {
  const deployment = (name: string): AnyObject => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: '5', labels: { app: name } },
    spec: { replicas: 2 },
  });

  it("templates keep their labels (policies select them by label); other kinds don't", () => {
    expect(cachedHostObject(deployment('web'), 'apps/v1', 'Deployment').metadata.labels).toEqual({ app: 'web' });
    expect(cachedHostObject(hostCron(3), API_VERSION, 'CronFederatedHPA').metadata.labels).toBeUndefined();
  });

  it("Flotilla's copy keeps no uid or finalizers (the bridge reads those of the host object only)", () => {
    expect(cachedFlotillaObject(hostCron(3)).metadata).toEqual({
      name: 'scale-up',
      namespace: 'default',
      resourceVersion: '812',
    });
  });

  it('objects share one copy of a finalizer list and of a namespace', () => {
    const a = cachedHostObject(hostCron(3), API_VERSION, 'CronFederatedHPA');
    const b = cachedHostObject(hostCron(4, { name: 'other' }), API_VERSION, 'CronFederatedHPA');
    expect(a.metadata.finalizers).toBe(b.metadata.finalizers);
    expect(Object.isFrozen(a.metadata.finalizers)).toBe(true);
  });
});

describe('FLOTILLA_STATUS_PROJECTION', () => {
  it('keeps the digest of the status, or none while there is none', () => {
    const status = { executionHistories: [{ ruleName: 'peak' }] };
    expect(FLOTILLA_STATUS_PROJECTION.project({ seq: 4, status })).toEqual({ digest: statusDigest(status) });
    expect(FLOTILLA_STATUS_PROJECTION.project({ seq: 4, status: undefined })).toEqual({ digest: undefined });
  });
});
