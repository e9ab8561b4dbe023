import { AdmissionError, InvalidRequestError, ManifestError, UnknownKindError } from '@flotilla/api';
import type { ApiErrorBody } from '@flotilla/client';
import { isAlreadyExists, busTransientFailure, ConflictError } from '@flotilla/bus';
import { isNotFound, StaleResourceVersionError } from '@flotilla/store';
import { StoreFullError } from './store-headroom.js';

export class TooLargeError extends Error {
  constructor(
    readonly size: number,
    readonly limit: number,
    what = 'object',
  ) {
    super(`${what} is too large: ${size} bytes${what === 'object' ? ' of JSON' : ''}, the limit is ${limit}`);
    this.name = 'TooLargeError';
  }
}

export class BadRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BadRequestError';
  }
}

/** No bearer token, or one not in the gateway's token file (or, on the webhook, no client certificate of its CA). */
export class UnauthenticatedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnauthenticatedError';
  }
}

/** A known caller whose role does not allow the operation. */
export class NotPermittedError extends Error {
  constructor(
    readonly caller: string,
    readonly role: string,
    readonly operation: string,
  ) {
    super(`"${caller}" has the ${role} role, which may not ${operation}; an admin token may`);
    this.name = 'NotPermittedError';
  }
}

/** A path the HTTP API does not serve (a dashboard file that is not there). */
export class NoSuchPathError extends Error {
  constructor(readonly path: string) {
    super(`no route ${path}`);
    this.name = 'NoSuchPathError';
  }
}

/** The gateway is stopping: a new event stream is refused, to be opened again on another replica or after restart. */
export class ShuttingDownError extends Error {
  constructor(what: string) {
    super(`the gateway is shutting down: ${what} refused; try again`);
    this.name = 'ShuttingDownError';
  }
}

/** A POST whose body is not declared JSON: refused before it is read. */
export class UnsupportedMediaTypeError extends Error {
  constructor(readonly contentType: string | undefined) {
    super(
      `Content-Type ${contentType ? `"${contentType}"` : 'missing'}: POST bodies must be sent as "application/json"`,
    );
    this.name = 'UnsupportedMediaTypeError';
  }
}

/**
 * A request an anonymous gateway refuses because a browser may have sent it on another page's behalf: a `Host` that is
 * not loopback (DNS rebinding), or a POST from another origin (cross-site request forgery).
 */
export class ForeignRequestError extends Error {
  constructor(reason: string) {
    super(`refused without a token: ${reason}`);
    this.name = 'ForeignRequestError';
  }
}

/** A caller past its share of requests in flight or per second; `retryAfterSeconds` says when to ask again. */
export class TooManyRequestsError extends Error {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
    this.name = 'TooManyRequestsError';
  }
}

/** An event stream's resume point further back than a replay may start: read history with `flotilla events`. */
export class ReplayTooFarError extends Error {
  constructor(
    readonly lastEventId: number,
    readonly lastSeq: number,
    readonly maxReplay: number,
  ) {
    super(
      `Last-Event-ID ${lastEventId} is ${lastSeq - lastEventId} events behind the stream's last (${lastSeq}); ` +
        `a resume may start at most ${maxReplay} events back: open the stream again without Last-Event-ID ` +
        '(the newest events, then each new one), and read older ones with `flotilla events`',
    );
    this.name = 'ReplayTooFarError';
  }
}

/** A review the webhook thread asked of the gateway's thread (webhook-thread.ts), which failed it with `body`. */
export class RefusedReviewError extends Error {
  constructor(readonly body: ApiErrorBody) {
    super(body.message);
    this.name = 'RefusedReviewError';
  }
}

/** What a Timeout or ServiceUnavailable answer asks the caller to wait, as Kubernetes' API server asks. */
export const RETRY_AFTER_SECONDS = 1;

/** Maps a typed error to the reply a client sees; anything unexpected is Internal and logged by the caller. */
export function toApiError(err: unknown): ApiErrorBody {
  if (err instanceof RefusedReviewError) return err.body;
  if (err instanceof AdmissionError) return { reason: 'Invalid', message: err.message, causes: err.causes };
  if (err instanceof InvalidRequestError) return { reason: 'BadRequest', message: err.message, causes: err.causes };
  if (err instanceof StaleResourceVersionError || err instanceof ConflictError)
    return { reason: 'Conflict', message: err.message };
  if (isAlreadyExists(err)) return { reason: 'AlreadyExists', message: err.message };
  if (err instanceof ShuttingDownError)
    return { reason: 'ServiceUnavailable', message: err.message, retryAfterSeconds: RETRY_AFTER_SECONDS };
  if (err instanceof NoSuchPathError) return { reason: 'NotFound', message: err.message };
  if (isNotFound(err)) return { reason: 'NotFound', message: err.message };
  if (err instanceof UnauthenticatedError) return { reason: 'Unauthorized', message: err.message };
  if (err instanceof NotPermittedError) return { reason: 'Forbidden', message: err.message };
  // Forbidden, as Kubernetes answers a create past a ResourceQuota: retrying will not help until something is deleted.
  if (err instanceof StoreFullError) return { reason: 'Forbidden', message: err.message };
  if (err instanceof TooLargeError) return { reason: 'RequestEntityTooLarge', message: err.message };
  if (err instanceof UnsupportedMediaTypeError) return { reason: 'UnsupportedMediaType', message: err.message };
  if (err instanceof ForeignRequestError) return { reason: 'Forbidden', message: err.message };
  if (err instanceof TooManyRequestsError)
    return { reason: 'TooManyRequests', message: err.message, retryAfterSeconds: err.retryAfterSeconds };
  if (err instanceof ReplayTooFarError) return { reason: 'Expired', message: err.message };
  if (err instanceof UnknownKindError || err instanceof ManifestError || err instanceof BadRequestError) {
    return { reason: 'BadRequest', message: err.message };
  }
  // The store did not answer in time, or is not there now: the caller should ask again shortly (the client library
  // does, with backoff); nothing is known to be wrong with the request.
  const transient = busTransientFailure(err);
  if (transient === 'timeout')
    return {
      reason: 'Timeout',
      message: `the store did not answer in time (${(err as Error).message}); try again`,
      retryAfterSeconds: RETRY_AFTER_SECONDS,
    };
  if (transient === 'unavailable')
    return {
      reason: 'ServiceUnavailable',
      message: `the store is not available (${(err as Error).message}); try again`,
      retryAfterSeconds: RETRY_AFTER_SECONDS,
    };
  return { reason: 'InternalError', message: `internal error: ${(err as Error)?.message ?? String(err)}` };
}
