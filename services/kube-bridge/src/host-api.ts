import type { BindingObjectReference, KindInfo } from '@flotilla/api';
import { KubeApi, type ObjectName, type RawObject, type ResourceInfo } from '@flotilla/kube-client';
import type { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import type { AnyObject } from './content.js';

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

const EVENTS: ResourceInfo = { group: '', version: 'v1', plural: 'events', namespaced: true };

/**
 * The host API server, for one kind at a time, through @flotilla/kube-client's KubeApi (paths of any group, errors
 * as KubeApiError). Spec writes are plain creates and replaces with the resourceVersion to compare with; status and
 * the bridge's own objects go by server-side apply under kube-client's FIELD_MANAGER, status through the status
 * subresource. An object of a namespaced kind without a namespace is in `default`, as kubectl puts it.
 */
export class HostApi {
  readonly api: KubeApi;

  constructor(readonly kubeConfig: KubeConfig) {
    this.api = new KubeApi(kubeConfig);
  }

  /** The object as it is now; undefined when it does not exist. */
  async get(info: KindInfo, ref: HostRef): Promise<AnyObject | undefined> {
    return await this.api.get<AnyObject>(info, located(info, ref));
  }

  async create(info: KindInfo, body: AnyObject): Promise<AnyObject> {
    return (await this.api.create(info, locatedBody(info, body))) as AnyObject;
  }

  /** Replaces the object; `body.metadata.resourceVersion` makes it fail with 409 if the object changed since. */
  async replace(info: KindInfo, body: AnyObject): Promise<AnyObject> {
    return (await this.api.replace(info, locatedBody(info, body))) as AnyObject;
  }

  /** Server-side apply of the whole object (for the kinds Flotilla owns), taking every field it sets. */
  async apply(info: KindInfo, body: AnyObject): Promise<AnyObject> {
    return (await this.api.apply(info, locatedBody(info, body))) as AnyObject;
  }

  /** Server-side apply of `status` through the status subresource. */
  async applyStatus(info: KindInfo, ref: HostRef, status: unknown): Promise<AnyObject> {
    const at = located(info, ref);
    const body = {
      apiVersion: info.apiVersion,
      kind: info.kind,
      metadata: { name: at.name, ...(at.namespace ? { namespace: at.namespace } : {}) },
      status,
    };
    return (await this.api.apply(info, body, { subresource: 'status' })) as AnyObject;
  }

  /**
   * Sets the object's finalizers, only if it is still at `resourceVersion` (409 otherwise): a merge patch replaces
   * the whole list, so the compare-and-set keeps another controller's finalizer written meanwhile.
   */
  async setFinalizers(info: KindInfo, ref: HostRef, finalizers: string[], resourceVersion: string): Promise<AnyObject> {
    return await this.api.mergePatch<AnyObject>(info, located(info, ref), {
      metadata: { resourceVersion, finalizers },
    });
  }

  /** Deletes the object only if it is still at `resourceVersion` (409 otherwise). */
  async delete(info: KindInfo, ref: HostRef, resourceVersion: string): Promise<void> {
    await this.api.delete(info, located(info, ref), { resourceVersion });
  }

  /** Writes an event by server-side apply: the same event written twice is one event, not two. */
  async applyEvent(event: HostEvent): Promise<void> {
    await this.api.apply(EVENTS, { apiVersion: 'v1', kind: 'Event', ...event } as RawObject);
  }
}

function located(info: KindInfo, ref: HostRef): ObjectName {
  return { name: ref.name, namespace: info.namespaced ? (ref.namespace ?? 'default') : undefined };
}

function locatedBody(info: KindInfo, body: AnyObject): RawObject {
  const meta = body.metadata ?? {};
  if (!info.namespaced || meta.namespace) return body as RawObject;
  return { ...body, metadata: { ...meta, namespace: 'default' } } as RawObject;
}
