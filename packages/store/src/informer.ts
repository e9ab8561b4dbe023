import { decodeJson, listJson, KvWatchInclude, type Bus, type KV } from '@flotilla/bus';
import { kindFilter, refFromKey, type ObjectRef, type StoredObject } from './object.js';

export type InformerEvent<T> =
  | { type: 'upsert'; key: string; ref: ObjectRef; value: T; revision: number }
  | { type: 'delete'; key: string; ref: ObjectRef; revision: number };

/**
 * A local cache of one kind (objects or status bucket), filled by one list and kept current by a watch that resumes
 * right after the list: the informer of client-go, over a KV bucket. Handlers run one at a time, in revision order.
 */
export class Informer<T = StoredObject> {
  readonly cache = new Map<string, { value: T; revision: number }>();
  private stopped = false;
  private lastRevision = 0;
  private watcher?: { stop(): void };
  private synced!: Promise<void>;

  constructor(
    private readonly bus: Bus,
    /** For `kubeEvents`, keys are `<object key>.<reason>.<digest>`: read the object from the value's involvedObject. */
    private readonly bucket: 'objects' | 'status' | 'kubeEvents',
    private readonly kind: string,
    private readonly onEvent: (e: InformerEvent<T>) => void | Promise<void> = () => undefined,
    /** Keeps only what the owner reads (client-go's transform): the cache of a large kind stays small. */
    private readonly transform: (value: T) => T = (v) => v,
  ) {}

  /** Lists, delivers every object as an upsert, then follows changes. Resolves once the list is delivered. */
  start(): Promise<void> {
    this.synced = this.run();
    return this.synced;
  }

  stop(): void {
    this.stopped = true;
    this.watcher?.stop();
  }

  get(ref: ObjectRef): T | undefined {
    return this.cache.get(`${ref.kind}.${ref.namespace || '_'}.${ref.name}`)?.value;
  }

  /**
   * The bucket revision this cache has caught up with: the list's last revision, then each event's. A write the
   * owner made at a higher revision is not in the cache yet.
   */
  get revision(): number {
    return this.lastRevision;
  }

  values(): T[] {
    return [...this.cache.values()].map((v) => v.value);
  }

  private async run(): Promise<void> {
    const kv: KV = this.bus[this.bucket];
    const bucketName = {
      objects: this.bus.names.objectsBucket,
      status: this.bus.names.statusBucket,
      kubeEvents: this.bus.names.kubeEventsBucket,
    }[this.bucket];
    const snap = await listJson<T>(this.bus.js, bucketName, kindFilter(this.kind));
    for (const item of snap.items)
      await this.apply({
        type: 'upsert',
        key: item.key,
        ref: refFromKey(item.key),
        value: item.value,
        revision: item.revision,
      });
    this.lastRevision = Math.max(this.lastRevision, snap.lastRevision);
    if (this.stopped) return;
    const iter = await kv.watch({
      key: kindFilter(this.kind),
      include: KvWatchInclude.UpdatesOnly,
      resumeFromRevision: snap.lastRevision + 1,
    });
    this.watcher = iter;
    void (async () => {
      for await (const e of iter) {
        if (this.stopped) break;
        const ref = refFromKey(e.key);
        if (e.operation === 'PUT')
          await this.apply({ type: 'upsert', key: e.key, ref, value: decodeJson<T>(e.value), revision: e.revision });
        else await this.apply({ type: 'delete', key: e.key, ref, revision: e.revision });
      }
    })();
  }

  private async apply(e: InformerEvent<T>): Promise<void> {
    this.lastRevision = Math.max(this.lastRevision, e.revision);
    const known = this.cache.get(e.key);
    if (known && known.revision >= e.revision) return; // already seen (list and watch can overlap)
    if (e.type === 'upsert') {
      if (this.bucket === 'objects') {
        const o = e.value as StoredObject;
        o.metadata = { ...o.metadata, resourceVersion: String(e.revision) };
      }
      e = { ...e, value: this.transform(e.value) };
      this.cache.set(e.key, { value: e.value, revision: e.revision });
    } else this.cache.delete(e.key);
    await this.onEvent(e);
  }
}
