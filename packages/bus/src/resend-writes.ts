import { JetStreamApiError, type JetStreamClient, type JetStreamPublishOptions, type PubAck } from '@nats-io/jetstream';
import { errors, nuid, type Payload } from '@nats-io/transport-node';
import { JetStreamErrorCodes } from './errors.js';

/** How long one attempt of a write waits for the stream's answer before the same message is sent again. */
export const WRITE_ATTEMPT_MS = 500;
/**
 * How long a write waits before it asks again when the stream answered "not now": no leader to take it (no
 * responders), or its first copy still in process.
 */
const NOT_NOW_WAIT_MS = 100;

export interface ResendWritesOptions {
  /** How long a write waits for its answer in all (the connection's request timeout, NATS_TIMEOUT_MS). */
  timeoutMs: number;
  /** How long one attempt waits before the same message is sent again (default WRITE_ATTEMPT_MS). */
  attemptMs?: number | undefined;
  /** Told of each resend (tests count them). */
  onResend?: ((subject: string) => void) | undefined;
}

/**
 * Makes `js.publish` (every KV put, create, update and delete, and every event) send a write again, as the same
 * message, whenever an attempt is not answered within `attemptMs`, until `timeoutMs` has passed.
 *
 * Why: a stream electing a new leader takes no writes. A write sent then is either not answered (it waited out the
 * whole request timeout) or refused at once with "no responders"; either way its caller retried a second or more
 * later, so writes stalled well past the election (2.6-2.9 s with NATS_TIMEOUT_MS=2000). Sent again every half second
 * (every tenth of a second after a refusal), a write is answered within half a second of the new leader.
 *
 * Safe because every attempt carries one message id (`Nats-Msg-Id`; a caller's own, as an event's, is kept). Within
 * the stream's duplicate window (2 minutes for the buckets) the stream answers a second copy with the first copy's
 * sequence, marked duplicate, and it does so before it checks an expected last sequence: a compare-and-set whose
 * first attempt did land is answered as written, not refused by itself. A copy that arrives while the first is still
 * being replicated is refused as "in process"; that is an attempt not answered yet, and the write goes on waiting.
 */
export function resendUnansweredWrites(js: JetStreamClient, opts: ResendWritesOptions): void {
  const attemptMs = opts.attemptMs ?? WRITE_ATTEMPT_MS;
  const publishOnce = js.publish.bind(js);
  js.publish = async (
    subject: string,
    payload?: Payload,
    options?: Partial<JetStreamPublishOptions>,
  ): Promise<PubAck> => {
    const deadline = Date.now() + (options?.timeout ?? opts.timeoutMs);
    const sent = { ...options, msgID: options?.msgID ?? nuid.next() };
    for (;;) {
      const left = deadline - Date.now();
      try {
        return await publishOnce(subject, payload, { ...sent, timeout: Math.max(1, Math.min(attemptMs, left)) });
      } catch (err) {
        const notNow = isNoLeader(err) || isInProcess(err);
        if (!notNow && !(err instanceof errors.TimeoutError)) throw err;
        if (notNow) await new Promise((r) => setTimeout(r, Math.min(NOT_NOW_WAIT_MS, left)));
        // Out of time, the caller sees a timeout or "no leader" (both retryable for it), never "in process".
        if (Date.now() >= deadline) throw isInProcess(err) ? new errors.TimeoutError({ cause: err }) : err;
        opts.onResend?.(subject);
      }
    }
  };
}

/** Nobody took the write: the stream has no leader for the moment (or is gone, which the last attempt then tells). */
function isNoLeader(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++)
    if (e instanceof errors.NoRespondersError) return true;
  return false;
}

/** The stream's "the first copy of this message id is still in process": not answered yet, rather than refused. */
const isInProcess = (err: unknown): boolean =>
  err instanceof JetStreamApiError && err.code === JetStreamErrorCodes.DuplicateMessageInProcess;
