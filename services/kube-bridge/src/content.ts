import { isDeepStrictEqual } from 'node:util';
import { admit, type ObjectMeta } from '@flotilla/api';
import { stableDigest } from '@flotilla/kube-client';

/** An object as either side holds it: any kind, metadata as Kubernetes writes it. */
export interface AnyObject {
  apiVersion?: string;
  kind?: string;
  metadata?: Partial<
    Pick<
      ObjectMeta,
      'name' | 'namespace' | 'uid' | 'resourceVersion' | 'deletionTimestamp' | 'labels' | 'annotations' | 'finalizers'
    >
  > & { [field: string]: unknown };
  status?: unknown;
  [field: string]: unknown;
}

/**
 * What the bridge copies between the sides: identity, labels, annotations and every top-level field but `status`
 * (`spec` for most kinds). System metadata (uid, resourceVersion, generation, timestamps, managed fields, owner
 * references, finalizers) belongs to each side's own store and is never copied.
 */
export interface MirrorContent {
  apiVersion: string;
  kind: string;
  metadata: Pick<ObjectMeta, 'name' | 'namespace' | 'labels' | 'annotations'>;
  [field: string]: unknown;
}

/**
 * Annotations only one side means anything by: kubectl's record of the last client-side apply (large, and about the
 * host's history, not the object). They stay where they are written and are not compared.
 */
export const HOST_ONLY_ANNOTATIONS: readonly string[] = ['kubectl.kubernetes.io/last-applied-configuration'];

/** The mirrored part of an object, normalised so that the same object reads the same from either side. */
export function mirrorContent(o: AnyObject): MirrorContent {
  const { apiVersion, kind, metadata = {}, status: _status, ...rest } = o;
  const content: MirrorContent = {
    apiVersion: apiVersion ?? '',
    kind: kind ?? '',
    metadata: { name: metadata.name ?? '' },
    ...structuredClone(rest),
  };
  if (metadata.namespace) content.metadata.namespace = metadata.namespace;
  if (metadata.labels && Object.keys(metadata.labels).length) content.metadata.labels = { ...metadata.labels };
  const annotations = Object.entries(metadata.annotations ?? {}).filter(([k]) => !HOST_ONLY_ANNOTATIONS.includes(k));
  if (annotations.length) content.metadata.annotations = Object.fromEntries(annotations);
  return content;
}

/**
 * The mirrored part of a host object as Flotilla would store it: admission's defaulting applied, so that an object
 * mirrored in reads the same on both sides even when the record of that write was lost. An object admission refuses
 * is compared as it is (the gateway will refuse it with the field path when it is written).
 */
export function admittedContent(o: AnyObject): MirrorContent {
  const content = mirrorContent(o);
  try {
    return mirrorContent(admit(content) as AnyObject);
  } catch {
    return content;
  }
}

export function sameContent(a: MirrorContent, b: MirrorContent): boolean {
  return isDeepStrictEqual(a, b);
}

/** A short digest of a status as written: what the sync record keeps instead of the status itself. */
export function statusDigest(status: unknown): string {
  return digestOf(status ?? null);
}

/**
 * A short digest of an object's mirrored content: what the caches and the sync record keep instead of the content.
 * Equal contents have equal digests whatever order their fields were written in (a field set to undefined counts
 * as absent, as it does once written to either side).
 */
export function contentDigest(content: MirrorContent): string {
  return digestOf(content);
}

/** sha256 of the value's stable JSON, 132 bits in base64url (as the sync records hold it): a collision is not a practical concern. */
function digestOf(value: unknown): string {
  return stableDigest(value, { encoding: 'base64url', length: 22 });
}

/**
 * The body that makes the host's object carry `content`: the host's own system metadata (finalizers, owner
 * references) and host-only annotations are kept, and `resourceVersion` makes the write a compare-and-set.
 */
export function hostBody(content: MirrorContent, current: AnyObject | undefined, resourceVersion?: string): AnyObject {
  const body = structuredClone(content) as AnyObject;
  const meta = body.metadata!;
  const keep = Object.entries(current?.metadata?.annotations ?? {}).filter(([k]) => HOST_ONLY_ANNOTATIONS.includes(k));
  if (keep.length) meta.annotations = { ...meta.annotations, ...Object.fromEntries(keep) };
  if (current?.metadata?.finalizers?.length) meta.finalizers = [...current.metadata.finalizers];
  if (current?.metadata?.ownerReferences) meta.ownerReferences = current.metadata.ownerReferences;
  if (resourceVersion !== undefined) meta.resourceVersion = resourceVersion;
  return body;
}

/** The body that makes Flotilla's object carry `content`, a compare-and-set on `resourceVersion` when given. */
export function flotillaBody(content: MirrorContent, resourceVersion?: string): AnyObject {
  const body = structuredClone(content) as AnyObject;
  if (resourceVersion !== undefined) body.metadata!.resourceVersion = resourceVersion;
  return body;
}
