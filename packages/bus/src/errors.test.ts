import { describe, expect, it } from 'vitest';
import { JetStreamApiError } from '@nats-io/jetstream';
import { errors } from '@nats-io/transport-node';
import { AlreadyExistsError, busTransientFailure, ConflictError, isAlreadyExists } from './errors.js';

describe('busTransientFailure (failed for now, not for good)', () => {
  const unavailable = new JetStreamApiError({
    code: 503,
    err_code: 10008,
    description: 'JetStream system temporarily unavailable',
  });
  const notFound = new JetStreamApiError({ code: 404, err_code: 10037, description: 'no message found' });
  it.each([
    ['a request that timed out', new errors.TimeoutError(), 'timeout'],
    [
      'a timeout wrapped by a request error',
      new errors.RequestError('failed', { cause: new errors.TimeoutError() }),
      'timeout',
    ],
    [
      'a timeout wrapped twice',
      new Error('apply', { cause: new Error('put', { cause: new errors.TimeoutError() }) }),
      'timeout',
    ],
    ['a closed connection', new errors.ClosedConnectionError(), 'unavailable'],
    ['a draining connection', new errors.DrainingConnectionError(), 'unavailable'],
    ['no JetStream responders', new errors.NoRespondersError('$JS.API.STREAM.INFO.x'), 'unavailable'],
    ["JetStream's temporarily unavailable", unavailable, 'unavailable'],
    ['a JetStream not-found', notFound, undefined],
    ['a lost compare-and-set', new ConflictError('k', 3), undefined],
    ['a plain error', new Error('boom'), undefined],
    ['not an error', 'timeout', undefined],
  ])('%s is %s', (_what, err, expected) => {
    expect(busTransientFailure(err)).toBe(expected);
  });
});

describe('isAlreadyExists', () => {
  it('is true for a create that found its key, false for a lost compare-and-set and anything else', () => {
    expect(isAlreadyExists(new AlreadyExistsError('objects.Cluster._.m1'))).toBe(true);
    expect(isAlreadyExists(new ConflictError('objects.Cluster._.m1', 3))).toBe(false);
    expect(isAlreadyExists(new Error('objects.Cluster._.m1 already exists'))).toBe(false);
  });
});
