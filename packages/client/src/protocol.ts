import type { FailBackQueuePreview, Preview } from '@flotilla/preview';
import type { KubeEvent, ObjectIdentity } from '@flotilla/store';

/**
 * The gateway's request-reply API. Each operation is a NATS request on `<prefix>.api.<op>` with a JSON body;
 * the reply is an ApiReply. The HTTP API carries the same bodies.
 */
export interface ObjectQuery {
  /** Kind, plural, short name or plural.group: resolved by the gateway. */
  kind: string;
  /** Omitted: "default" for namespaced kinds in get/delete; every namespace in list. */
  namespace?: string | undefined;
  name: string;
}

export interface ApplyRequest {
  object: unknown;
  /** Admission only: report what would happen, store nothing. */
  dryRun?: boolean;
  /**
   * The uid and creationTimestamp a new object takes instead of fresh ones (an existing object keeps its own): a
   * copy of an object kept elsewhere, as the kube-bridge's copies of the host's objects.
   */
  identity?: ObjectIdentity;
}
export interface ApplyReply {
  object: StoredLike;
  outcome: 'created' | 'configured' | 'unchanged';
  /** What the apply did otherwise than asked, e.g. an autoscaled workload's replicas kept (Karmada's retain). */
  warnings?: string[];
}

export type GetRequest = ObjectQuery;
export interface ListRequest {
  kind: string;
  /** Omitted = all namespaces. */
  namespace?: string | undefined;
}
export interface ListReply {
  items: StoredLike[];
}
export interface DeleteRequest extends ObjectQuery {
  resourceVersion?: string | undefined;
}
export interface DeleteReply {
  object: StoredLike;
}
export interface EventsRequest {
  kind?: string | undefined;
  namespace?: string | undefined;
  name?: string | undefined;
}
export type { KubeEvent };
export interface EventsReply {
  items: KubeEvent[];
}

/**
 * Kubernetes' StatusReason values the gateway answers with, and the HTTP status Kubernetes pairs with each. The reason
 * is the stable part of an error reply: clients branch on it (or on the error class it maps to), never on the message.
 */
export const STATUS_CODES = {
  BadRequest: 400,
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  AlreadyExists: 409,
  Conflict: 409,
  /** A resume point older than the server still serves from (an event stream's `Last-Event-ID` too far back). */
  Expired: 410,
  RequestEntityTooLarge: 413,
  /** A body whose `Content-Type` is not the JSON the API takes. */
  UnsupportedMediaType: 415,
  Invalid: 422,
  /** Past the caller's share of requests: retry after `retryAfterSeconds`. */
  TooManyRequests: 429,
  InternalError: 500,
  ServiceUnavailable: 503,
  /** The request could not be completed in time (the store did not answer): retry, after `retryAfterSeconds`. */
  Timeout: 504,
} as const;
export type StatusReason = keyof typeof STATUS_CODES;

/** One bad field of an Invalid request, as in Kubernetes' StatusCause. */
export interface StatusCause {
  field: string;
  message: string;
}

export interface ApiErrorBody {
  reason: StatusReason;
  message: string;
  /** For Invalid (a rejected object) and BadRequest (a bad request field): one entry per bad field. */
  causes?: StatusCause[];
  /**
   * For Timeout, ServiceUnavailable and TooManyRequests: how long to wait before asking again (Kubernetes' `details.retryAfterSeconds`;
   * the HTTP API sends it as `Retry-After` too).
   */
  retryAfterSeconds?: number;
}

export type ApiReply<T> = { ok: true; result: T } | { ok: false; error: ApiErrorBody };

/** A stored object as the API returns it (metadata, spec and status). */
export interface StoredLike {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; [k: string]: unknown };
  spec?: unknown;
  status?: unknown;
  [k: string]: unknown;
}

/**
 * `preview`: what a change would move, decided on the live state by the scheduler's own functions (packages/preview);
 * nothing is written. Exactly one of `objects` (as apply takes them) and `cluster` (a cluster action).
 */
export interface PreviewRequest {
  objects?: unknown[];
  cluster?: {
    action: 'fail' | 'cordon' | 'taint';
    name: string;
    /** For `taint`: `KEY[=VALUE]:EFFECT`. */
    taint?: string;
  };
}
export type PreviewReply = Preview;

/**
 * `failbacks`: the bindings waiting to fail back, planned as the rebalancer plans them with the fleet budget in force
 * (the rebalancer's REBALANCER_FAILBACK_BUDGET settings, which the gateway reads too), and where each would land;
 * nothing is written. It takes no fields.
 */
export type FailBacksRequest = Record<string, never>;
export type FailBacksReply = FailBackQueuePreview;

export interface Operations {
  apply: [ApplyRequest, ApplyReply];
  get: [GetRequest, StoredLike];
  list: [ListRequest, ListReply];
  delete: [DeleteRequest, DeleteReply];
  events: [EventsRequest, EventsReply];
  preview: [PreviewRequest, PreviewReply];
  failbacks: [FailBacksRequest, FailBacksReply];
}
export type Operation = keyof Operations;
export const OPERATIONS: readonly Operation[] = ['apply', 'get', 'list', 'delete', 'events', 'preview', 'failbacks'];
