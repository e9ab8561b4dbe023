import type { Bus } from '@flotilla/bus';
import { TRAIL_AUTOSCALER_KINDS } from '@flotilla/replica-trail';
import type { Registry } from 'prom-client';
import { InformedSpecs, type SpecLister } from './informed-specs.js';
import type { InformerLogger, Projection } from './informer.js';
import type { Informers } from './informers.js';
import type { StoredObject } from './object.js';

/**
 * The kinds that write a workload's replicas (the autoscalers a replica trail reads): the gateway checks an apply of
 * one against the others, and the status writer finds the ones aimed at a workload whose trail it projects.
 */
export const REPLICA_WRITER_KINDS = TRAIL_AUTOSCALER_KINDS;

/**
 * How long a read waits for its cache to catch up with the newest write before it lists the store instead: the
 * informer is normally a few milliseconds behind; a cache slower than this is not worth waiting for.
 */
export const SPEC_CATCH_UP_MS = 1000;

/**
 * What is read of a replica writer: who it is and what it scales (the gateway's conflict checks, and the replica
 * trail's `trailAddresses`, which reads `scaleTargetRef` alone).
 */
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
 * The replica writers' specs, from informers kept by this process, never older than the store (InformedSpecs: each
 * read waits for the cache to hold the newest write of the kind in the namespace).
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
