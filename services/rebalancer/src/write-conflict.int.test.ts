import { ObjectStore, type ObjectRef, type StoredObject } from '@flotilla/store';
import { eventually } from '@flotilla/testkit';
import type { RebalanceDecision, TriggeredWorkload } from '@flotilla/rebalance';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RebalancerController } from './controller.js';
import { bindingFor, harness, rebalancer, workload, type Harness } from './testing/harness.js';

/** Before the rebalancer's compare-and-set on a binding named in `races`, another writer changes it first. */
class RacingStore extends ObjectStore {
  readonly races = new Map<string, (other: ObjectStore, ref: ObjectRef) => Promise<unknown>>();
  private readonly other: ObjectStore;

  constructor(h: Harness) {
    super(h.bus);
    this.other = h.store;
  }

  override async update(...args: Parameters<ObjectStore['update']>): Promise<StoredObject | undefined> {
    const race = this.races.get(args[0].name);
    this.races.delete(args[0].name);
    await race?.(this.other, args[0]);
    return super.update(...args);
  }
}

let h: Harness;
let store: RacingStore;
let controller: RebalancerController;
const passes: Array<{ key: string; decision: RebalanceDecision }> = [];

beforeAll(async () => {
  h = await harness('rebalancer-cas');
  store = new RacingStore(h);
  controller = h.controller({ store, onPass: (p) => passes.push(p) });
  await controller.start();
});
afterAll(async () => {
  await h?.dispose();
});

const LATER = '2099-01-01T00:00:00Z';
type Status = { observedWorkloads?: Array<{ workload: { name: string }; result?: string; reason?: string }> };
const finished = (name: string) =>
  eventually(
    async () => {
      const s = (await h.store.get({ kind: 'WorkloadRebalancer', name }))?.status as
        | (Status & { finishTime?: string })
        | undefined;
      return s?.finishTime ? s : undefined;
    },
    10_000,
    `${name} finished`,
  );
const triggered = (name: string): TriggeredWorkload[] =>
  passes
    .filter((p) => p.key.endsWith(`.${name}`))
    .flatMap((p) => p.decision.events.flatMap((e) => (e.type === 'RebalanceTriggered' ? e.data.workloads : [])));

describe('rebalancer: a binding write that loses its compare-and-set', () => {
  it('to a newer trigger: Successful without a write, and the event says so (the later time kept)', async () => {
    await h.apply(bindingFor('cas-a'));
    await h.apply(bindingFor('cas-b'));
    // Wait for the informer to hold both, so that the write goes from its (then stale) copy.
    await eventually(async () =>
      (await h.store.get({ kind: 'ResourceBinding', namespace: 'default', name: 'cas-b-deployment' }))
        ? true
        : undefined,
    );
    await controller.caughtUp();
    store.races.set('cas-a-deployment', (other, ref) =>
      other.update(ref, (cur) => ({ ...cur, spec: { ...(cur.spec as object), rescheduleTriggeredAt: LATER } })),
    );
    const rb = await h.apply(rebalancer('cas', [workload('cas-a'), workload('cas-b')]));
    const s = await finished('cas');
    expect(s.observedWorkloads?.map((o) => [o.workload.name, o.result])).toEqual([
      ['cas-a', 'Successful'],
      ['cas-b', 'Successful'],
    ]);
    expect(triggered('cas').map((t) => [t.workload.name, t.written, t.rescheduleTriggeredAt])).toEqual([
      ['cas-a', false, LATER],
      ['cas-b', true, rb.metadata.creationTimestamp],
    ]);
    const a = await h.store.get({ kind: 'ResourceBinding', namespace: 'default', name: 'cas-a-deployment' });
    expect((a?.spec as { rescheduleTriggeredAt?: string } | undefined)?.rescheduleTriggeredAt).toBe(LATER);
  });

  it('to a delete: Failed, ReferencedBindingNotFound, and no RebalanceTriggered for it', async () => {
    await h.apply(bindingFor('gone-a'));
    await eventually(async () =>
      (await h.store.get({ kind: 'ResourceBinding', namespace: 'default', name: 'gone-a-deployment' }))
        ? true
        : undefined,
    );
    await controller.caughtUp();
    store.races.set('gone-a-deployment', (other, ref) => other.delete(ref));
    await h.apply(rebalancer('gone', [workload('gone-a')]));
    const s = await finished('gone');
    expect(s.observedWorkloads?.map((o) => [o.workload.name, o.result, o.reason])).toEqual([
      ['gone-a', 'Failed', 'ReferencedBindingNotFound'],
    ]);
    expect(triggered('gone')).toEqual([]);
  });
});
