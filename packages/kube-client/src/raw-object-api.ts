// client-node's modules one by one, not its index: the index loads every generated API (~20 MB of JavaScript).
import { ApiException } from '@kubernetes/client-node/dist/gen/apis/exception.js';
import type { Configuration } from '@kubernetes/client-node/dist/gen/configuration.js';
import { HttpMethod, type RequestContext, type ResponseContext } from '@kubernetes/client-node/dist/gen/http/http.js';

export { HttpMethod };

export interface RawRequest {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** Content-Type of the body: JSON unless a patch strategy is named. */
  contentType?: string;
}

/**
 * Requests through client-node's pipeline (the kubeconfig's authentication and connection, middleware, ApiException
 * on errors) with the JSON as the API server sent it, for any path. The generated typed APIs that would do the same
 * (CustomObjectsApi, CoreV1Api, VersionApi) load every generated API with them; KubernetesObjectApi loads every
 * generated model, and its own methods turn every object into client-node's model classes and back, which costs CPU
 * and memory on every page and every write, renames fields (a list's `continue` becomes `_continue`) and drops, on
 * the way in, fields its models do not know. Make one with `kubeConfig.makeApiClient(RawObjectApi)`, or from the
 * configuration of another client.
 */
export class RawObjectApi {
  constructor(private readonly configuration: Configuration) {}

  async send<T>(method: HttpMethod, path: string, request: RawRequest = {}): Promise<T> {
    let ctx: RequestContext = this.configuration.baseServer.makeRequestContext(path, method);
    ctx.setHeaderParam('Accept', 'application/json');
    for (const [name, value] of Object.entries(request.query ?? {}))
      if (value !== undefined) ctx.setQueryParam(name, String(value));
    if (request.body !== undefined) {
      ctx.setHeaderParam('Content-Type', request.contentType ?? 'application/json');
      ctx.setBody(JSON.stringify(request.body));
    }
    // As client-node's generated APIs and KubernetesObjectApi do it (its requestPromise).
    const { authMethods, middleware, httpApi } = this.configuration;
    await authMethods.BearerToken?.applySecurityAuthentication(ctx);
    await authMethods.default?.applySecurityAuthentication(ctx);
    for (const m of middleware) ctx = await m.pre(ctx).toPromise();
    let response: ResponseContext = await httpApi.send(ctx).toPromise();
    for (const m of middleware) response = await m.post(response).toPromise();
    if (response.httpStatusCode < 200 || response.httpStatusCode > 299)
      throw new ApiException(
        response.httpStatusCode,
        'Unsuccessful HTTP Request',
        await response.getBodyAsAny(),
        response.headers,
      );
    const text = await response.body.text();
    return (text ? JSON.parse(text) : undefined) as T;
  }
}
