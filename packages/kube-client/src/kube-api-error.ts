/** What was asked of an API server, in RBAC's terms. */
export interface KubeRequest {
  /** RBAC verb: get, list, watch, create, update, patch, delete. */
  verb: string;
  /** API group ('' for the core group). */
  group: string;
  /** Plural resource name, e.g. deployments. */
  resource: string;
  /** Namespace of the object, or undefined for cluster-wide or cluster-scoped requests. */
  namespace?: string | undefined;
  name?: string | undefined;
}

/** The HTTP status codes callers decide by (apimachinery's StatusReason codes). */
export const KubeStatusCode = Object.freeze({
  BadRequest: 400,
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  Conflict: 409,
  Gone: 410,
  Invalid: 422,
  TooManyRequests: 429,
} as const);

/** `deployments.apps "web" in namespace "shop"`: the request's object, as error messages name it. */
export function describeRequest(req: KubeRequest): string {
  const what = req.group ? `${req.resource}.${req.group}` : req.resource;
  const where = req.namespace ? ` in namespace "${req.namespace}"` : ' cluster-wide';
  return `${req.verb} ${what}${req.name ? ` "${req.name}"` : ''}${where}`;
}

/** The status code and message of an error from @kubernetes/client-node (ApiException, a watch's error Status). */
export function statusOf(err: unknown): { code?: number; message: string } {
  if (err instanceof KubeApiError)
    return { ...(err.code !== undefined ? { code: err.code } : {}), message: err.serverMessage };
  // A request the client gave up is no answer: its DOMException's numeric code (23, TIMEOUT_ERR) is not an HTTP status.
  if (isAbortError(err)) return { message: 'no answer within the request timeout' };
  const e = err as { code?: unknown; statusCode?: unknown; body?: unknown; message?: unknown; cause?: unknown };
  const code = typeof e?.code === 'number' ? e.code : typeof e?.statusCode === 'number' ? e.statusCode : undefined;
  let message = typeof e?.message === 'string' ? e.message.split('\n')[0]! : String(err);
  // undici's fetch says only "fetch failed" for a network error: its cause says what failed (connect ECONNREFUSED …).
  const cause = e?.cause as { message?: unknown } | undefined;
  if (err instanceof TypeError && message === 'fetch failed' && typeof cause?.message === 'string')
    message = cause.message.split('\n')[0]!;
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

/**
 * A request the API server refused (`code` is its HTTP status) or that never got an answer (`code` undefined: the
 * network error is the `cause`). The message names the request; `serverMessage` is the API server's own words.
 */
export class KubeApiError extends Error {
  override readonly name: string = 'KubeApiError';
  readonly code: number | undefined;
  readonly serverMessage: string;

  constructor(
    readonly request: KubeRequest | undefined,
    err: unknown,
    options: { message?: string } = {},
  ) {
    const { code, message } = statusOf(err);
    super(
      options.message ??
        `${request ? `${describeRequest(request)} failed` : 'request failed'}${code ? ` (${code})` : ''}: ${message}`,
      { cause: err },
    );
    this.code = code;
    this.serverMessage = message;
  }
}

/** `err` as a KubeApiError naming `request` (one that is already is returned as it is). */
export function toKubeApiError(err: unknown, request?: KubeRequest): KubeApiError {
  return err instanceof KubeApiError ? err : new KubeApiError(request, err);
}

/** The HTTP status of a failed request (a KubeApiError, client-node's ApiException, a watch Status). */
export function statusCodeOf(err: unknown): number | undefined {
  return statusOf(err).code;
}

export const isNotFound = (err: unknown): boolean => statusCodeOf(err) === KubeStatusCode.NotFound;
export const isConflict = (err: unknown): boolean => statusCodeOf(err) === KubeStatusCode.Conflict;
export const isForbidden = (err: unknown): boolean => statusCodeOf(err) === KubeStatusCode.Forbidden;
export const isUnauthorized = (err: unknown): boolean => statusCodeOf(err) === KubeStatusCode.Unauthorized;
/** 410 Gone: a watch's (or a list's continue token's) resourceVersion was compacted away. */
export const isGone = (err: unknown): boolean => statusCodeOf(err) === KubeStatusCode.Gone;
export const isInvalid = (err: unknown): boolean => statusCodeOf(err) === KubeStatusCode.Invalid;
/**
 * The client gave the request up, as a request's timeout (a TimeoutError from AbortSignal.timeout) or a watch's stop
 * (an AbortError) ends it.
 */
export function isAbortError(err: unknown): boolean {
  const e = err as { name?: unknown } | undefined;
  return e?.name === 'AbortError' || e?.name === 'TimeoutError';
}

/** The request got no answer at all (connection refused, reset, timed out). */
export const isUnreachable = (err: unknown): boolean => statusCodeOf(err) === undefined;

/** A failed request as one line: the HTTP status and the server's message, or the network error's. */
export function describeKubeError(err: unknown): string {
  const { code, message } = statusOf(err);
  return code ? `HTTP ${code}: ${message}` : message;
}
