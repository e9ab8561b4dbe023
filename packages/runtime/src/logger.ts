import { pino, type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from './config.js';

export type { Logger } from 'pino';

/**
 * Paths pino blanks out wherever they appear up to three levels deep; a second line of defence
 * behind `redactConfig` / `redactUrl`, for credentials that reach a log call by accident.
 */
const SECRET_KEYS = [
  'password',
  'pass',
  'token',
  'secret',
  'authorization',
  'NATS_PASSWORD',
  'NATS_TOKEN',
  'REDIS_PASSWORD',
];

export const REDACT_PATHS: readonly string[] = SECRET_KEYS.flatMap((k) => [k, `*.${k}`, `*.*.${k}`]);

export interface CreateLoggerOptions {
  service: string;
  level?: LogLevel;
  /** Where JSON lines go; `stdoutDestination()` by default. Tests pass a stream to read the lines back. */
  destination?: DestinationStream;
}

/** How long writes to stdout may keep failing with EAGAIN before log lines are dropped rather than retried. */
export const STALLED_OUTPUT_GIVE_UP_MS = 5_000;
const MAX_BUFFERED_OUTPUT_BYTES = 16 * 1024 * 1024;

/**
 * The retry rule for a log destination whose reader stopped reading (every write EAGAIN): retry until it has been
 * stalled for `giveUpMs`, then give up. A successful write in between (`written`) starts the clock again.
 */
export function stalledOutputRetry(giveUpMs: number, now: () => number = Date.now) {
  let stalledSince: number | undefined;
  return {
    retry(): boolean {
      const at = now();
      stalledSince ??= at;
      return at - stalledSince < giveUpMs;
    },
    written(): void {
      stalledSince = undefined;
    },
  };
}

/**
 * stdout as pino's asynchronous destination, except that a reader which stops reading cannot hold the process
 * forever: pino retries EAGAIN without end, also in the synchronous flush it runs at exit, so a service whose
 * supervisor holds the pipe but no longer reads it (wedged, or stopped) would never finish exiting. After `giveUpMs`
 * of EAGAIN the lines are dropped instead. (A reader that is gone, EPIPE, ends the flush at once: see
 * patches/sonic-boom@4.2.1.patch.)
 */
export function stdoutDestination(giveUpMs = STALLED_OUTPUT_GIVE_UP_MS): DestinationStream {
  const rule = stalledOutputRetry(giveUpMs);
  const stream = pino.destination({
    // As pino's default does: opening process.stdout makes a pipe's fd non-blocking, so a full pipe answers EAGAIN
    // (which the rule below bounds) instead of blocking a libuv thread, and the exit flush, for good.
    dest: process.stdout.fd,
    sync: false,
    retryEAGAIN: () => rule.retry(),
    // While nobody reads, lines wait in memory: past this much they are dropped rather than held.
    maxLength: MAX_BUFFERED_OUTPUT_BYTES,
  });
  stream.on('write', () => rule.written());
  // Given up on (or any other write error but EPIPE, which pino handles itself): drop the line, keep the service up.
  stream.on('error', () => undefined);
  return stream;
}

export function createLogger(opts: CreateLoggerOptions): Logger {
  return pino(
    {
      name: opts.service,
      level: opts.level ?? 'info',
      base: { service: opts.service, pid: process.pid },
      redact: { paths: [...REDACT_PATHS], censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    opts.destination ?? stdoutDestination(),
  );
}
