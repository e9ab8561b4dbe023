import type { Projection, StatusRecord } from '@flotilla/store';
import { admittedContent, type AnyObject, contentDigest, mirrorContent, statusDigest } from './content.js';
import { POLICY_KINDS } from './kinds.js';

/**
 * What the bridge's caches keep of an object, on either side: what its decisions read and nothing else. Identity
 * (apiVersion, kind, name, namespace, uid), the labels policies select templates by, the resourceVersion, generation,
 * finalizers and deletion mark, and `contentDigest`, the digest of the mirrored content. The content itself is read
 * again (a GET on the host, a get from Flotilla's bucket) right before a write that needs it. Policies are the
 * exception: every template's decision reads their selectors, so they are kept whole.
 */
export interface CachedObject extends AnyObject {
  metadata: NonNullable<AnyObject['metadata']> & { generation?: number };
  /** contentDigest of the mirrored content; for a host object, as admission would store it (admittedContent). */
  contentDigest: string;
}

/** The metadata fields a cached object keeps. */
const KEPT_METADATA = [
  'name',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'finalizers',
  'deletionTimestamp',
  'labels',
] as const;

function cached(o: AnyObject, digest: string): CachedObject {
  const metadata: CachedObject['metadata'] = {};
  for (const field of KEPT_METADATA) {
    const value = o.metadata?.[field];
    if (value !== undefined) (metadata as Record<string, unknown>)[field] = value;
  }
  if (o.kind !== undefined && POLICY_KINDS.includes(o.kind)) {
    const { metadata: _metadata, status: _status, ...rest } = o;
    return { ...rest, metadata, contentDigest: digest };
  }
  return {
    ...(o.apiVersion !== undefined ? { apiVersion: o.apiVersion } : {}),
    ...(o.kind !== undefined ? { kind: o.kind } : {}),
    metadata,
    contentDigest: digest,
  };
}

/**
 * A host object as the host informer caches it. `kind` and `apiVersion` are the kind's own: a list's items and a
 * watch's objects carry them, but they are set here so that a cached object never depends on that.
 */
export function cachedHostObject(o: AnyObject, apiVersion: string, kind: string): CachedObject {
  return cached({ ...o, apiVersion, kind }, contentDigest(admittedContent({ ...o, apiVersion, kind })));
}

/** A Flotilla object as the bridge's objects informers cache it. */
export function cachedFlotillaObject(o: AnyObject): CachedObject {
  return cached(o, contentDigest(mirrorContent(o)));
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
