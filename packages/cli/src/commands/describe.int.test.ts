import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloudEvent, EventTypes, publishEvent, type Bus } from '@flotilla/bus';
import type { GatewayClient, StoredLike } from '@flotilla/client';
import { testBus } from '@flotilla/bus/testing';
import type { CliIo, Session } from '../context.js';
import { describeCommand } from './describe.js';

// The decision is read from the real event stream (a fresh prefix on the test NATS); the stored object comes from a
// stand-in for the gateway, which describe only asks for the object and its Kubernetes events.
let bus: Bus & { dispose(): Promise<void> };
beforeAll(async () => {
  bus = await testBus('cli-describe');
});
afterAll(async () => {
  await bus?.dispose();
});

const now = new Date('2026-01-01T00:10:00Z');
const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute));

function session(stored: StoredLike): Session {
  const client = {
    get: async () => stored,
    events: async () => ({ items: [] }),
  } as unknown as GatewayClient;
  return { bus, client };
}

async function describeOutput(kind: string, stored: StoredLike): Promise<string> {
  const out: string[] = [];
  const io: CliIo = {
    out: (t) => void out.push(t),
    err: () => undefined,
    readStdin: async () => '',
    now: () => now,
    env: {},
  };
  expect(await describeCommand(io, session(stored), { kind, name: stored.metadata.name })).toBe(0);
  return out.join('\n');
}

const scheduled = (
  name: string,
  minute: number,
  affinityName: string,
  cluster: string,
  namespace: string | undefined,
) =>
  cloudEvent({
    source: 'affinity-scheduler',
    type: EventTypes.BindingScheduled,
    kind: namespace ? 'ResourceBinding' : 'ClusterResourceBinding',
    namespace,
    name,
    time: at(minute),
    data: {
      clusters: [{ name: cluster, replicas: 2 }],
      affinityName,
      mode: 'Steady',
      filtered: [{ cluster: 'member3', reason: 'cluster(s) were not ready' }],
      groups: [{ affinityName, ok: true, filtered: [{ cluster: 'member3', reason: 'cluster(s) were not ready' }] }],
      kubeEvent: { type: 'Normal', reason: 'ScheduleBindingSucceed', message: `placed on ${cluster}` },
    },
  });

const failed = (name: string, minute: number) =>
  cloudEvent({
    source: 'affinity-scheduler',
    type: EventTypes.BindingScheduleFailed,
    kind: 'ResourceBinding',
    namespace: 'default',
    name,
    time: at(minute),
    data: {
      reason: 'NoClusterFit',
      keptClusters: [{ name: 'member1', replicas: 2 }],
      mode: 'Steady',
      filtered: [{ cluster: 'member1', reason: 'cluster(s) were not ready' }],
      groups: [
        {
          affinityName: 'dc-beijing',
          ok: false,
          message: '0/1 clusters are available: 1 cluster(s) were not ready.',
          filtered: [{ cluster: 'member1', reason: 'cluster(s) were not ready' }],
        },
      ],
      kubeEvent: {
        type: 'Warning',
        reason: 'ScheduleBindingFailed',
        message:
          'group dc-beijing: 0/1 clusters are available: 1 cluster(s) were not ready.; previous assignment kept (member1:2)',
      },
    },
  });

const rb = (name: string): StoredLike => ({
  apiVersion: 'work.karmada.io/v1alpha2',
  kind: 'ResourceBinding',
  metadata: { name, namespace: 'default', uid: 'u1', generation: 3 },
  spec: { replicas: 2, clusters: [{ name: 'member1', replicas: 2 }] },
  status: { schedulerObservingAffinityName: 'dc-beijing' },
});

describe('flotilla describe rb', () => {
  it('shows the latest decision of the binding, whichever of BindingScheduled and BindingScheduleFailed it was', async () => {
    await publishEvent(bus, scheduled('web-deployment', 1, 'dc-beijing', 'member1', 'default'));
    await publishEvent(bus, scheduled('other-deployment', 2, 'dc-hongkong', 'member2', 'default'));
    await publishEvent(bus, failed('web-deployment', 3));

    const afterFailure = await describeOutput('rb', rb('web-deployment'));
    expect(afterFailure).toContain(
      [
        'Scheduling decision:',
        '  Event:           BindingScheduleFailed, 7m ago (2026-01-01T00:03:00.000Z)',
        '  Mode:            Steady',
        '  Reason:          NoClusterFit',
        '  Message:         group dc-beijing: 0/1 clusters are available: 1 cluster(s) were not ready.; previous assignment kept (member1:2)',
        '  Affinity group:  none succeeded',
        '  Kept clusters:',
        '    Cluster   Replicas',
        '    member1   2',
        '  Groups tried:',
        '    dc-beijing:  Failed: 0/1 clusters are available: 1 cluster(s) were not ready.',
        '      Filtered clusters:',
        '        Cluster   Reason',
        '        member1   cluster(s) were not ready',
        'Events:       <none>',
      ].join('\n'),
    );
    // The section comes after the object's status, before its events.
    expect(afterFailure.indexOf('Status:')).toBeLessThan(afterFailure.indexOf('Scheduling decision:'));

    await publishEvent(bus, scheduled('web-deployment', 4, 'dc-hongkong', 'member2', 'default'));
    const afterRecovery = await describeOutput('resourcebinding', rb('web-deployment'));
    expect(afterRecovery).toContain(
      '  Event:           BindingScheduled, 6m ago (2026-01-01T00:04:00.000Z)\n  Mode:            Steady\n  Affinity group:  dc-hongkong',
    );
    expect(afterRecovery).toContain(
      '    dc-hongkong:  Scheduled\n      Filtered clusters:\n        Cluster   Reason\n        member3   cluster(s) were not ready',
    );
    expect(afterRecovery).not.toContain('NoClusterFit');
  });

  it('behind a confirmation without rescheduling ("kept"), shows the scheduling that placed the replicas', async () => {
    const kept = (minute: number) =>
      cloudEvent({
        source: 'affinity-scheduler',
        type: EventTypes.BindingScheduled,
        kind: 'ResourceBinding',
        namespace: 'default',
        name: 'api-deployment',
        time: at(minute),
        data: {
          clusters: [{ name: 'member1', replicas: 2 }],
          affinityName: 'dc-beijing',
          mode: 'Steady',
          kept: true,
          filtered: [],
          groups: [],
        },
      });
    await publishEvent(bus, kept(0)); // a confirmation older than the decision does not count
    await publishEvent(bus, scheduled('api-deployment', 1, 'dc-beijing', 'member1', 'default'));
    await publishEvent(bus, scheduled('web-deployment', 2, 'dc-hongkong', 'member2', 'default'));
    // A failure keeps the assignment; the confirmation after it says the failure no longer holds.
    await publishEvent(bus, failed('api-deployment', 4));
    await publishEvent(bus, kept(6));
    await publishEvent(bus, kept(8));
    const text = await describeOutput('rb', rb('api-deployment'));
    expect(text).toContain(
      [
        'Scheduling decision:',
        '  Event:           BindingScheduled, 9m ago (2026-01-01T00:01:00.000Z)',
        '  Kept:            2m ago (2026-01-01T00:08:00.000Z): nothing asked for rescheduling, the assignment stands',
        '  Mode:            Steady',
        '  Affinity group:  dc-beijing',
      ].join('\n'),
    );
    expect(text).toContain(
      '    dc-beijing:  Scheduled\n      Filtered clusters:\n        Cluster   Reason\n        member3   cluster(s) were not ready',
    );
    expect(text).not.toContain('NoClusterFit');
  });

  it('reads a ClusterResourceBinding decision from the cluster-scoped address', async () => {
    await publishEvent(bus, scheduled('viewer-clusterrole', 5, 'all', 'member1', undefined));
    const crb: StoredLike = {
      apiVersion: 'work.karmada.io/v1alpha2',
      kind: 'ClusterResourceBinding',
      metadata: { name: 'viewer-clusterrole' },
      spec: {},
    };
    const text = await describeOutput('crb', crb);
    expect(text).toContain('Scheduling decision:\n  Event:           BindingScheduled, 5m ago');
    expect(text).toContain('  Affinity group:  all');
  });

  it("does not show a deleted binding's decision for a new binding of the same name", async () => {
    const old = scheduled('reborn-deployment', 2, 'dc-beijing', 'member1', 'default');
    await publishEvent(bus, { ...old, data: { ...(old.data as object), bindingUid: 'u-old' } });
    expect(await describeOutput('rb', rb('reborn-deployment'))).toContain('Scheduling decision:  <none>');
    const mine = scheduled('reborn-deployment', 3, 'dc-hongkong', 'member2', 'default');
    await publishEvent(bus, { ...mine, data: { ...(mine.data as object), bindingUid: 'u1' } });
    expect(await describeOutput('rb', rb('reborn-deployment'))).toContain('  Affinity group:  dc-hongkong');
  });

  it('says there is no decision yet for a binding never scheduled, and adds no section to other kinds', async () => {
    expect(await describeOutput('rb', rb('new-deployment'))).toContain(
      'Scheduling decision:  <none>\nEvents:       <none>',
    );
    const cm: StoredLike = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'web-deployment', namespace: 'default' },
    };
    expect(await describeOutput('configmap', cm)).not.toContain('Scheduling decision');
  });
});
