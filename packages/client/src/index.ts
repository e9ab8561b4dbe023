/**
 * @flotilla/client: the gateway's client (NATS request-reply), its wire protocol and its typed errors. Its public
 * surface, named here.
 */
export {
  OPERATIONS,
  STATUS_CODES,
  type ApiErrorBody,
  type ApiReply,
  type ApplyReply,
  type ApplyRequest,
  type DeleteReply,
  type DeleteRequest,
  type EventsReply,
  type EventsRequest,
  type GetRequest,
  type KubeEvent,
  type ListReply,
  type ListRequest,
  type ObjectQuery,
  type Operation,
  type Operations,
  type PreviewReply,
  type PreviewRequest,
  type StatusCause,
  type StatusReason,
  type StoredLike,
} from './protocol.js';
export {
  AlreadyExistsError,
  ApiError,
  apiErrorFrom,
  BadRequestError,
  ConflictError,
  ExpiredError,
  ForbiddenError,
  InternalError,
  InvalidError,
  isRetryable,
  NotFoundError,
  RequestEntityTooLargeError,
  ServiceUnavailableError,
  TimeoutError,
  TooManyRequestsError,
  UnauthorizedError,
  UnsupportedMediaTypeError,
} from './api-error.js';
export {
  backoffMs,
  GATEWAY_CLIENT_DEFAULTS,
  GatewayClient,
  type GatewayClientOptions,
  type RetryOptions,
} from './gateway-client.js';
