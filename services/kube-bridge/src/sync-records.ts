import type { Redis } from 'ioredis';
import type { SyncRecord } from './decide.js';

/**
 * The bridge's sync records, one per mirrored object, in one Redis hash (`<prefix>:kube-bridge:sync`, field = the
 * object's key). Only the leader writes them, so the copy in memory, loaded once per leadership term, is the truth
 * and Redis is its durable copy: a reconcile reads memory and writes through.
 */
export class SyncRecords {
  private readonly records = new Map<string, SyncRecord>();
  constructor(
    private readonly redis: Redis,
    private readonly hashKey: string,
  ) {}

  static hashKeyFor(prefix: string): string {
    return `${prefix}:kube-bridge:sync`;
  }

  async load(): Promise<void> {
    this.records.clear();
    const all = await this.redis.hgetall(this.hashKey);
    for (const [key, value] of Object.entries(all)) this.records.set(key, JSON.parse(value) as SyncRecord);
  }

  get(key: string): SyncRecord | undefined {
    return this.records.get(key);
  }

  keys(): IterableIterator<string> {
    return this.records.keys();
  }

  get size(): number {
    return this.records.size;
  }

  async set(key: string, record: SyncRecord): Promise<void> {
    await this.redis.hset(this.hashKey, key, JSON.stringify(record));
    this.records.set(key, record);
  }

  async delete(key: string): Promise<void> {
    await this.redis.hdel(this.hashKey, key);
    this.records.delete(key);
  }
}
