import type { CloudEvent } from '@flotilla/bus';
import type { KubeEventStore, ObjectStore, StoredObject } from '@flotilla/store';
import { describe, expect, it } from 'vitest';
import { conflictingKinds, GatewayHandler, type GatewayHandlerOptions } from './handler.js';

const stored = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'settings', namespace: 'default', uid: 'u1', resourceVersion: '3' },
} as unknown as StoredObject;

/** A store that holds one object and forgets it on delete: enough for the handler's delete path. */
function fakeStore(): ObjectStore {
  return {
    mustGet: async () => stored,
    delete: async () => undefined,
  } as unknown as ObjectStore;
}

function options(overrides: Partial<GatewayHandlerOptions> = {}): GatewayHandlerOptions {
  return {
    store: fakeStore(),
    kubeEvents: {} as KubeEventStore,
    publish: async () => undefined,
    ...overrides,
  };
}

describe('GatewayHandler options', () => {
  it.each([
    ['no options at all', undefined, 'GatewayHandler: options must be an object'],
    ['a missing store', { store: undefined }, 'GatewayHandler: store is required'],
    ['a missing kubeEvents', { kubeEvents: undefined }, 'GatewayHandler: kubeEvents is required'],
    ['a missing publish', { publish: undefined }, 'GatewayHandler: publish must be a function, got undefined'],
    ['a clock that is not a function', { now: new Date() }, 'GatewayHandler: now must be a function, got object'],
    ['an ensureRoom of null', { ensureRoom: null }, 'GatewayHandler: ensureRoom must be a function, got null'],
  ])('refuses %s at construction, naming the field', (_what, overrides, message) => {
    const o = overrides === undefined ? undefined : options(overrides as unknown as Partial<GatewayHandlerOptions>);
    expect(() => new GatewayHandler(o as GatewayHandlerOptions)).toThrow(new TypeError(message));
  });

  it('takes the clock it is given for the events it publishes', async () => {
    const published: CloudEvent[] = [];
    const handler = new GatewayHandler(
      options({
        publish: async (e) => void published.push(e),
        now: () => new Date('2026-03-08T09:04:00Z'),
      }),
    );
    await handler.delete({ kind: 'ConfigMap', namespace: 'default', name: 'settings', resourceVersion: '3' });
    expect(published.map((e) => [e.type, e.time])).toEqual([
      [expect.stringMatching(/ObjectDeleted$/), '2026-03-08T09:04:00.000Z'],
    ]);
  });
});

describe("conflictingKinds: what a replica writer's admission reads from the store", () => {
  const cron = (kind: string) => ({ kind: 'CronFederatedHPA', spec: { scaleTargetRef: { kind, name: 'web' } } });
  it.each([
    [
      'a CronFederatedHPA of a workload: the autoscalers only',
      cron('Deployment'),
      ['FederatedHPA', 'EffectiveHorizontalPodAutoscaler'],
    ],
    ['a CronFederatedHPA of a FederatedHPA (its min/max): nothing', cron('FederatedHPA'), []],
    [
      'a FederatedHPA: the autoscalers and the CronFederatedHPAs',
      { kind: 'FederatedHPA' },
      ['FederatedHPA', 'EffectiveHorizontalPodAutoscaler', 'CronFederatedHPA'],
    ],
    ['a Deployment: nothing', { kind: 'Deployment' }, []],
  ])('%s', (_what, object, kinds) => {
    expect(conflictingKinds(object)).toEqual(kinds);
  });
});
