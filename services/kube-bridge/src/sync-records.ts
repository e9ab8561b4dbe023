import type { Redis } from 'ioredis';
import type { SyncRecord } from './decide.js';

/**
 * The bridge's sync records, one per mirrored object, in one Redis hash (`<prefix>:kube-bridge:sync`, field = the
 * object's key). Only the leader writes them, so the copy in memory, loaded once per leadership term, is the truth
 * and Redis is its durable copy: a reconcile reads memory and writes through.
 */
export class SyncRecords<R = SyncRecord> {
  private readonly records = new Map<string, R>();
  constructor(
    private readonly redis: Redis,
    private readonly hashKey: string,
  ) {}

  static hashKeyFor(prefix: string): string {
    return `${prefix}:kube-bridge:sync`;
  }

  /** The hash of the events written: per Flotilla event key, the digest of what the host was given. */
  static eventsHashKeyFor(prefix: string): string {
    return `${prefix}:kube-bridge:events`;
  }

  async load(): Promise<void> {
    this.records.clear();
    const all = await this.redis.hgetall(this.hashKey);
    for (const [key, value] of Object.entries(all)) this.records.set(key, JSON.parse(value) as R);
  }

  get(key: string): R | undefined {
    return this.records.get(key);
  }

  keys(): IterableIterator<string> {
    return this.records.keys();
  }

  get size(): number {
    return this.records.size;
  }

  async set(key: string, record: R): Promise<void> {
    await this.redis.hset(this.hashKey, key, JSON.stringify(record));
    this.records.set(key, record);
  }

  async delete(key: string): Promise<void> {
    await this.redis.hdel(this.hashKey, key);
    this.records.delete(key);
  }
}
