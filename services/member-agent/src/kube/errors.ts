import { describeRequest, KubeApiError, type KubeRequest, statusOf } from '@flotilla/kube-client';

/** The RBAC rule that grants `req`, as it is written in a Role or ClusterRole. */
export function rbacRule(req: KubeRequest): string {
  return `{apiGroups: ["${req.group}"], resources: ["${req.resource}"], verbs: ["${req.verb}"]}`;
}

/** A request the member API server refused, naming the cluster; `describe` words the message from the status. */
abstract class MemberClusterError extends KubeApiError {
  constructor(
    readonly cluster: string,
    request: KubeRequest,
    err: unknown,
    describe: (status: { code?: number; message: string }) => string,
  ) {
    super(request, err, { message: describe(statusOf(err)) });
  }
}

/**
 * The member API server refused the agent's credentials (401) or their permission (403). The message names the
 * verb and resource refused and the rule that grants it, so the fix is one line of deploy/member/.
 */
export class KubeAccessError extends MemberClusterError {
  override readonly name = 'KubeAccessError';
  constructor(cluster: string, request: KubeRequest, err: unknown) {
    super(cluster, request, err, ({ code, message }) =>
      code === 401
        ? `member cluster "${cluster}" did not accept the agent's credentials (401 Unauthorized) for ${describeRequest(request)}: check the kubeconfig or the ServiceAccount token${message ? ` (${message})` : ''}`
        : `member cluster "${cluster}" forbids ${describeRequest(request)} (403 Forbidden): the agent's role needs the rule ${rbacRule(request)} (${request.namespace ? 'Role or ClusterRole' : 'ClusterRole'}; see deploy/member/)${message ? `; the API server said: ${message}` : ''}`,
    );
  }
}

/** Any other refusal by the member API server, with what was asked and which cluster. */
export class KubeRequestError extends MemberClusterError {
  override readonly name = 'KubeRequestError';
  constructor(cluster: string, request: KubeRequest, err: unknown) {
    super(
      cluster,
      request,
      err,
      ({ code, message }) =>
        `member cluster "${cluster}": ${describeRequest(request)} failed${code ? ` (${code})` : ''}: ${message}`,
    );
  }
}

/** RBAC's refusal as the API server words it: `User "x" cannot create resource "namespaces" in API group ""`. */
const REFUSAL = /cannot (\S+) resource "([^"]+)" in API group "([^"]*)"/;

/**
 * Turns a client error into one naming `req` and the member cluster. A 403 names what RBAC actually refused, which
 * is not always what was sent: a server-side apply that creates an object is authorized as `create`.
 */
export function kubeError(cluster: string, req: KubeRequest, err: unknown): KubeApiError {
  const { code, message } = statusOf(err);
  if (code === 403) {
    const m = REFUSAL.exec(message);
    const refused = m ? { ...req, verb: m[1]!, resource: m[2]!, group: m[3]! } : req;
    return new KubeAccessError(cluster, refused, err);
  }
  if (code === 401) return new KubeAccessError(cluster, req, err);
  return new KubeRequestError(cluster, req, err);
}
