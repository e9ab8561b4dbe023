// client-node's modules one by one, not its index: the index loads every generated API (~20 MB of JavaScript).
import type { ObjectMeta } from '@flotilla/api';
import type { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { PatchStrategy } from '@kubernetes/client-node/dist/patch.js';
import { Watch } from '@kubernetes/client-node/dist/watch.js';
import { isNotFound, type KubeRequest, toKubeApiError } from './kube-api-error.js';
import { HttpMethod, RawObjectApi } from './raw-object-api.js';
import { collectionPath, type ObjectName, objectPath, type ResourceInfo } from './resource-path.js';

/**
 * The field manager of every server-side apply Flotilla makes, member objects and host objects alike:
 * `kubectl get -o yaml --show-managed-fields` shows it.
 */
export const FIELD_MANAGER = 'flotilla';

/** An object as the API server sends it: JSON, untouched. */
export interface RawObject {
  apiVersion?: string;
  kind?: string;
  metadata?: Partial<ObjectMeta> & { [field: string]: unknown };
  [field: string]: unknown;
}

export interface RawList<T = RawObject> {
  items: T[];
  metadata?: { resourceVersion?: string; continue?: string };
}

/** One page of a list: at most `limit` objects, from where the previous page's `continue` token left off. */
export interface ListOptions {
  limit?: number | undefined;
  continueToken?: string | undefined;
  labelSelector?: string | undefined;
  /** Only this namespace's objects; every namespace when unset. */
  namespace?: string | undefined;
}

export interface DeleteOptions {
  /** Deletes only if the object is still at this resourceVersion (409 otherwise). */
  resourceVersion?: string;
  propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
}

/** Parameters of a watch request (`resourceVersion`, `allowWatchBookmarks`, `timeoutSeconds`, `labelSelector`). */
export type WatchParams = Record<string, string | number | boolean | undefined>;

/**
 * One Kubernetes API server, by raw JSON requests through @kubernetes/client-node's pipeline (the kubeconfig's
 * authentication, pooled connections, ApiException): any resource of the core group or a named one, by its
 * ResourceInfo. Server-side applies go under FIELD_MANAGER, forced (what Flotilla applies is Flotilla's). Every
 * failure is a KubeApiError naming the request, with the HTTP status as `code` (predicates: isNotFound, isConflict,
 * isForbidden, …).
 */
export class KubeApi {
  private readonly api: RawObjectApi;
  private readonly watcher: Watch;

  constructor(readonly kubeConfig: KubeConfig) {
    this.api = kubeConfig.makeApiClient(RawObjectApi);
    this.watcher = new Watch(kubeConfig);
  }

  /** One page of the resource's objects (in `namespace`, or every namespace). */
  async list<T = RawObject>(r: ResourceInfo, opts: ListOptions = {}): Promise<RawList<T>> {
    return await this.send(request('list', r, opts), HttpMethod.GET, collectionPath(r, opts.namespace), {
      query: { labelSelector: opts.labelSelector || undefined, limit: opts.limit, continue: opts.continueToken },
    });
  }

  /** The object as it is now; undefined when it does not exist. */
  async get<T = RawObject>(r: ResourceInfo, object: ObjectName): Promise<T | undefined> {
    try {
      return await this.send<T>(request('get', r, object), HttpMethod.GET, objectPath(r, object));
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  async create<T extends RawObject>(r: ResourceInfo, body: T): Promise<T> {
    const object = nameOf(body);
    return await this.send(request('create', r, object), HttpMethod.POST, collectionPath(r, object.namespace), {
      body,
    });
  }

  /** Replaces the object; `body.metadata.resourceVersion` makes it fail with 409 if the object changed since. */
  async replace<T extends RawObject>(r: ResourceInfo, body: T): Promise<T> {
    const object = nameOf(body);
    return await this.send(request('update', r, object), HttpMethod.PUT, objectPath(r, object), { body });
  }

  /** Server-side apply of `body` (forced, under FIELD_MANAGER), or of its `subresource` (`status`). */
  async apply<T extends RawObject>(r: ResourceInfo, body: T, opts: { subresource?: string } = {}): Promise<T> {
    const object = nameOf(body);
    return await this.send(request('patch', r, object), HttpMethod.PATCH, objectPath(r, object, opts.subresource), {
      body,
      contentType: PatchStrategy.ServerSideApply,
      query: { fieldManager: FIELD_MANAGER, force: true },
    });
  }

  /** A JSON merge patch (RFC 7386): a list in it replaces the whole list. */
  async mergePatch<T = RawObject>(r: ResourceInfo, object: ObjectName, patch: object): Promise<T> {
    return await this.send(request('patch', r, object), HttpMethod.PATCH, objectPath(r, object), {
      body: patch,
      contentType: PatchStrategy.MergePatch,
    });
  }

  async delete(r: ResourceInfo, object: ObjectName, opts: DeleteOptions = {}): Promise<void> {
    await this.send(request('delete', r, object), HttpMethod.DELETE, objectPath(r, object), {
      body: {
        apiVersion: 'v1',
        kind: 'DeleteOptions',
        ...(opts.resourceVersion ? { preconditions: { resourceVersion: opts.resourceVersion } } : {}),
        ...(opts.propagationPolicy ? { propagationPolicy: opts.propagationPolicy } : {}),
      },
    });
  }

  /**
   * Opens a watch on the resource in every namespace (client-node's Watch: the kubeconfig's connection, one JSON line
   * per event); `done` is called once when it ends, with the error if any. Returns how to stop it.
   */
  async watch(
    r: ResourceInfo,
    params: WatchParams,
    onEvent: (type: string, object: RawObject) => void,
    done: (err: unknown) => void,
  ): Promise<{ abort(): void }> {
    try {
      const controller = await this.watcher.watch(
        collectionPath(r),
        params,
        (type, object) => onEvent(type, object as RawObject),
        done,
      );
      return { abort: () => controller.abort() };
    } catch (err) {
      throw toKubeApiError(err, request('watch', r, {}));
    }
  }

  /** `gitVersion` from /version (the generated VersionApi would load every generated API with it). */
  async gitVersion(): Promise<string> {
    const v = await this.send<{ gitVersion?: string }>(
      { verb: 'get', group: '', resource: '/version' },
      HttpMethod.GET,
      '/version',
    );
    return v.gitVersion ?? '';
  }

  private async send<T>(
    req: KubeRequest,
    method: HttpMethod,
    path: string,
    raw?: Parameters<RawObjectApi['send']>[2],
  ): Promise<T> {
    try {
      return await this.api.send<T>(method, path, raw);
    } catch (err) {
      throw toKubeApiError(err, req);
    }
  }
}

function nameOf(body: RawObject): ObjectName {
  return { name: body.metadata?.name ?? '', namespace: body.metadata?.namespace };
}

function request(verb: string, r: ResourceInfo, object: Partial<ObjectName>): KubeRequest {
  return {
    verb,
    group: r.group,
    resource: r.plural,
    ...(r.namespaced && object.namespace ? { namespace: object.namespace } : {}),
    ...(object.name ? { name: object.name } : {}),
  };
}
