import { randomUUID } from 'node:crypto';
import { formatTime } from '@flotilla/api/core';
import { isDeepStrictEqual } from 'node:util';
import {
  isAlreadyExists,
  ConflictError,
  createJson,
  deleteKey,
  getJson,
  listJson,
  updateJson,
  type Bus,
  type Versioned,
} from '@flotilla/bus';
import { backoff } from './backoff.js';
import { NotFoundError, StaleResourceVersionError } from './errors.js';
import { byNamespaceAndName, kindFilter, objectKey, refOf, type ObjectRef, type StoredObject } from './object.js';
import type { StatusRecord } from './status-store.js';

/** A copy of an object and the revision it was read at, as an informer's cache holds it. */
export interface CachedObject {
  value: StoredObject;
  revision: number;
}

export type ApplyOutcome = 'created' | 'configured' | 'unchanged';

export interface StoreOptions {
  now?: () => Date;
  /** How often a write that lost a compare-and-set (with no resourceVersion from the caller) is retried. */
  maxRetries?: number;
}

/**
 * An object's identity as another store gave it: a copy of an object kept elsewhere (the kube-bridge's copies of the
 * host's objects) keeps it, so that the same object has one uid and one creationTimestamp on both sides.
 */
export interface ObjectIdentity {
  uid: string;
  /** RFC3339, seconds (metav1.Time). */
  creationTimestamp: string;
}

export interface ApplyOptions {
  /** A new object takes this identity instead of a fresh one; an existing object keeps its own. */
  identity?: ObjectIdentity | undefined;
  /**
   * What the caller read of the object just before (`read`; null: nothing stored), tried first instead of reading it
   * again: a compare-and-set or a create lost to another writer reads what is stored, as without it.
   */
  current?: Versioned<StoredObject> | null;
}

/**
 * Objects (metadata and spec) in the objects bucket, status in the status bucket under the same key.
 * The objects bucket revision is the resourceVersion; every write is one compare-and-set on it.
 * `metadata.uid` and `creationTimestamp` are set once; `metadata.generation` moves only when `spec` changes.
 */
export class ObjectStore {
  private readonly now: () => Date;
  private readonly maxRetries: number;

  constructor(
    private readonly bus: Bus,
    opts: StoreOptions = {},
  ) {
    this.now = opts.now ?? (() => new Date());
    this.maxRetries = opts.maxRetries ?? 50;
  }

  /** The object as stored, with resourceVersion and its status merged in. */
  async get(ref: ObjectRef): Promise<StoredObject | undefined> {
    const key = objectKey(ref);
    const [obj, status] = await Promise.all([
      getJson<StoredObject>(this.bus.objects, key),
      getJson<StatusRecord>(this.bus.status, key),
    ]);
    return obj ? withVersion(obj, status?.value.status) : undefined;
  }

  /** The object as stored and its revision, without its status: one read, for a caller about to apply it. */
  async read(ref: ObjectRef): Promise<Versioned<StoredObject> | null> {
    return (await getJson<StoredObject>(this.bus.objects, objectKey(ref))) ?? null;
  }

  async mustGet(ref: ObjectRef): Promise<StoredObject> {
    const o = await this.get(ref);
    if (!o) throw new NotFoundError(ref);
    return o;
  }

  /** Every object of a kind (optionally in one namespace), sorted by namespace and name, with status merged. */
  async list(kind: string, namespace?: string): Promise<StoredObject[]> {
    const filter = kindFilter(kind, namespace);
    const [objs, statuses] = await Promise.all([
      listJson<StoredObject>(this.bus.js, this.bus.names.objectsBucket, filter),
      listJson<StatusRecord>(this.bus.js, this.bus.names.statusBucket, filter),
    ]);
    const statusByKey = new Map(statuses.items.map((s) => [s.key, s.value.status]));
    return objs.items.map((o) => withVersion(o, statusByKey.get(o.key))).sort(byNamespaceAndName);
  }

  /**
   * As `list`, without status: one read of the objects bucket instead of two, for callers that look only at specs
   * (the gateway's admission checks).
   */
  async listSpecs(kind: string, namespace?: string): Promise<StoredObject[]> {
    const objs = await listJson<StoredObject>(this.bus.js, this.bus.names.objectsBucket, kindFilter(kind, namespace));
    return objs.items.map((o) => withVersion(o, undefined)).sort(byNamespaceAndName);
  }

  /**
   * Creates or replaces an admitted object (its `status` is ignored: only the status writer writes status).
   * A `metadata.resourceVersion` in the input must match the stored one, else StaleResourceVersionError.
   */
  async apply(input: StoredObject, opts: ApplyOptions = {}): Promise<{ object: StoredObject; outcome: ApplyOutcome }> {
    const ref = refOf(input);
    const key = objectKey(ref);
    const expected = input.metadata.resourceVersion;
    for (let attempt = 0; ; attempt++) {
      const current =
        attempt === 0 && opts.current !== undefined
          ? (opts.current ?? undefined)
          : await getJson<StoredObject>(this.bus.objects, key);
      if (expected !== undefined && expected !== String(current?.revision ?? '')) {
        throw new StaleResourceVersionError(ref, expected, current ? String(current.revision) : undefined);
      }
      const next = current ? this.merge(current.value, input) : this.fresh(input, opts.identity);
      if (current && isDeepStrictEqual(next, current.value)) {
        return { object: await this.withStatus(key, { ...current, value: next }), outcome: 'unchanged' };
      }
      try {
        if (!current) {
          // A new object has no status yet (a deleted one's went with it): nothing to read back.
          const revision = await createJson(this.bus.objects, key, next);
          return { object: withVersion({ key, value: next, revision }, undefined), outcome: 'created' };
        }
        const revision = await updateJson(this.bus.objects, key, next, current.revision);
        return { object: await this.withStatus(key, { key, value: next, revision }), outcome: 'configured' };
      } catch (err) {
        const lost = err instanceof ConflictError || isAlreadyExists(err);
        if (!lost) throw err;
        if (expected !== undefined) throw new StaleResourceVersionError(ref, expected, undefined);
        if (attempt >= this.maxRetries) throw err;
        await backoff(attempt);
      }
    }
  }

  /** Creates an object that must not exist yet (throws AlreadyExistsError otherwise): for controllers' own objects. */
  async create(input: StoredObject): Promise<StoredObject> {
    const key = objectKey(refOf(input));
    const value = this.fresh(input);
    const revision = await createJson(this.bus.objects, key, value);
    return withVersion({ key, value, revision }, undefined);
  }

  /**
   * Read-modify-write for controllers: `mutate` gets the stored object and returns the new one (or undefined to
   * leave it). Retried on a lost compare-and-set, so `mutate` must be a pure function of what it is given.
   * `opts.cached` (an informer's whole copy, not a projection, and its revision) saves the read: it is tried first, and a lost
   * compare-and-set falls back to reading what is stored.
   */
  async update(
    ref: ObjectRef,
    mutate: (current: StoredObject) => StoredObject | undefined,
    opts: { cached?: CachedObject } = {},
  ): Promise<StoredObject | undefined> {
    const key = objectKey(ref);
    for (let attempt = 0; ; attempt++) {
      const current =
        attempt === 0 && opts.cached ? withoutVersion(opts.cached) : await getJson<StoredObject>(this.bus.objects, key);
      if (!current) throw new NotFoundError(ref);
      const changed = mutate(structuredClone(current.value));
      if (changed === undefined) return undefined;
      const next = this.merge(current.value, changed);
      if (isDeepStrictEqual(next, current.value)) return undefined;
      try {
        const revision = await updateJson(this.bus.objects, key, next, current.revision);
        return withVersion({ key, value: next, revision }, undefined);
      } catch (err) {
        if (!(err instanceof ConflictError) || attempt >= this.maxRetries) throw err;
        await backoff(attempt);
      }
    }
  }

  /** Deletes the object and its status. With a resourceVersion, only if it is still the stored one. */
  async delete(ref: ObjectRef, resourceVersion?: string): Promise<void> {
    const key = objectKey(ref);
    const current = await getJson<StoredObject>(this.bus.objects, key);
    if (!current) throw new NotFoundError(ref);
    if (resourceVersion !== undefined && resourceVersion !== String(current.revision)) {
      throw new StaleResourceVersionError(ref, resourceVersion, String(current.revision));
    }
    try {
      await deleteKey(this.bus.objects, key, current.revision);
    } catch (err) {
      if (err instanceof ConflictError) throw new StaleResourceVersionError(ref, String(current.revision), undefined);
      throw err;
    }
    await deleteKey(this.bus.status, key).catch(() => undefined);
  }

  private fresh(input: StoredObject, identity?: ObjectIdentity): StoredObject {
    const { status: _ignored, ...rest } = input;
    const { resourceVersion: _rv, ...meta } = input.metadata;
    return {
      ...rest,
      metadata: {
        ...meta,
        uid: identity?.uid ?? randomUUID(),
        generation: 1,
        creationTimestamp: identity?.creationTimestamp ?? formatTime(this.now()),
      },
    };
  }

  private merge(current: StoredObject, input: StoredObject): StoredObject {
    const { status: _ignored, ...rest } = input;
    const { resourceVersion: _rv, uid: _uid, creationTimestamp: _ct, generation: _gen, ...meta } = input.metadata;
    // One JSON round trip for the input; what is stored came from JSON already and has no undefined fields.
    const next = stripUndefined({
      ...rest,
      metadata: {
        ...meta,
        uid: current.metadata.uid,
        generation: 0,
        creationTimestamp: current.metadata.creationTimestamp,
      },
    }) as StoredObject;
    const specChanged = !isDeepStrictEqual(next.spec, current.spec);
    next.metadata.generation = (current.metadata.generation ?? 1) + (specChanged ? 1 : 0);
    return next;
  }

  private async withStatus(key: string, v: Versioned<StoredObject>): Promise<StoredObject> {
    const status = await getJson<StatusRecord>(this.bus.status, key);
    return withVersion(v, status?.value.status);
  }
}

/** An informer's copy as the bucket holds it: resourceVersion is the revision, not part of the stored value. */
function withoutVersion(v: CachedObject): CachedObject {
  const { status: _status, ...rest } = v.value;
  const { resourceVersion: _rv, ...metadata } = v.value.metadata;
  return { ...v, value: { ...rest, metadata } as StoredObject };
}

/** A stored object as the API shows it: its revision as metadata.resourceVersion, and its status when given. */
export function withVersion(v: Versioned<StoredObject>, status?: unknown): StoredObject {
  const o: StoredObject = { ...v.value, metadata: { ...v.value.metadata, resourceVersion: String(v.revision) } };
  if (status !== undefined) o.status = status;
  return o;
}

/** JSON round-trip semantics: a field set to undefined is the same as an absent one. */
function stripUndefined<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}
