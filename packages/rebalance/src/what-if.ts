import { formatTime } from '@flotilla/api';
import { isDeepStrictEqual } from 'node:util';
import { RebalanceInputError } from './errors.js';
import { bindingKey } from './binding-ref.js';
import { planRebalance, reconcileRebalancer } from './reconcile.js';
import { selectWorkloads, type SelectableTemplate } from './selectors.js';
import type { BindingLookup, BindingRef, BindingView, BindingWriteOutcome, WorkloadRebalancer } from './types.js';

const BINDING_KINDS = new Set(['ResourceBinding', 'ClusterResourceBinding']);

/** `what-if rebalance -o json`: a List, plus whether the rebalancer is deleted and when the controller looks again. */
export interface WhatIfRebalanceResult {
  apiVersion: 'v1';
  kind: 'List';
  /** The WorkloadRebalancer as the controller leaves it, then every binding it wrote. */
  items: object[];
  deleted: boolean;
  requeueAfterSeconds: number | null;
}

/**
 * Offline, one pass of the rebalancer controller over one WorkloadRebalancer and the (Cluster)ResourceBindings
 * (and, for spec.workloadSelectors, the resource templates) given, at `now`: the same decision the service makes.
 * The rebalancer's metadata counts as stored (creationTimestamp, default `now`; generation, default 1;
 * resourceVersion) and so does its status. A written binding moves to the next generation, as the store does.
 * The status is the controller's one pass: the status writer folds exactly these events.
 */
export function whatIfRebalance(objects: readonly unknown[], now: Date): WhatIfRebalanceResult {
  const rebalancers: WorkloadRebalancer[] = [];
  const bindings = new Map<string, BindingView & { apiVersion?: string }>();
  const templates: SelectableTemplate[] = [];
  objects.forEach((o, i) => {
    if (o === null || o === undefined) return;
    const obj = o as { kind?: unknown; apiVersion?: unknown; metadata?: { name?: unknown; namespace?: string } };
    if (typeof obj.kind !== 'string' || typeof obj.metadata?.name !== 'string')
      throw new RebalanceInputError(`objects[${i}]`, 'expected a Kubernetes object with kind and metadata.name');
    if (obj.kind === 'WorkloadRebalancer') rebalancers.push(structuredClone(o) as WorkloadRebalancer);
    else if (BINDING_KINDS.has(obj.kind)) {
      const b = o as BindingView;
      if (typeof b.spec?.resource?.apiVersion !== 'string')
        throw new RebalanceInputError(`objects[${i}].spec.resource`, 'Required value');
      bindings.set(
        bindingKey({ kind: obj.kind as BindingRef['kind'], namespace: b.metadata.namespace, name: b.metadata.name }),
        b,
      );
    } else templates.push(o as SelectableTemplate);
  });
  if (rebalancers.length !== 1)
    throw new RebalanceInputError('objects', `expected exactly one WorkloadRebalancer, found ${rebalancers.length}`);
  const rebalancer = rebalancers[0]!;
  rebalancer.metadata = {
    ...rebalancer.metadata,
    creationTimestamp: rebalancer.metadata.creationTimestamp ?? formatTime(now),
    generation: rebalancer.metadata.generation ?? 1,
  };

  const plan = {
    rebalancer,
    selected: selectWorkloads(rebalancer.spec?.workloadSelectors, templates),
    lookup: (_w: unknown, ref: BindingRef): BindingLookup => {
      const b = bindings.get(bindingKey(ref));
      return b ? { found: b } : { notFound: true };
    },
  };
  // Offline, every write the controller would make succeeds; a written binding moves to the next generation.
  const writes = new Map<string, BindingWriteOutcome>();
  const written = planRebalance(plan).map((w) => {
    const b = bindings.get(bindingKey(w.binding))!;
    const spec = { ...b.spec, rescheduleTriggeredAt: w.rescheduleTriggeredAt };
    const generation = (b.metadata.generation ?? 1) + (isDeepStrictEqual(spec, b.spec) ? 0 : 1);
    const after = { ...b, metadata: { ...b.metadata, generation }, spec };
    writes.set(bindingKey(w.binding), { written: after });
    return after;
  });
  const d = reconcileRebalancer({ ...plan, writes, now });
  const { status: _stored, ...rest } = rebalancer;
  const after = d.status ? { ...rest, status: d.status } : rest;
  return {
    apiVersion: 'v1',
    kind: 'List',
    items: [after, ...written],
    deleted: d.delete,
    requeueAfterSeconds: d.requeueAfterMs === null ? null : Math.ceil(d.requeueAfterMs / 1000),
  };
}
