import type { Bus } from '@flotilla/bus';
import {
  InformedSpecs,
  type InformerLogger,
  type Informers,
  type Projection,
  type SpecLister,
  type StoredObject,
} from '@flotilla/store';
import type { Registry } from 'prom-client';
import { AUTOSCALER_KINDS } from './scale-target-conflict.js';

/** The kinds that write a workload's replicas: an apply of one is checked against the others (handler.ts). */
export const REPLICA_WRITER_KINDS = [...AUTOSCALER_KINDS, 'CronFederatedHPA'] as const;

/**
 * How long an admission waits for its cache to catch up with the newest write before it lists the store instead:
 * the informer is normally a few milliseconds behind; a cache slower than this is not worth waiting for.
 */
export const SPEC_CATCH_UP_MS = 1000;

/** What the conflict checks read of a replica writer (scale-target-conflict.ts): who it is and what it scales. */
export const REPLICA_WRITER_PROJECTION: Projection<StoredObject, StoredObject> = {
  name: 'replicaWriterTarget',
  project: (o) => {
    const spec = (o.spec ?? {}) as { scaleTargetRef?: unknown; scaleStrategy?: unknown };
    return {
      apiVersion: o.apiVersion,
      kind: o.kind,
      metadata: { name: o.metadata.name, namespace: o.metadata.namespace, resourceVersion: o.metadata.resourceVersion },
      spec: {
        ...(spec.scaleTargetRef === undefined ? {} : { scaleTargetRef: spec.scaleTargetRef }),
        ...(spec.scaleStrategy === undefined ? {} : { scaleStrategy: spec.scaleStrategy }),
      },
    };
  },
};

/**
 * The replica writers' specs for admission, from informers kept by this gateway replica, never older than the store
 * (InformedSpecs: each read waits for the cache to hold the newest write of the kind in the namespace).
 */
export function replicaWriterSpecs(o: {
  bus: Bus;
  informers: Informers;
  store: SpecLister;
  registry?: Registry | undefined;
  logger?: InformerLogger | undefined;
}): InformedSpecs<StoredObject> {
  return new InformedSpecs({
    ...o,
    kinds: REPLICA_WRITER_KINDS,
    projection: REPLICA_WRITER_PROJECTION,
    catchUpMs: SPEC_CATCH_UP_MS,
  });
}
