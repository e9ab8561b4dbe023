import type { ApiErrorBody, ApiErrorCode } from './protocol.js';

/** An error the gateway answered with; the message is ready to print. */
export class ApiError extends Error {
  readonly code: ApiErrorCode;
  readonly causes: Array<{ field: string; message: string }>;
  constructor(body: ApiErrorBody) {
    super(body.message);
    this.name = 'ApiError';
    this.code = body.code;
    this.causes = body.causes ?? [];
  }
}
