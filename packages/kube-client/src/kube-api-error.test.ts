import { ApiException } from '@kubernetes/client-node/dist/gen/apis/exception.js';
import { describe, expect, it } from 'vitest';
import {
  describeKubeError,
  isConflict,
  isForbidden,
  isGone,
  isNotFound,
  isUnauthorized,
  isUnreachable,
  KubeApiError,
  toKubeApiError,
} from './kube-api-error.js';

const status = (code: number, message: string) =>
  new ApiException(code, 'Unsuccessful HTTP Request', { kind: 'Status', code, message }, {});
const req = { verb: 'update', group: 'apps', resource: 'deployments', namespace: 'shop', name: 'web' };

describe('KubeApiError: one vocabulary for what the API server refused', () => {
  it.each([
    [404, isNotFound],
    [409, isConflict],
    [403, isForbidden],
    [401, isUnauthorized],
    [410, isGone],
  ] as const)('%i has its predicate (and no other)', (code, predicate) => {
    const err = toKubeApiError(status(code, 'no'), req);
    expect(err.code).toBe(code);
    expect(predicate(err)).toBe(true);
    const others = [isNotFound, isConflict, isForbidden, isUnauthorized, isGone].filter((p) => p !== predicate);
    expect(others.map((p) => p(err))).toEqual(others.map(() => false));
    expect(isUnreachable(err)).toBe(false);
  });

  it('names the request and keeps the server message and the cause', () => {
    const cause = status(409, 'the object has been modified');
    const err = toKubeApiError(cause, req);
    expect(err).toBeInstanceOf(KubeApiError);
    expect(err.message).toBe(
      'update deployments.apps "web" in namespace "shop" failed (409): the object has been modified',
    );
    expect(err.serverMessage).toBe('the object has been modified');
    expect(err.cause).toBe(cause);
    expect(toKubeApiError(err, req)).toBe(err);
    expect(describeKubeError(err)).toBe('HTTP 409: the object has been modified');
  });

  it('a request that got no answer has no code and is unreachable', () => {
    const err = toKubeApiError(
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' }),
    );
    expect(err.code).toBeUndefined();
    expect(isUnreachable(err)).toBe(true);
    expect(describeKubeError(err)).toBe('connect ECONNREFUSED 127.0.0.1:6443');
  });

  it("names undici's network error by its cause, and a timed-out request as unanswered (not as HTTP 23)", () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' });
    const failed = toKubeApiError(new TypeError('fetch failed', { cause: refused }));
    expect(isUnreachable(failed)).toBe(true);
    expect(describeKubeError(failed)).toBe('connect ECONNREFUSED 127.0.0.1:6443');
    const timedOut = toKubeApiError(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
    expect(timedOut.code).toBeUndefined();
    expect(isUnreachable(timedOut)).toBe(true);
    expect(describeKubeError(timedOut)).toBe('no answer within the request timeout');
  });

  it('predicates read client-node errors and watch Status objects as they come', () => {
    expect(isNotFound(status(404, 'gone'))).toBe(true);
    expect(isGone({ kind: 'Status', code: 410, reason: 'Expired' })).toBe(true);
    expect(isConflict(undefined)).toBe(false);
  });
});
