import type { CloudEvent } from '@flotilla/bus';
import { ManualClock } from '@flotilla/runtime';
import { describe, expect, it } from 'vitest';
import { StatusPublisher } from './status-publisher.js';

const fhpa = { metadata: { namespace: 'shop', name: 'web', uid: 'u1', generation: 2 } };

function publisher() {
  const events: CloudEvent[] = [];
  const status = new StatusPublisher({
    kind: 'FederatedHPA',
    idPrefix: 'fhpa',
    source: 'hpa-assigner',
    volatileFields: ['lastScaleTime'],
    publish: async (e) => void events.push(e),
    clock: new ManualClock(new Date('2026-03-08T09:04:00Z')),
  });
  return { status, events };
}

describe('StatusPublisher (the FederatedHPA and EffectiveHPA controllers)', () => {
  it('publishes a patch once, and again only when it changes beyond its volatile fields', async () => {
    const { status, events } = publisher();
    await status.observe(fhpa, 'FederatedHPAObserved', { currentReplicas: 3, lastScaleTime: 'a' });
    await status.observe(fhpa, 'FederatedHPAObserved', { currentReplicas: 3, lastScaleTime: 'b' });
    expect(events).toHaveLength(1);
    await status.observe(fhpa, 'FederatedHPAObserved', { currentReplicas: 4, lastScaleTime: 'b' });
    expect(events.map((e) => (e.data as { statusPatch: unknown }).statusPatch)).toEqual([
      { currentReplicas: 3, lastScaleTime: 'a' },
      { currentReplicas: 4, lastScaleTime: 'b' },
    ]);
  });

  it('always publishes with a Kubernetes event, as a Normal one beside the patch and the extra data', async () => {
    const { status, events } = publisher();
    const patch = { currentReplicas: 3 };
    await status.observe(fhpa, 'FederatedHPAObserved', patch);
    await status.observe(
      fhpa,
      'FederatedHPAScaled',
      patch,
      { reason: 'SuccessfulRescale', message: 'New size: 3' },
      {
        toReplicas: 3,
      },
    );
    expect(events).toHaveLength(2);
    expect(events[1]).toMatchObject({
      source: 'hpa-assigner',
      subject: 'FederatedHPA/shop/web',
      time: '2026-03-08T09:04:00.000Z',
      data: {
        toReplicas: 3,
        statusPatch: patch,
        kubeEvent: { type: 'Normal', reason: 'SuccessfulRescale', message: 'New size: 3' },
      },
    });
  });

  it('derives the id from uid, type, generation and patch, so a retried publish is the same message', async () => {
    const first = publisher();
    const second = publisher();
    await first.status.observe(fhpa, 'FederatedHPAObserved', { currentReplicas: 3 });
    await second.status.observe(fhpa, 'FederatedHPAObserved', { currentReplicas: 3 });
    expect(first.events[0]!.id).toMatch(/^fhpa\.u1\.FederatedHPAObserved\.2\.[0-9a-f]{16}$/);
    expect(second.events[0]!.id).toBe(first.events[0]!.id);
  });

  it('publishes again for an object it was told to forget (deleted, then made anew)', async () => {
    const { status, events } = publisher();
    await status.observe(fhpa, 'FederatedHPAObserved', { currentReplicas: 3 });
    status.forget('FederatedHPA.shop.web');
    await status.observe(fhpa, 'FederatedHPAObserved', { currentReplicas: 3 });
    expect(events).toHaveLength(2);
  });
});
