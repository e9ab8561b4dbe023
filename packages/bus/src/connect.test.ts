import { describe, expect, it } from 'vitest';
import { defaultReplicas, natsServersAndAuth } from './connect.js';

describe('natsServersAndAuth', () => {
  it.each([
    ['one server', 'nats://127.0.0.1:4222', { servers: ['nats://127.0.0.1:4222'] }],
    [
      'a cluster, spaces around the commas',
      'nats://n1:4222, nats://n2:4222 ,nats://n3:4222',
      { servers: ['nats://n1:4222', 'nats://n2:4222', 'nats://n3:4222'] },
    ],
    [
      'credentials of the first URL that has any, kept out of every server',
      'nats://n1:4222,nats://alice:s%40cret@n2:4222,nats://bob:x@n3:4222',
      { servers: ['nats://n1:4222', 'nats://n2:4222', 'nats://n3:4222'], user: 'alice', password: 's@cret' },
    ],
    ['a bare host:port', '127.0.0.1:4222', { servers: ['nats://127.0.0.1:4222'] }],
  ])('%s', (_title, urls, want) => {
    expect(natsServersAndAuth(urls)).toEqual(want);
  });
});

describe('defaultReplicas', () => {
  it.each([
    ['a single server', { cluster: undefined }, 1],
    ['a server of a cluster (its INFO names the cluster)', { cluster: 'flotilla' }, 3],
    ['no INFO yet', undefined, 1],
  ])('%s: %s', (_title, info, want) => {
    expect(defaultReplicas(info)).toBe(want);
  });
});
