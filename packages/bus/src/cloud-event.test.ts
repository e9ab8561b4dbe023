import { describe, expect, it } from 'vitest';
import { eventTypeOf, objectDeletedEvent } from './cloud-event.js';

describe('objectDeletedEvent', () => {
  const deletion = {
    source: 'gateway',
    kind: 'ResourceBinding',
    namespace: 'default',
    name: 'web-deployment',
    uid: 'u-1',
    time: new Date('2026-03-08T09:04:00Z'),
  };

  it('addresses the deleted object and says who deleted it', () => {
    const e = objectDeletedEvent(deletion);
    expect(eventTypeOf(e)).toBe('ObjectDeleted');
    expect(e).toMatchObject({
      source: 'gateway',
      subject: 'ResourceBinding/default/web-deployment',
      time: '2026-03-08T09:04:00.000Z',
      data: {},
    });
    expect(objectDeletedEvent({ ...deletion, kind: 'Cluster', namespace: undefined, name: 'm1' }).subject).toBe(
      'Cluster//m1',
    );
  });

  it('has one id per incarnation: a retry or another writer repeats it, a new object of the name does not', () => {
    const first = objectDeletedEvent(deletion);
    const retried = objectDeletedEvent({ ...deletion, source: 'affinity-scheduler', time: new Date() });
    expect(retried.id).toBe(first.id);
    expect(objectDeletedEvent({ ...deletion, uid: 'u-2' }).id).not.toBe(first.id);
    expect(first.id).toBe('u-1/ObjectDeleted');
    expect(objectDeletedEvent({ ...deletion, uid: undefined }).id).toBe(
      'ResourceBinding/default/web-deployment/ObjectDeleted',
    );
  });
});
