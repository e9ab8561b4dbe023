// client-node's modules one by one, not its index: the index loads every generated API (~20 MB of JavaScript).
import { HttpMethod, type ResponseContext } from '@kubernetes/client-node/dist/gen/http/http.js';
import { KubernetesObjectApi } from '@kubernetes/client-node/dist/object.js';
import type { KubernetesObject } from '@kubernetes/client-node/dist/types.js';

export { HttpMethod };

/** The response type of raw requests: the JSON as the API server sent it (see `processResponse`). */
const AS_SENT = 'flotilla:as-sent';

export interface RawRequest {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** Content-Type of the body: JSON unless a patch strategy is named. */
  contentType?: string;
}

/**
 * Requests through client-node's pipeline (authentication, middleware, ApiException on errors) with the JSON as the
 * API server sent it, for any path. The generated typed APIs that would do the same (CustomObjectsApi, CoreV1Api,
 * VersionApi) load every generated API with them; KubernetesObjectApi's own methods turn every object into
 * client-node's model classes and back, which costs CPU and memory on every page and every write, renames fields (a
 * list's `continue` becomes `_continue`) and drops, on the way in, fields its models do not know. Its discovery
 * (`resource`, `specUriPath`) is there for subclasses. Make one with `kubeConfig.makeApiClient(RawObjectApi)`.
 */
export class RawObjectApi extends KubernetesObjectApi {
  async send<T>(method: HttpMethod, path: string, request: RawRequest = {}): Promise<T> {
    const ctx = this.configuration.baseServer.makeRequestContext(path, method);
    ctx.setHeaderParam('Accept', 'application/json');
    for (const [name, value] of Object.entries(request.query ?? {}))
      if (value !== undefined) ctx.setQueryParam(name, String(value));
    if (request.body !== undefined) {
      ctx.setHeaderParam('Content-Type', request.contentType ?? 'application/json');
      ctx.setBody(JSON.stringify(request.body));
    }
    return (await this.requestPromise(ctx, AS_SENT)) as T;
  }

  /**
   * A successful answer to a raw request is parsed and returned as it is (client-node's would make any object with
   * `apiVersion` and `kind` a KubernetesObject, whose metadata model drops a list's `continue`); anything else, and
   * errors, as client-node does it.
   */
  protected override async processResponse<T extends KubernetesObject>(
    response: ResponseContext,
    type?: string,
  ): Promise<T> {
    if (type !== AS_SENT || response.httpStatusCode < 200 || response.httpStatusCode > 299)
      return await super.processResponse<T>(response, type);
    const text = await response.body.text();
    return (text ? JSON.parse(text) : undefined) as T;
  }
}
