import { AdmissionError, ManifestError, UnknownKindError } from '@flotilla/api';
import type { ApiErrorBody } from '@flotilla/client';
import { NotFoundError, StaleResourceVersionError } from '@flotilla/store';

export class TooLargeError extends Error {
  constructor(readonly size: number, readonly limit: number) {
    super(`object is too large: ${size} bytes of JSON, the limit is ${limit}`);
    this.name = 'TooLargeError';
  }
}

export class BadRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BadRequestError';
  }
}

/** Maps a typed error to the reply a client sees; anything unexpected is Internal and logged by the caller. */
export function toApiError(err: unknown): ApiErrorBody {
  if (err instanceof AdmissionError) return { code: 'Invalid', message: err.message, causes: err.causes };
  if (err instanceof StaleResourceVersionError) return { code: 'Conflict', message: err.message };
  if (err instanceof NotFoundError) return { code: 'NotFound', message: err.message };
  if (err instanceof TooLargeError) return { code: 'TooLarge', message: err.message };
  if (err instanceof UnknownKindError || err instanceof ManifestError || err instanceof BadRequestError) {
    return { code: 'BadRequest', message: err.message };
  }
  return { code: 'Internal', message: `internal error: ${(err as Error)?.message ?? String(err)}` };
}
