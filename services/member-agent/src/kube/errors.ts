/** What the agent asked the member API server to do, in RBAC's terms. */
export interface KubeRequest {
  /** RBAC verb: get, list, watch, create, patch, delete. */
  verb: string;
  /** API group ('' for the core group). */
  group: string;
  /** Plural resource name, e.g. deployments. */
  resource: string;
  /** Namespace of the object, or undefined for cluster-wide or cluster-scoped requests. */
  namespace?: string | undefined;
  name?: string | undefined;
}

/** The RBAC rule that grants `req`, as it is written in a Role or ClusterRole. */
export function rbacRule(req: KubeRequest): string {
  return `{apiGroups: ["${req.group}"], resources: ["${req.resource}"], verbs: ["${req.verb}"]}`;
}

function describe(req: KubeRequest): string {
  const what = req.group ? `${req.resource}.${req.group}` : req.resource;
  const where = req.namespace ? ` in namespace "${req.namespace}"` : ' cluster-wide';
  return `${req.verb} ${what}${req.name ? ` "${req.name}"` : ''}${where}`;
}

/**
 * The member API server refused the agent's credentials (401) or their permission (403). The message names the
 * verb and resource refused and the rule that grants it, so the fix is one line of deploy/member/.
 */
export class KubeAccessError extends Error {
  override readonly name = 'KubeAccessError';
  constructor(
    readonly cluster: string,
    readonly request: KubeRequest,
    readonly statusCode: 401 | 403,
    serverMessage: string | undefined,
  ) {
    super(
      statusCode === 401
        ? `member cluster "${cluster}" did not accept the agent's credentials (401 Unauthorized) for ${describe(request)}: check the kubeconfig or the ServiceAccount token${serverMessage ? ` (${serverMessage})` : ''}`
        : `member cluster "${cluster}" forbids ${describe(request)} (403 Forbidden): the agent's role needs the rule ${rbacRule(request)} (${request.namespace ? 'Role or ClusterRole' : 'ClusterRole'}; see deploy/member/)${serverMessage ? `; the API server said: ${serverMessage}` : ''}`,
    );
  }
}

/** Any other refusal by the member API server, with what was asked. */
export class KubeRequestError extends Error {
  override readonly name = 'KubeRequestError';
  constructor(
    readonly cluster: string,
    readonly request: KubeRequest,
    readonly statusCode: number | undefined,
    serverMessage: string,
    options?: { cause?: unknown },
  ) {
    super(
      `member cluster "${cluster}": ${describe(request)} failed${statusCode ? ` (${statusCode})` : ''}: ${serverMessage}`,
      options,
    );
  }
}

/** The status code and message of an error from @kubernetes/client-node (ApiException or a watch's error). */
export function statusOf(err: unknown): { code?: number; message: string } {
  const e = err as { code?: unknown; statusCode?: unknown; body?: unknown; message?: unknown };
  const code = typeof e?.code === 'number' ? e.code : typeof e?.statusCode === 'number' ? e.statusCode : undefined;
  let message = typeof e?.message === 'string' ? e.message.split('\n')[0]! : String(err);
  let body = e?.body;
  if (typeof body === 'string') {
    try {
      body = JSON.parse(body);
    } catch {
      // a body that is not a Status: keep the error's own message
    }
  }
  if (body && typeof body === 'object' && typeof (body as { message?: unknown }).message === 'string')
    message = (body as { message: string }).message;
  return { ...(code !== undefined ? { code } : {}), message };
}

/** RBAC's refusal as the API server words it: `User "x" cannot create resource "namespaces" in API group ""`. */
const REFUSAL = /cannot (\S+) resource "([^"]+)" in API group "([^"]*)"/;

/**
 * Turns a client-node error into a typed one naming `req`. A 403 names what RBAC actually refused, which is not
 * always what was sent: a server-side apply that creates an object is authorized as `create`.
 */
export function kubeError(cluster: string, req: KubeRequest, err: unknown): Error {
  const { code, message } = statusOf(err);
  if (code === 403) {
    const m = REFUSAL.exec(message);
    const refused = m ? { ...req, verb: m[1]!, resource: m[2]!, group: m[3]! } : req;
    return new KubeAccessError(cluster, refused, code, message);
  }
  if (code === 401) return new KubeAccessError(cluster, req, code, message);
  return new KubeRequestError(cluster, req, code, message, { cause: err });
}

/** Delay before retry `attempt` (0-based): exponential from `baseMs` up to `maxMs`, with ±50 % jitter. */
export function backoffDelay(attempt: number, opts: { baseMs: number; maxMs: number }, random: () => number): number {
  const exp = Math.min(opts.maxMs, opts.baseMs * 2 ** Math.min(attempt, 30));
  return Math.round(exp * (0.5 + random()));
}
