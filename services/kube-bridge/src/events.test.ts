import { describe, expect, it } from 'vitest';
import { bridgeEvent, hostEventName, mirroredEvent } from './events.js';

const hostObject = { metadata: { name: 'web-deployment', namespace: 'default', uid: 'host-uid' } };

describe('mirroredEvent', () => {
  it("carries Flotilla's event onto the host object's uid, counted and timed as recorded", () => {
    const event = mirroredEvent(
      {
        type: 'Normal',
        reason: 'ScheduleBindingSucceed',
        message: 'Binding has been scheduled successfully.',
        involvedObject: { kind: 'ResourceBinding', namespace: 'default', name: 'web-deployment', uid: 'flotilla-uid' },
        count: 3,
        firstTimestamp: '2026-11-26T12:00:00Z',
        lastTimestamp: '2026-11-26T12:05:00Z',
        source: { component: 'affinity-scheduler' },
      },
      'ResourceBinding.default.web-deployment.ScheduleBindingSucceed.0123456789abcdef',
      hostObject,
      'work.karmada.io/v1alpha2',
      'bridge-0',
    );
    expect(event).toMatchObject({
      metadata: { namespace: 'default' },
      involvedObject: {
        apiVersion: 'work.karmada.io/v1alpha2',
        kind: 'ResourceBinding',
        name: 'web-deployment',
        namespace: 'default',
        uid: 'host-uid',
      },
      type: 'Normal',
      reason: 'ScheduleBindingSucceed',
      count: 3,
      firstTimestamp: '2026-11-26T12:00:00Z',
      lastTimestamp: '2026-11-26T12:05:00Z',
      source: { component: 'affinity-scheduler' },
      reportingInstance: 'bridge-0',
    });
    expect(event.metadata.name).toMatch(/^web-deployment\.[0-9a-f]{16}$/);
  });
});

describe('event names', () => {
  it('are the same for the same identity and differ otherwise', () => {
    expect(hostEventName('a', 'x')).toBe(hostEventName('a', 'x'));
    expect(hostEventName('a', 'x')).not.toBe(hostEventName('a', 'y'));
  });
  it("name the bridge's own event after the object, reason and message: a retried write is one event", () => {
    const e = (message: string) =>
      bridgeEvent(hostObject, 'v', 'K', { type: 'Warning', reason: 'MirrorConflict', message, at: 't', instance: 'i' });
    expect(e('m').metadata.name).toBe(e('m').metadata.name);
    expect(e('m').metadata.name).not.toBe(e('n').metadata.name);
    expect(e('m')).toMatchObject({ count: 1, source: { component: 'kube-bridge' }, type: 'Warning' });
  });
});
