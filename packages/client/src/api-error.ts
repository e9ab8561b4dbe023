import { STATUS_CODES, type ApiErrorBody, type StatusCause, type StatusReason } from './protocol.js';

/** An error the gateway answered with; the message is ready to print. Each reason has its own subclass. */
export class ApiError extends Error {
  readonly reason: StatusReason;
  readonly causes: StatusCause[];
  /** How long the gateway asked the caller to wait before trying again, for a retryable error. */
  readonly retryAfterSeconds: number | undefined;
  constructor(body: ApiErrorBody) {
    super(body.message);
    this.name = new.target.name;
    this.reason = body.reason;
    this.causes = body.causes ?? [];
    this.retryAfterSeconds = body.retryAfterSeconds;
  }

  /** The HTTP status Kubernetes answers this reason with. */
  get status(): number {
    return STATUS_CODES[this.reason];
  }
}

export class BadRequestError extends ApiError {}
/** No credentials, or credentials the gateway does not know. */
export class UnauthorizedError extends ApiError {}
/** The credentials are known but their role does not allow the operation. */
export class ForbiddenError extends ApiError {}
export class NotFoundError extends ApiError {}
export class AlreadyExistsError extends ApiError {}
/** The object changed since the caller read it: read again and retry. */
export class ConflictError extends ApiError {}
/** Admission refused the object; `causes` names each bad field. */
export class InvalidError extends ApiError {}
export class RequestEntityTooLargeError extends ApiError {}
/** A resume point the server no longer serves from: start again from now. */
export class ExpiredError extends ApiError {}
export class UnsupportedMediaTypeError extends ApiError {}
/** The caller sent more requests, or more at once, than its share: wait `retryAfterSeconds`. */
export class TooManyRequestsError extends ApiError {}
export class InternalError extends ApiError {}
/** The gateway could not be reached (not running, or it did not answer in time), or its store could not. */
export class ServiceUnavailableError extends ApiError {}
/** The gateway ran out of time waiting for its store (a busy server): nothing is known to be wrong with the request. */
export class TimeoutError extends ApiError {}

/**
 * True for an answer that says "not now" rather than "no" (Timeout, ServiceUnavailable): asking the same again
 * later may succeed. GatewayClient retries these itself, with backoff.
 */
export function isRetryable(err: unknown): err is ApiError {
  return err instanceof TimeoutError || err instanceof ServiceUnavailableError;
}

/** True for the gateway's NotFound answer: no object of that kind, namespace and name. */
export const isNotFound = (err: unknown): err is NotFoundError => err instanceof NotFoundError;

/** True for the gateway's AlreadyExists answer: a create found the object there. */
export const isAlreadyExists = (err: unknown): err is AlreadyExistsError => err instanceof AlreadyExistsError;

const CLASSES: Record<StatusReason, new (body: ApiErrorBody) => ApiError> = {
  BadRequest: BadRequestError,
  Unauthorized: UnauthorizedError,
  Forbidden: ForbiddenError,
  NotFound: NotFoundError,
  AlreadyExists: AlreadyExistsError,
  Conflict: ConflictError,
  Invalid: InvalidError,
  RequestEntityTooLarge: RequestEntityTooLargeError,
  Expired: ExpiredError,
  UnsupportedMediaType: UnsupportedMediaTypeError,
  TooManyRequests: TooManyRequestsError,
  InternalError: InternalError,
  ServiceUnavailable: ServiceUnavailableError,
  Timeout: TimeoutError,
};

/** The typed error for a reply's reason; a reason this client does not know (a newer gateway) stays a plain ApiError. */
export function apiErrorFrom(body: ApiErrorBody): ApiError {
  const Class = Object.hasOwn(CLASSES, body.reason) ? CLASSES[body.reason] : ApiError;
  return new Class(body);
}
