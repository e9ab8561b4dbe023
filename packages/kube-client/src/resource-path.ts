import type { KindDefinition } from '@flotilla/api';

/**
 * Where a resource is served: what discovery (or the kind registry) says of it. `group` is '' for the core group
 * (`/api/v1`); `plural` is the resource name in paths, e.g. deployments.
 */
export type ResourceInfo = Pick<KindDefinition, 'group' | 'version' | 'plural' | 'namespaced'>;

/** Which object of a resource: a name, and a namespace for a namespaced one. */
export interface ObjectName {
  name: string;
  namespace?: string | undefined;
}

/** `/api/v1` for the core group, `/apis/<group>/<version>` for a named one. */
export function groupVersionPath(r: Pick<ResourceInfo, 'group' | 'version'>): string {
  return r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
}

/**
 * The collection: in `namespace` for a namespaced resource when one is given, else every namespace (what a
 * cluster-wide list or watch reads); a cluster-scoped resource ignores `namespace`.
 */
export function collectionPath(r: ResourceInfo, namespace?: string): string {
  const ns = r.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${groupVersionPath(r)}${ns}/${r.plural}`;
}

/** One object, or one of its subresources (`status`). */
export function objectPath(r: ResourceInfo, object: ObjectName, subresource?: string): string {
  const path = `${collectionPath(r, object.namespace)}/${encodeURIComponent(object.name)}`;
  return subresource ? `${path}/${subresource}` : path;
}
