import { lastRevisionOf, type Bus } from '@flotilla/bus';
import { Counter, type Registry } from 'prom-client';
import type { Informer, Projection } from './informer.js';
import type { Informers } from './informers.js';
import { byNamespaceAndName, kindFilter, type StoredObject } from './object.js';

/** The stored specs of a kind, in one namespace or all (sorted by namespace and name): ObjectStore's `listSpecs`. */
export interface SpecLister {
  listSpecs(kind: string, namespace?: string): Promise<StoredObject[]>;
}

export interface InformedSpecsOptions<T extends Pick<StoredObject, 'kind' | 'metadata'>> {
  bus: Bus;
  /** The process's informers: one per kind below, with `projection`. */
  informers: Informers;
  /** Where a kind not cached here, or a cache that cannot catch up, is read from: the bucket itself. */
  store: SpecLister;
  /** The kinds answered from a cache. */
  kinds: readonly string[];
  /** What the cache keeps of each object (the fields its readers use), so that it stays small. */
  projection: Projection<StoredObject, T>;
  /** How long a read waits for its cache to catch up before it reads the store instead. */
  catchUpMs: number;
  /** Where reads are counted by where they were answered from (`flotilla_spec_reads_total`). */
  registry?: Registry | undefined;
}

const countersOf = new WeakMap<Registry, Counter<'kind' | 'source'>>();
/** One counter per registry, however many readers count into it. */
function specReads(registry: Registry): Counter<'kind' | 'source'> {
  let c = countersOf.get(registry);
  if (!c) {
    c = new Counter({
      name: 'flotilla_spec_reads_total',
      help: 'Reads of stored specs (admission conflict checks), by kind and where they were answered (cache or store)',
      labelNames: ['kind', 'source'],
      registers: [registry],
    });
    countersOf.set(registry, c);
  }
  return c;
}

/**
 * `listSpecs` answered from informers, never older than the store. Each read first asks the bucket for the newest
 * revision of the kind in the namespace (one request, where the store's listing is a consumer and several), waits
 * for its informer to have seen that revision, and then reads the cache. So every write made before the read began
 * is in the answer, whichever process made it (another gateway replica's a moment ago included): the guarantee of
 * reading the store, without listing it. An informer that is not following the bucket (not synced yet, being
 * rebuilt, cut off) or does not catch up within `catchUpMs` is bypassed: that read lists the store.
 */
export class InformedSpecs<T extends Pick<StoredObject, 'kind' | 'metadata'>> implements SpecLister {
  private readonly byKind = new Map<string, Informer<T>>();
  private readonly reads: Counter<'kind' | 'source'> | undefined;

  constructor(private readonly o: InformedSpecsOptions<T>) {
    if (!Number.isFinite(o.catchUpMs) || o.catchUpMs <= 0)
      throw new RangeError(`InformedSpecs: catchUpMs must be a positive number, got ${o.catchUpMs}`);
    for (const kind of o.kinds) this.byKind.set(kind, o.informers.objects(kind, o.projection as never) as Informer<T>);
    this.reads = o.registry ? specReads(o.registry) : undefined;
  }

  /** Starts the informers; resolves once each has listed its kind. */
  async start(): Promise<void> {
    await Promise.all([...this.byKind.values()].map((i) => i.start()));
  }

  stop(): void {
    for (const i of this.byKind.values()) i.stop();
  }

  async listSpecs(kind: string, namespace?: string): Promise<StoredObject[]> {
    const informer = this.byKind.get(kind);
    if (informer) {
      const filter = kindFilter(kind, namespace);
      const written = await lastRevisionOf(this.o.bus.jsm, this.o.bus.names.objectsBucket, filter);
      if (await informer.caughtUp(written, this.o.catchUpMs)) {
        this.reads?.inc({ kind, source: 'cache' });
        const prefix = filter.slice(0, -1); // `Kind.namespace.` (or `Kind.` for every namespace)
        const out: StoredObject[] = [];
        for (const [key, { value }] of informer.cache) if (key.startsWith(prefix)) out.push(value as never);
        return out.sort(byNamespaceAndName);
      }
    }
    this.reads?.inc({ kind, source: 'store' });
    return await this.o.store.listSpecs(kind, namespace);
  }
}
