// client-node's modules one by one, not its index (see @flotilla/kube-client's RawObjectApi).
import { HttpMethod, RawObjectApi } from '@flotilla/kube-client';
import { ApiException } from '@kubernetes/client-node/dist/gen/apis/exception.js';
import type { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { PatchStrategy } from '@kubernetes/client-node/dist/patch.js';
import type { BindingObjectReference, KindInfo } from '@flotilla/api';
import type { AnyObject } from './content.js';

/** The field manager of every server-side apply the bridge makes: `kubectl get -o yaml --show-managed-fields` shows it. */
export const FIELD_MANAGER = 'flotilla';

export interface HostList {
  items: AnyObject[];
  metadata?: { resourceVersion?: string; continue?: string };
}

/** One page of a list: at most `limit` objects, from where the previous page's `continue` token left off. */
export interface ListPage {
  limit: number;
  continueToken?: string | undefined;
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
 * The host API server, for one kind at a time, by raw JSON requests through @kubernetes/client-node's pipeline
 * (`/apis/<group>/<version>/…` paths, which serve built-in groups such as apps/v1 as well as custom resources). Spec
 * writes are plain creates and replaces with the resourceVersion to compare with; status and the bridge's own
 * objects go by server-side apply under FIELD_MANAGER, status through the status subresource.
 */
export class HostApi {
  private readonly api: RawObjectApi;

  constructor(readonly kubeConfig: KubeConfig) {
    this.api = kubeConfig.makeApiClient(RawObjectApi);
  }

  /** Watch path of a kind in every namespace. */
  static watchPath(info: KindInfo): string {
    return `/apis/${info.group}/${info.version}/${info.plural}`;
  }

  async list(info: KindInfo, page: ListPage): Promise<HostList> {
    return await this.api.send<HostList>(HttpMethod.GET, HostApi.watchPath(info), {
      query: { limit: page.limit, continue: page.continueToken },
    });
  }

  /** The object as it is now; undefined when it does not exist. */
  async get(info: KindInfo, ref: HostRef): Promise<AnyObject | undefined> {
    try {
      return await this.api.send<AnyObject>(HttpMethod.GET, this.objectPath(info, ref));
    } catch (err) {
      if (hostStatusCode(err) === 404) return undefined;
      throw err;
    }
  }

  /** Cheap request that answers only while the API server does: a list of at most one object of the kind. */
  async probe(info: KindInfo): Promise<void> {
    await this.api.send(HttpMethod.GET, HostApi.watchPath(info), { query: { limit: 1 } });
  }

  async create(info: KindInfo, body: AnyObject): Promise<AnyObject> {
    return await this.api.send<AnyObject>(HttpMethod.POST, this.collectionPath(info, body.metadata as HostRef), {
      body,
    });
  }

  /** Replaces the object; `body.metadata.resourceVersion` makes it fail with 409 if the object changed since. */
  async replace(info: KindInfo, body: AnyObject): Promise<AnyObject> {
    return await this.api.send<AnyObject>(HttpMethod.PUT, this.objectPath(info, body.metadata as HostRef), { body });
  }

  /** Server-side apply of the whole object (for the kinds Flotilla owns), taking every field it sets. */
  async apply(info: KindInfo, body: AnyObject): Promise<AnyObject> {
    return await this.serverSideApply(this.objectPath(info, body.metadata as HostRef), body);
  }

  /** Server-side apply of `status` through the status subresource. */
  async applyStatus(info: KindInfo, ref: HostRef, status: unknown): Promise<AnyObject> {
    const body = {
      apiVersion: info.apiVersion,
      kind: info.kind,
      metadata: { name: ref.name, ...(ref.namespace ? { namespace: ref.namespace } : {}) },
      status,
    };
    return await this.serverSideApply(`${this.objectPath(info, ref)}/status`, body);
  }

  /**
   * Sets the object's finalizers, only if it is still at `resourceVersion` (409 otherwise): a merge patch replaces
   * the whole list, so the compare-and-set keeps another controller's finalizer written meanwhile.
   */
  async setFinalizers(info: KindInfo, ref: HostRef, finalizers: string[], resourceVersion: string): Promise<AnyObject> {
    return await this.api.send<AnyObject>(HttpMethod.PATCH, this.objectPath(info, ref), {
      body: { metadata: { resourceVersion, finalizers } },
      contentType: PatchStrategy.MergePatch,
    });
  }

  /** Deletes the object only if it is still at `resourceVersion` (409 otherwise). */
  async delete(info: KindInfo, ref: HostRef, resourceVersion: string): Promise<void> {
    await this.api.send(HttpMethod.DELETE, this.objectPath(info, ref), {
      body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { resourceVersion } },
    });
  }

  /** Writes an event by server-side apply: the same event written twice is one event, not two. */
  async applyEvent(event: HostEvent): Promise<void> {
    const { name, namespace } = event.metadata;
    await this.serverSideApply(
      `/api/v1/namespaces/${encodeURIComponent(namespace)}/events/${encodeURIComponent(name)}`,
      {
        apiVersion: 'v1',
        kind: 'Event',
        ...event,
      },
    );
  }

  private serverSideApply(path: string, body: object): Promise<AnyObject> {
    return this.api.send<AnyObject>(HttpMethod.PATCH, path, {
      body,
      contentType: PatchStrategy.ServerSideApply,
      query: { fieldManager: FIELD_MANAGER, force: true },
    });
  }

  /** `/apis/<group>/<version>[/namespaces/<namespace>]/<plural>` (a namespaced kind without a namespace: default). */
  private collectionPath(info: KindInfo, ref: HostRef): string {
    const namespace = info.namespaced ? `/namespaces/${encodeURIComponent(ref.namespace ?? 'default')}` : '';
    return `/apis/${info.group}/${info.version}${namespace}/${info.plural}`;
  }

  private objectPath(info: KindInfo, ref: HostRef): string {
    return `${this.collectionPath(info, ref)}/${encodeURIComponent(ref.name)}`;
  }
}
