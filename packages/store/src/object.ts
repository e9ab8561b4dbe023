import type { KubeObject, ObjectMeta } from '@flotilla/api';

/** The API's object as the store keeps it: any kind, and fields it does not know are carried along. */
export interface StoredObject extends KubeObject {
  metadata: ObjectMeta & { [field: string]: unknown };
  [field: string]: unknown;
}

export interface ObjectRef {
  kind: string;
  /** Omitted or "" for cluster-scoped kinds. */
  namespace?: string | undefined;
  name: string;
}

/** KV key of an object: `<Kind>.<namespace or _>.<name>`. Names may hold dots; they are always the last part. */
export function objectKey(ref: ObjectRef): string {
  return `${ref.kind}.${ref.namespace || '_'}.${ref.name}`;
}

/** Key filter for every object of a kind, optionally in one namespace. */
export function kindFilter(kind: string, namespace?: string): string {
  return namespace === undefined ? `${kind}.>` : `${kind}.${namespace || '_'}.>`;
}

/** The order of every listing: by namespace, then name. */
export function byNamespaceAndName(a: Pick<StoredObject, 'metadata'>, b: Pick<StoredObject, 'metadata'>): number {
  return (
    (a.metadata.namespace ?? '').localeCompare(b.metadata.namespace ?? '') ||
    a.metadata.name.localeCompare(b.metadata.name)
  );
}

export function refOf(o: StoredObject): ObjectRef {
  return { kind: o.kind, namespace: o.metadata.namespace, name: o.metadata.name };
}

export function refFromKey(key: string): ObjectRef {
  const first = key.indexOf('.');
  const second = key.indexOf('.', first + 1);
  const ns = key.slice(first + 1, second);
  return { kind: key.slice(0, first), namespace: ns === '_' ? undefined : ns, name: key.slice(second + 1) };
}

export function describeRef(ref: ObjectRef): string {
  return ref.namespace ? `${ref.kind} ${ref.namespace}/${ref.name}` : `${ref.kind} ${ref.name}`;
}

/**
 * True when the object has its spec. The API's object types leave spec optional (a generic KubeObject may have
 * none), but admission requires it of every kind whose schema has one: a stored policy or binding always passes.
 */
export function hasSpec<T extends { spec?: unknown }>(o: T): o is T & { spec: NonNullable<T['spec']> } {
  return o.spec !== undefined && o.spec !== null;
}
