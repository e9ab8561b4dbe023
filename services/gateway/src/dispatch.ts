import { OPERATIONS, type ApiReply, type Operation } from '@flotilla/client';
import { BadRequestError, toApiError } from './errors.js';
import type { Caller, GatewayHandler } from './handler.js';
import type { AnswerMetrics } from './request-metrics.js';

export interface DispatchLogger {
  error(obj: object, msg: string): void;
}

/** Runs one API operation and wraps its outcome; never throws. */
export async function dispatch(
  handler: GatewayHandler,
  op: string,
  body: unknown,
  log: DispatchLogger,
  metrics?: AnswerMetrics,
  caller?: Caller,
): Promise<ApiReply<unknown>> {
  const started = performance.now();
  const operation = OPERATIONS.includes(op as Operation) ? op : 'unknown';
  try {
    if (operation === 'unknown')
      throw new BadRequestError(`unknown operation "${op}"; one of ${OPERATIONS.join(', ')}`);
    if (body === null || typeof body !== 'object') throw new BadRequestError('request body must be a JSON object');
    const result = await (handler[op as Operation] as (b: unknown, c?: Caller) => Promise<unknown>).call(
      handler,
      body,
      caller,
    );
    metrics?.answered(operation, 'Success', (performance.now() - started) / 1000);
    return { ok: true, result };
  } catch (err) {
    const error = toApiError(err);
    if (error.reason === 'InternalError') log.error({ err, op }, 'request failed');
    metrics?.answered(operation, error.reason, (performance.now() - started) / 1000);
    return { ok: false, error };
  }
}

export function parseBody(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch (err) {
    throw new BadRequestError(`request body is not JSON: ${(err as Error).message}`);
  }
}
