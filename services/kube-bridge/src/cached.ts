import type { Projection, StatusRecord } from '@flotilla/store';
import { admittedContent, type AnyObject, contentDigest, mirrorContent, statusDigest } from './content.js';
import { MIRRORED_KINDS, POLICY_KINDS } from './kinds.js';

/**
 * What the bridge's caches keep of an object, on either side: what its decisions read and nothing else. Identity
 * (apiVersion, kind, name, namespace; on the host the uid, the finalizers and the deletion mark), the labels of
 * templates (policies select them by label), the resourceVersion, and `contentDigest`, the digest of the mirrored
 * content. The content itself is read again (a GET on the host, a get from Flotilla's bucket) right before a write
 * that needs it. Policies are the exception: every template's decision reads their selectors, so they are kept
 * whole. Strings that repeat from object to object (kinds, namespaces, finalizer lists) are shared, not copied.
 */
export interface CachedObject extends AnyObject {
  metadata: NonNullable<AnyObject['metadata']>;
  /** contentDigest of the mirrored content; for a host object, as admission would store it (admittedContent). */
  contentDigest: string;
}

/** The metadata a cached object keeps: the host's, and Flotilla's (whose uid and finalizers the bridge never reads). */
const HOST_METADATA = ['name', 'namespace', 'uid', 'resourceVersion', 'finalizers', 'deletionTimestamp'] as const;
const FLOTILLA_METADATA = ['name', 'namespace', 'resourceVersion'] as const;

const TEMPLATE_KINDS = new Set(MIRRORED_KINDS.filter((k) => k.template).map((k) => k.info.kind));

/**
 * One copy of each of the few strings and finalizer lists most objects repeat. Bounded: past that many distinct
 * values (a namespace per object, say) a value is kept as it is.
 */
const SHARED_LIMIT = 10_000;
const sharedStrings = new Map<string, string>();
const sharedLists = new Map<string, readonly string[]>();

function shared(s: string): string {
  const known = sharedStrings.get(s);
  if (known !== undefined) return known;
  if (sharedStrings.size < SHARED_LIMIT) sharedStrings.set(s, s);
  return s;
}

function sharedList(list: readonly string[]): readonly string[] {
  const id = list.join('\n');
  const known = sharedLists.get(id);
  if (known !== undefined) return known;
  const copy = Object.freeze(list.map(shared));
  if (sharedLists.size < SHARED_LIMIT) sharedLists.set(id, copy);
  return copy;
}

function cached(o: AnyObject, digest: string, fields: readonly (keyof CachedObject['metadata'])[]): CachedObject {
  const kind = o.kind === undefined ? undefined : shared(o.kind);
  const from = o.metadata ?? {};
  const metadata: CachedObject['metadata'] = {};
  for (const field of fields) {
    const value = from[field];
    if (value === undefined) continue;
    if (field === 'namespace') metadata.namespace = shared(value as string);
    else if (field === 'finalizers') metadata.finalizers = sharedList(value as string[]) as string[];
    else metadata[field] = value;
  }
  if (kind !== undefined && TEMPLATE_KINDS.has(kind) && from.labels) metadata.labels = from.labels;
  if (kind !== undefined && POLICY_KINDS.includes(kind)) {
    const { metadata: _metadata, status: _status, ...rest } = o;
    return {
      ...rest,
      metadata: { ...metadata, ...(from.labels ? { labels: from.labels } : {}) },
      contentDigest: digest,
    };
  }
  return {
    ...(o.apiVersion !== undefined ? { apiVersion: shared(o.apiVersion) } : {}),
    ...(kind !== undefined ? { kind } : {}),
    metadata,
    contentDigest: digest,
  };
}

/**
 * A host object as the host informer caches it. `kind` and `apiVersion` are the kind's own: a list's items and a
 * watch's objects carry them, but they are set here so that a cached object never depends on that.
 */
export function cachedHostObject(o: AnyObject, apiVersion: string, kind: string): CachedObject {
  const whole = { ...o, apiVersion, kind };
  return cached(whole, contentDigest(admittedContent(whole)), HOST_METADATA);
}

/** A Flotilla object as the bridge's objects informers cache it. */
export function cachedFlotillaObject(o: AnyObject): CachedObject {
  return cached(o, contentDigest(mirrorContent(o)), FLOTILLA_METADATA);
}

/** Flotilla's objects, cached as the bridge reads them (the Informer's projection). */
export const FLOTILLA_OBJECT_PROJECTION: Projection<AnyObject, CachedObject> = {
  name: 'kube-bridge mirrored object',
  project: cachedFlotillaObject,
};

/** What the bridge keeps of an object's status in Flotilla: the digest the host's copy is compared by. */
export interface CachedStatus {
  /** statusDigest of the status; undefined while Flotilla has set none. */
  digest: string | undefined;
}

export const FLOTILLA_STATUS_PROJECTION: Projection<StatusRecord, CachedStatus> = {
  name: 'kube-bridge status digest',
  project: (record) => ({ digest: record.status === undefined ? undefined : statusDigest(record.status) }),
};
