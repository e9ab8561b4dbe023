import { STATUS_CODES, type ApiErrorBody, type StatusCause, type StatusReason } from './protocol.js';

/** An error the gateway answered with; the message is ready to print. Each reason has its own subclass. */
export class ApiError extends Error {
  readonly reason: StatusReason;
  readonly causes: StatusCause[];
  constructor(body: ApiErrorBody) {
    super(body.message);
    this.name = new.target.name;
    this.reason = body.reason;
    this.causes = body.causes ?? [];
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
export class InternalError extends ApiError {}
/** The gateway could not be reached (not running, or it did not answer in time). */
export class ServiceUnavailableError extends ApiError {}

const CLASSES: Record<StatusReason, new (body: ApiErrorBody) => ApiError> = {
  BadRequest: BadRequestError,
  Unauthorized: UnauthorizedError,
  Forbidden: ForbiddenError,
  NotFound: NotFoundError,
  AlreadyExists: AlreadyExistsError,
  Conflict: ConflictError,
  Invalid: InvalidError,
  RequestEntityTooLarge: RequestEntityTooLargeError,
  InternalError: InternalError,
  ServiceUnavailable: ServiceUnavailableError,
};

/** The typed error for a reply's reason; a reason this client does not know (a newer gateway) stays a plain ApiError. */
export function apiErrorFrom(body: ApiErrorBody): ApiError {
  const Class = Object.hasOwn(CLASSES, body.reason) ? CLASSES[body.reason] : ApiError;
  return new Class(body);
}
