import type { ObjectOfKind, StatusOfKind } from '@flotilla/api';
import type { Bus } from '@flotilla/bus';
import type { Registry } from 'prom-client';
import {
  Informer,
  type InformerBucket,
  type InformerLogger,
  type InformerOptions,
  type Projection,
  type ReadinessSink,
} from './informer.js';
import type { StoredObject } from './object.js';
import type { StatusRecord } from './status-store.js';

/** An object of a kind as an informer hands it out: the kind's type, with what the store carries along. */
export type CachedKind<K extends string> = ObjectOfKind<K> & StoredObject;

export interface InformersOptions {
  bus: Bus;
  logger?: InformerLogger;
  registry?: Registry;
  /** The service's readiness gates: each informer closes its own while its cache cannot be trusted. */
  readiness?: ReadinessSink;
  auditIntervalMs?: number;
  retryDelayMs?: number;
}

/** Two users of one process asked for different projections of one kind; they must share one cache. */
export class InformerProjectionConflictError extends Error {
  constructor(
    readonly bucket: InformerBucket,
    readonly kind: string,
    readonly existing: string | undefined,
    readonly requested: string | undefined,
  ) {
    const name = (p: string | undefined) => (p === undefined ? 'whole values' : `projection "${p}"`);
    super(
      `informer ${bucket}/${kind} is shared by every user in the process and keeps ${name(existing)}, ` +
        `but ${name(requested)} was asked for: give its users one projection that keeps what each of them reads`,
    );
    this.name = 'InformerProjectionConflictError';
  }
}

/**
 * The informers of one process: one per (bucket, kind), shared by every controller that watches it, typed from
 * api's kind registry. Create one per service process (with the service's logger, registry and readiness gates)
 * and hand it to each controller; an informer runs while any controller subscribes to it.
 */
export class Informers {
  private readonly byKey = new Map<string, Informer<unknown>>();

  constructor(private readonly o: InformersOptions) {}

  /**
   * The informer of a kind's objects (metadata and spec, resourceVersion set), whole or projected. A projection may
   * read the stored value as a looser or narrower type than the kind's (a view of the fields it keeps).
   */
  objects<K extends string>(kind: K): Informer<CachedKind<K>>;
  objects<K extends string, T>(kind: K, projection: Projection<never, T>): Informer<T>;
  objects<K extends string, T>(kind: K, projection?: Projection<never, T>): Informer<T> {
    return this.informer('objects', kind, projection as Projection<never, T> | undefined);
  }

  /** The informer of a kind's status records, whole or projected. */
  status<K extends string>(kind: K): Informer<StatusRecord<StatusOfKind<K>>>;
  status<K extends string, T>(kind: K, projection: Projection<never, T>): Informer<T>;
  status<K extends string, T>(kind: K, projection?: Projection<never, T>): Informer<T> {
    return this.informer('status', kind, projection as Projection<never, T> | undefined);
  }

  /** The informer of a kind's leases (`bus.leases`: member-agent renewals per cluster), whole. */
  leases<T>(kind: string): Informer<T> {
    return this.informer('leases', kind, undefined);
  }

  /** The informer of a kind's member usage (`bus.usage`: latest usage per binding and cluster), whole. */
  usage<T>(kind: string): Informer<T> {
    return this.informer('usage', kind, undefined);
  }

  /**
   * The informer of the Kubernetes-style events (`bus.kubeEvents`) about a kind's objects, whole; `*` for every
   * kind's (keys `<object key>.<reason>.<digest>`).
   */
  kubeEvents<T>(kind: string): Informer<T> {
    return this.informer('kubeEvents', kind, undefined);
  }

  /** Every informer made so far (for tests and metrics). */
  all(): Array<Informer<unknown>> {
    return [...this.byKey.values()];
  }

  private informer<T>(bucket: InformerBucket, kind: string, projection: Projection<never, T> | undefined): Informer<T> {
    const key = `${bucket}/${kind}`;
    const existing = this.byKey.get(key) as Informer<T> | undefined;
    if (existing) {
      if (existing.projectionName !== projection?.name)
        throw new InformerProjectionConflictError(bucket, kind, existing.projectionName, projection?.name);
      return existing;
    }
    const options: InformerOptions<T> = {
      bus: this.o.bus,
      bucket,
      kind,
      projection,
      logger: this.o.logger,
      registry: this.o.registry,
      readiness: this.o.readiness,
      auditIntervalMs: this.o.auditIntervalMs,
      retryDelayMs: this.o.retryDelayMs,
    };
    const made = new Informer<T>(options);
    this.byKey.set(key, made as Informer<unknown>);
    return made;
  }
}

/**
 * A service's `open` step (runBusService): the process's informers, with the service's logger, registry and
 * readiness gates, so that each informer closes its gate while its cache cannot be trusted.
 */
export function openInformers(
  service: { logger: InformerLogger; registry: Registry; gates: ReadinessSink },
  { bus }: { bus: Bus },
): { informers: Informers } {
  return {
    informers: new Informers({ bus, logger: service.logger, registry: service.registry, readiness: service.gates }),
  };
}
