import { AdmissionError } from '@flotilla/api';
import { ApiError, ServiceUnavailableError } from '@flotilla/client';
import { CliError } from './context.js';

/** How kubectl words a failure: "Error from server (Invalid): …" for the gateway's answers. */
export function errorText(err: unknown): string {
  if (err instanceof ApiError) {
    return err instanceof ServiceUnavailableError
      ? `error: ${err.message}`
      : `Error from server (${err.reason}): ${err.message}`;
  }
  if (err instanceof AdmissionError) return `error: ${err.message}`;
  if (err instanceof CliError) return err.message;
  return `error: ${(err as Error)?.message ?? String(err)}`;
}
