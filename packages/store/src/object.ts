/** The JSON shape every stored object has; kinds add their own spec and status. */
export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  [field: string]: unknown;
}

export interface StoredObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec?: unknown;
  status?: unknown;
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
