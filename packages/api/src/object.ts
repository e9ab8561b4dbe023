import type { ObjectMeta } from './meta.js';

/** Any object Flotilla stores: Kubernetes' type meta, object meta, and the kind's own spec and status. */
export interface KubeObject<Spec = unknown, Status = unknown> {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec?: Spec;
  status?: Status;
}

/** A reference to an object by kind and name, in the shape Karmada's `ObjectReference` uses. */
export interface ObjectReference {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
}

/** True for a plain JSON object (not null, not an array). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
