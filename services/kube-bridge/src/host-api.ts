import {
  ApiException,
  CoreV1Api,
  CustomObjectsApi,
  type KubeConfig,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import type { BindingObjectReference, KindInfo } from '@flotilla/api';
import type { AnyObject } from './content.js';

/** The field manager of every server-side apply the bridge makes: `kubectl get -o yaml --show-managed-fields` shows it. */
export const FIELD_MANAGER = 'flotilla';

export interface HostList {
  items: AnyObject[];
  metadata?: { resourceVersion?: string };
}

export interface HostRef {
  name: string;
  namespace?: string | undefined;
}

/** A core/v1 Event as the bridge writes it. */
export interface HostEvent {
  metadata: { name: string; namespace: string };
  involvedObject: Pick<BindingObjectReference, 'apiVersion' | 'kind' | 'name' | 'namespace' | 'uid'>;
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
  count: number;
  firstTimestamp: string;
  lastTimestamp: string;
  source: { component: string };
  reportingComponent: string;
  reportingInstance: string;
}

/** The HTTP status of a failed host request, or undefined when the host could not be reached at all. */
export function hostStatusCode(err: unknown): number | undefined {
  return err instanceof ApiException ? err.code : undefined;
}

/**
 * The host API server, for one kind at a time, through @kubernetes/client-node's generic custom-object client (it
 * builds `/apis/<group>/<version>/…` paths, which serve built-in groups such as apps/v1 as well). Spec writes are
 * plain creates and replaces with the resourceVersion to compare with; status and the bridge's own objects go by
 * server-side apply under FIELD_MANAGER through the status subresource.
 */
export class HostApi {
  private readonly objects: CustomObjectsApi;
  private readonly core: CoreV1Api;
  private static readonly APPLY = setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply);
  private static readonly MERGE = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

  constructor(readonly kubeConfig: KubeConfig) {
    this.objects = kubeConfig.makeApiClient(CustomObjectsApi);
    this.core = kubeConfig.makeApiClient(CoreV1Api);
  }

  /** Watch path of a kind in every namespace. */
  static watchPath(info: KindInfo): string {
    return `/apis/${info.group}/${info.version}/${info.plural}`;
  }

  async list(info: KindInfo): Promise<HostList> {
    return (await this.objects.listClusterCustomObject({
      group: info.group,
      version: info.version,
      plural: info.plural,
    })) as HostList;
  }

  /** Cheap request that answers only while the API server does: `GET /version`-like, through the same client. */
  async probe(info: KindInfo): Promise<void> {
    await this.objects.listClusterCustomObject({
      group: info.group,
      version: info.version,
      plural: info.plural,
      limit: 1,
    });
  }

  async create(info: KindInfo, body: AnyObject): Promise<AnyObject> {
    const p = this.params(info, body.metadata as HostRef);
    return (await (info.namespaced
      ? this.objects.createNamespacedCustomObject({ ...p, namespace: p.namespace!, body })
      : this.objects.createClusterCustomObject({ ...p, body }))) as AnyObject;
  }

  /** Replaces the object; `body.metadata.resourceVersion` makes it fail with 409 if the object changed since. */
  async replace(info: KindInfo, body: AnyObject): Promise<AnyObject> {
    const p = this.params(info, body.metadata as HostRef);
    return (await (info.namespaced
      ? this.objects.replaceNamespacedCustomObject({ ...p, namespace: p.namespace!, name: p.name, body })
      : this.objects.replaceClusterCustomObject({ ...p, name: p.name, body }))) as AnyObject;
  }

  /** Server-side apply of the whole object (for the kinds Flotilla owns), taking every field it sets. */
  async apply(info: KindInfo, body: AnyObject): Promise<AnyObject> {
    const p = this.params(info, body.metadata as HostRef);
    const common = { ...p, name: p.name, body, fieldManager: FIELD_MANAGER, force: true };
    return (await (info.namespaced
      ? this.objects.patchNamespacedCustomObject({ ...common, namespace: p.namespace! }, HostApi.APPLY)
      : this.objects.patchClusterCustomObject(common, HostApi.APPLY))) as AnyObject;
  }

  /** Server-side apply of `status` through the status subresource. */
  async applyStatus(info: KindInfo, ref: HostRef, status: unknown): Promise<AnyObject> {
    const p = this.params(info, ref);
    const body = {
      apiVersion: info.apiVersion,
      kind: info.kind,
      metadata: { name: ref.name, ...(ref.namespace ? { namespace: ref.namespace } : {}) },
      status,
    };
    const common = { ...p, name: p.name, body, fieldManager: FIELD_MANAGER, force: true };
    return (await (info.namespaced
      ? this.objects.patchNamespacedCustomObjectStatus({ ...common, namespace: p.namespace! }, HostApi.APPLY)
      : this.objects.patchClusterCustomObjectStatus(common, HostApi.APPLY))) as AnyObject;
  }

  /**
   * Sets the object's finalizers, only if it is still at `resourceVersion` (409 otherwise): a merge patch replaces
   * the whole list, so the compare-and-set keeps another controller's finalizer written meanwhile.
   */
  async setFinalizers(info: KindInfo, ref: HostRef, finalizers: string[], resourceVersion: string): Promise<AnyObject> {
    const p = this.params(info, ref);
    const body = { metadata: { resourceVersion, finalizers } };
    return (await (info.namespaced
      ? this.objects.patchNamespacedCustomObject({ ...p, namespace: p.namespace!, name: p.name, body }, HostApi.MERGE)
      : this.objects.patchClusterCustomObject({ ...p, name: p.name, body }, HostApi.MERGE))) as AnyObject;
  }

  /** Deletes the object only if it is still at `resourceVersion` (409 otherwise). */
  async delete(info: KindInfo, ref: HostRef, resourceVersion: string): Promise<void> {
    const p = this.params(info, ref);
    const body = { preconditions: { resourceVersion } };
    await (info.namespaced
      ? this.objects.deleteNamespacedCustomObject({ ...p, namespace: p.namespace!, name: p.name, body })
      : this.objects.deleteClusterCustomObject({ ...p, name: p.name, body }));
  }

  /** Writes an event by server-side apply: the same event written twice is one event, not two. */
  async applyEvent(event: HostEvent): Promise<void> {
    await this.core.patchNamespacedEvent(
      {
        name: event.metadata.name,
        namespace: event.metadata.namespace,
        body: { apiVersion: 'v1', kind: 'Event', ...event },
        fieldManager: FIELD_MANAGER,
        force: true,
      },
      HostApi.APPLY,
    );
  }

  private params(info: KindInfo, ref: HostRef) {
    return {
      group: info.group,
      version: info.version,
      plural: info.plural,
      name: ref.name,
      namespace: info.namespaced ? (ref.namespace ?? 'default') : undefined,
    };
  }
}
