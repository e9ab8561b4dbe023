import { BucketRevisions, type Bus } from '@flotilla/bus';
import { Counter, type Registry } from 'prom-client';
import type { Informer, InformerLogger, Projection } from './informer.js';
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
  /** Where a failed revision watch is logged. */
  logger?: InformerLogger | undefined;
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
 * `listSpecs` answered from informers, never older than the store. Each read first learns the newest revision of the
 * kind in the namespace (BucketRevisions: one constant-time request for the bucket's last sequence, shared by
 * concurrent reads, where asking the server for the kind's newest revision costs time that grows with the bucket),
 * waits for its informer to have seen that revision, and then reads the cache. So every write made before the read
 * began is in the answer, whichever process made it (another gateway replica's a moment ago included): the
 * guarantee of reading the store, without listing it. An informer or revision watch that is not following the bucket
 * (not synced yet, being rebuilt, cut off) or does not catch up within `catchUpMs` is bypassed: that read lists the
 * store.
 */
export class InformedSpecs<T extends Pick<StoredObject, 'kind' | 'metadata'>> implements SpecLister {
  private readonly byKind = new Map<string, Informer<T>>();
  private readonly reads: Counter<'kind' | 'source'> | undefined;
  private readonly revisions: BucketRevisions;

  constructor(private readonly o: InformedSpecsOptions<T>) {
    if (!Number.isFinite(o.catchUpMs) || o.catchUpMs <= 0)
      throw new RangeError(`InformedSpecs: catchUpMs must be a positive number, got ${o.catchUpMs}`);
    for (const kind of o.kinds) this.byKind.set(kind, o.informers.objects(kind, o.projection as never) as Informer<T>);
    this.reads = o.registry ? specReads(o.registry) : undefined;
    this.revisions = new BucketRevisions({ bus: o.bus, bucket: o.bus.names.objectsBucket, logger: o.logger });
  }

  /** Starts the informers and the revision watch; resolves once each has read the bucket. */
  async start(): Promise<void> {
    await Promise.all([this.revisions.start(), ...[...this.byKind.values()].map((i) => i.start())]);
  }

  stop(): void {
    this.revisions.stop();
    for (const i of this.byKind.values()) i.stop();
  }

  async listSpecs(kind: string, namespace?: string): Promise<StoredObject[]> {
    const informer = this.byKind.get(kind);
    if (informer) {
      const prefix = kindFilter(kind, namespace).slice(0, -1); // `Kind.namespace.` (or `Kind.` for every namespace)
      const written = await this.revisions.newestUnder(prefix, this.o.catchUpMs);
      if (written !== undefined && (await informer.caughtUp(written, this.o.catchUpMs))) {
        this.reads?.inc({ kind, source: 'cache' });
        const out: StoredObject[] = [];
        for (const [key, { value }] of informer.cache) if (key.startsWith(prefix)) out.push(value as never);
        return out.sort(byNamespaceAndName);
      }
    }
    this.reads?.inc({ kind, source: 'store' });
    return await this.o.store.listSpecs(kind, namespace);
  }
}
