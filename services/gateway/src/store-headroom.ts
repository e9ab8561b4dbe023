/** What JetStream's account info says of file storage: bytes in use, and the account's limit (-1: none). */
export interface StorageUse {
  usedBytes: number;
  maxBytes: number;
}

export class StoreFullError extends Error {
  constructor(
    readonly use: StorageUse,
    readonly headroomPercent: number,
  ) {
    const percent = Math.floor((use.usedBytes / use.maxBytes) * 100);
    super(
      `JetStream storage is ${percent}% full (${use.usedBytes} of ${use.maxBytes} bytes): creates and updates are ` +
        `refused once less than ${headroomPercent}% is free, so that deletes still go through. Delete objects you ` +
        "no longer need, or raise the account's JetStream max_store (the server's max_file_store), or lower " +
        'EVENTS_MAX_BYTES to give objects more of the store',
    );
    this.name = 'StoreFullError';
  }
}

/** Undefined while an apply may go ahead; otherwise the refusal. An unlimited store (max -1 or 0) is never full. */
export function storeFullness(use: StorageUse, headroomPercent: number): StoreFullError | undefined {
  if (use.maxBytes <= 0 || headroomPercent <= 0) return undefined;
  const free = use.maxBytes - use.usedBytes;
  return free * 100 < use.maxBytes * headroomPercent ? new StoreFullError(use, headroomPercent) : undefined;
}

/**
 * Keeps room in JetStream for deletes: a KV delete is itself a write (a tombstone), so a store filled by applies
 * would refuse the deletes that could free it. The account info costs a JetStream API call, so one answer serves
 * the applies of the next `maxAgeMs`.
 */
export class StoreHeadroom {
  private cached: { at: number; use: StorageUse } | undefined;

  constructor(
    private readonly readUse: () => Promise<StorageUse>,
    private readonly headroomPercent: number,
    private readonly maxAgeMs = 1000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Throws StoreFullError when the store is within the headroom of its limit. */
  async ensureRoom(): Promise<void> {
    const at = this.now();
    if (!this.cached || at - this.cached.at >= this.maxAgeMs) this.cached = { at, use: await this.readUse() };
    const refusal = storeFullness(this.cached.use, this.headroomPercent);
    if (refusal) throw refusal;
  }
}

/** The part of JetStream's manager the headroom reads. */
export interface AccountInfoSource {
  getAccountInfo(): Promise<{ storage: number; limits: { max_storage?: number } }>;
}

/**
 * File storage in use against the account's limit. An account without JetStream limits of its own reports -1 (the
 * server's max_file_store is not told to clients): `fallbackMaxBytes` then stands for it.
 */
export function jetStreamStorageUse(jsm: AccountInfoSource, fallbackMaxBytes = -1): () => Promise<StorageUse> {
  return async () => {
    const info = await jsm.getAccountInfo();
    const max = info.limits.max_storage ?? -1;
    return { usedBytes: info.storage, maxBytes: max > 0 ? max : fallbackMaxBytes };
  };
}
