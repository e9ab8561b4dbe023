import { JetStreamApiCodes, JetStreamApiError } from '@nats-io/jetstream';
import { AuthorizationError, errors, UserAuthenticationExpiredError } from '@nats-io/transport-node';

/** A compare-and-set lost: someone else wrote the key since `expected` was read. */
export class ConflictError extends Error {
  constructor(
    readonly key: string,
    readonly expected: number,
    options?: { cause?: unknown },
  ) {
    super(`conflict writing ${key}: expected revision ${expected}, the stored one is newer`, options);
    this.name = 'ConflictError';
  }
}

/** A create found the key already present. */
export class AlreadyExistsError extends Error {
  constructor(
    readonly key: string,
    options?: { cause?: unknown },
  ) {
    super(`${key} already exists`, options);
    this.name = 'AlreadyExistsError';
  }
}

/** True when a create found its key already present (`AlreadyExistsError`). */
export const isAlreadyExists = (err: unknown): err is AlreadyExistsError => err instanceof AlreadyExistsError;

/** The NATS or JetStream server could not be reached or refused the bus set-up. */
export class BusUnavailableError extends Error {
  constructor(
    readonly url: string,
    options?: { cause?: unknown },
  ) {
    super(`cannot reach NATS at ${url}: ${(options?.cause as Error | undefined)?.message ?? 'unknown error'}`, options);
    this.name = 'BusUnavailableError';
  }
}

/**
 * A read of stored messages kept coming back empty although the stream holds messages it should have returned (a
 * fetch expiring before its messages were taken, again and again): an error, never a short answer.
 */
export class ReadIncompleteError extends Error {
  constructor(
    readonly stream: string,
    readonly afterSeq: number,
    readonly newestMatchingSeq: number,
  ) {
    super(
      `reading ${stream} after sequence ${afterSeq}: fetches keep coming back empty, but messages up to sequence ${newestMatchingSeq} match`,
    );
    this.name = 'ReadIncompleteError';
  }
}

/** Why a stored or sent value could not be decoded. */
export type UndecodableReason = 'too-large' | 'bad-gzip' | 'bad-json';

/**
 * A value read from the bus (a KV entry, an event, a reply) that is not what Flotilla writes: gzipped JSON that
 * expands past the bound, a broken gzip stream, or text that is not JSON. Reading it again gives the same answer, so
 * a reader sets it aside (logs it, skips or terminates it) instead of trying it again.
 */
export class UndecodableValueError extends Error {
  constructor(
    /** Where the value came from: a KV bucket and key, or a stream subject and sequence. */
    readonly source: string,
    readonly reason: UndecodableReason,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(`cannot decode ${source}: ${detail}`, options);
    this.name = 'UndecodableValueError';
  }
}

export const isUndecodable = (err: unknown): err is UndecodableValueError => err instanceof UndecodableValueError;

/** True when NATS answered but refused the credentials (user/password, token) the bus was given, or none. */
export function isCredentialsRefused(err: unknown): boolean {
  return (
    err instanceof BusUnavailableError &&
    (err.cause instanceof AuthorizationError || err.cause instanceof UserAuthenticationExpiredError)
  );
}

/**
 * JetStream's API error codes the bus acts on. The client library names only some of them; the rest are the
 * server's own (nats-server's errors.json), which are stable across releases unlike the description text.
 */
export const JetStreamErrorCodes = {
  ...JetStreamApiCodes,
  /** A stream add found a stream of that name with another configuration. */
  StreamNameInUse: 10058,
  /** A message id's first copy is still being replicated when a second copy arrives (a resend; resend-writes.ts). */
  DuplicateMessageInProcess: 10158,
} as const;

const hasCode = (err: unknown, ...codes: number[]): boolean =>
  err instanceof JetStreamApiError && codes.includes(err.code);

/** JetStream reports a compare-and-set loss as "wrong last sequence"; a create over a live key the same way. */
export function isWrongLastSequence(err: unknown): boolean {
  return hasCode(err, JetStreamErrorCodes.StreamWrongLastSequence, JetStreamErrorCodes.StreamWrongLastSequenceUnknown);
}

export const isConsumerNotFound = (err: unknown): boolean => hasCode(err, JetStreamErrorCodes.ConsumerNotFound);
export const isStreamNotFound = (err: unknown): boolean => hasCode(err, JetStreamErrorCodes.StreamNotFound);
export const isNoMessageFound = (err: unknown): boolean => hasCode(err, JetStreamErrorCodes.NoMessageFound);
export const isStreamNameInUse = (err: unknown): boolean => hasCode(err, JetStreamErrorCodes.StreamNameInUse);

/** How a bus operation failed for a while rather than for good: asking again later may succeed. */
export type BusTransientFailure = 'timeout' | 'unavailable';

/**
 * Whether a bus operation failed for now, not for good, and how: `timeout` when NATS or JetStream did not answer in
 * time (a busy server, a stream leader being elected), `unavailable` when there is no connection or no JetStream to
 * answer (reconnecting, closed, draining, JetStream's own "temporarily unavailable"); undefined for anything else.
 */
export function busTransientFailure(err: unknown): BusTransientFailure | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    if (e instanceof errors.TimeoutError) return 'timeout';
    if (
      e instanceof errors.ClosedConnectionError ||
      e instanceof errors.DrainingConnectionError ||
      e instanceof errors.ConnectionError ||
      e instanceof errors.NoRespondersError
    )
      return 'unavailable';
    if (e instanceof JetStreamApiError && e.status === 503) return 'unavailable';
  }
  return undefined;
}
