import { describe, expect, it } from 'vitest';
import {
  AlreadyExistsError,
  isAlreadyExists,
  isNotFound,
  ApiError,
  apiErrorFrom,
  BadRequestError,
  ConflictError,
  InternalError,
  InvalidError,
  NotFoundError,
  RequestEntityTooLargeError,
  ServiceUnavailableError,
  TimeoutError,
  UnauthorizedError,
  ForbiddenError,
  isRetryable,
} from './api-error.js';
import type { StatusReason } from './protocol.js';

describe('apiErrorFrom (a gateway reply back to a typed error)', () => {
  const cases: Array<[StatusReason, typeof ApiError, number]> = [
    ['BadRequest', BadRequestError, 400],
    ['Unauthorized', UnauthorizedError, 401],
    ['Forbidden', ForbiddenError, 403],
    ['NotFound', NotFoundError, 404],
    ['AlreadyExists', AlreadyExistsError, 409],
    ['Conflict', ConflictError, 409],
    ['RequestEntityTooLarge', RequestEntityTooLargeError, 413],
    ['Invalid', InvalidError, 422],
    ['InternalError', InternalError, 500],
    ['ServiceUnavailable', ServiceUnavailableError, 503],
    ['Timeout', TimeoutError, 504],
  ];
  it.each(cases)("%s becomes %O with Kubernetes' HTTP status %d", (reason, Class, status) => {
    const err = apiErrorFrom({ reason, message: `it was ${reason}` });
    expect(err).toBeInstanceOf(Class);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ reason, status, message: `it was ${reason}`, name: Class.name, causes: [] });
  });

  it('keeps the retry hint, and only Timeout and ServiceUnavailable are retryable', () => {
    const timeout = apiErrorFrom({ reason: 'Timeout', message: 'busy', retryAfterSeconds: 1 });
    expect(timeout.retryAfterSeconds).toBe(1);
    expect(isRetryable(timeout)).toBe(true);
    expect(isRetryable(apiErrorFrom({ reason: 'ServiceUnavailable', message: 'down' }))).toBe(true);
    for (const reason of ['InternalError', 'Conflict', 'Invalid', 'NotFound'] as const)
      expect(isRetryable(apiErrorFrom({ reason, message: reason }))).toBe(false);
    expect(isRetryable(new Error('plain'))).toBe(false);
  });

  it('keeps the field causes of an Invalid reply', () => {
    const causes = [{ field: 'spec.replicas', message: 'Invalid value: "three": must be an integer' }];
    expect(apiErrorFrom({ reason: 'Invalid', message: 'Deployment "web" is invalid', causes }).causes).toEqual(causes);
  });

  it('a reason this client does not know (a newer gateway) stays a plain ApiError, never a subclass', () => {
    const err = apiErrorFrom({ reason: 'PaymentRequired' as StatusReason, message: 'a reason from the future' });
    expect(err.constructor).toBe(ApiError);
    expect(err.reason).toBe('PaymentRequired');
  });
});

describe('isNotFound and isAlreadyExists', () => {
  it("tell the gateway's NotFound and AlreadyExists answers from every other", () => {
    const notFound = apiErrorFrom({ reason: 'NotFound', message: 'clusters "m9" not found' });
    const exists = apiErrorFrom({ reason: 'AlreadyExists', message: 'clusters "m1" already exists' });
    expect([isNotFound(notFound), isAlreadyExists(notFound)]).toEqual([true, false]);
    expect([isNotFound(exists), isAlreadyExists(exists)]).toEqual([false, true]);
    expect(isNotFound(apiErrorFrom({ reason: 'Conflict', message: 'modified' }))).toBe(false);
  });
});
