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
  /** Where JSON lines go; stdout by default. Tests pass a stream to read the lines back. */
  destination?: DestinationStream;
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
    opts.destination,
  );
}
