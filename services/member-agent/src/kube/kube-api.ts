import type { KubeInformer, KubeInformerOptions, RawObject, ResourceInfo } from '@flotilla/kube-client';
import type { Manifest, MemberRef } from './member-objects.js';

export type { ResourceInfo };

/**
 * What the driver gives each member informer; the API layer adds the client, the request and the cluster. `name`
 * (metrics and readiness) is `<apiVersion>/<kind>` unless given.
 */
export type MemberInformerOptions<T> = Omit<
  KubeInformerOptions<T>,
  'client' | 'request' | 'server' | 'toError' | 'name'
> & { name?: string };

/**
 * What the kube driver does with a member cluster's API server. Implemented over @flotilla/kube-client by
 * `client-node-api.ts`; every error it throws names the request and the cluster (KubeAccessError on 401 / 403).
 */
export interface MemberClusterApi {
  /** `/readyz` (Karmada: 200 is healthy, any other answer unhealthy); rejects when the server does not answer. */
  readyz(): Promise<boolean>;
  /**
   * Why `/readyz` answered not ok, where the member can say (a simulated cluster whose `spec.simulation` cannot be
   * read names the field); a real API server's answer is not read, and Karmada's fixed message stands alone.
   */
  unhealthyReason?(): string | undefined;
  /** `gitVersion` of the API server, e.g. "v1.36.3". */
  version(): Promise<string>;
  resource(apiVersion: string, kind: string): Promise<ResourceInfo>;
  /** An informer (list + watch) over one kind, cluster-wide; not started. */
  informer<T>(apiVersion: string, kind: string, opts: MemberInformerOptions<T>): Promise<KubeInformer<T>>;
  /** Server-side apply with field manager `flotilla` (forced: what Flotilla applies is Flotilla's); returns the object. */
  apply(manifest: Manifest): Promise<RawObject>;
  /** Deletes an object (background propagation); a missing one is not an error. */
  remove(ref: MemberRef): Promise<void>;
  /** CPU used by each pod of `namespace` (metrics.k8s.io), in millicores by pod name. */
  podCpuMilli(namespace: string): Promise<Map<string, number>>;
  /** Closes the connections it keeps open (after the driver stopped); a later request opens new ones. */
  close(): void;
}
