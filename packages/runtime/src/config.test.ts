import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { baseConfigSchema, loadConfig } from './config.js';
import { envBool, envEnum, envInt, envPort, envRequired, envString, envUrl } from './env-fields.js';
import { ConfigError } from './errors.js';

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('baseConfigSchema', () => {
  it('fills every default from an empty environment', () => {
    expect(loadConfig(baseConfigSchema, {})).toEqual({
      NATS_URL: 'nats://127.0.0.1:4222',
      NATS_REPLICAS: undefined,
      NATS_TIMEOUT_MS: 5000,
      NATS_USER: undefined,
      NATS_PASSWORD: undefined,
      NATS_TOKEN: undefined,
      REDIS_URL: 'redis://127.0.0.1:6379',
      REDIS_PASSWORD: undefined,
      REDIS_SENTINELS: undefined,
      REDIS_SENTINEL_NAME: 'mymaster',
      REDIS_SENTINEL_PASSWORD: undefined,
      FLOTILLA_PREFIX: 'flotilla',
      LOG_LEVEL: 'info',
      HTTP_PORT: 0,
      HTTP_HOST: '127.0.0.1',
      LEADER_LEASE_MS: 10_000,
      EVENTS_MAX_AGE_MS: 7 * 24 * 3600 * 1000,
      EVENTS_MAX_BYTES: 512 * 1024 * 1024,
      PROVISION_CHECK_MS: 5000,
      STARTUP_CONNECT_MS: 60_000,
      HEAP_GROWTH_PERCENT: 25,
    });
  });

  it('reads every variable when set', () => {
    const config = loadConfig(baseConfigSchema, {
      NATS_URL: 'nats://alice:s3cret@nats.example:4222',
      NATS_USER: 'bob',
      NATS_PASSWORD: 'pw',
      NATS_TOKEN: 'tok',
      REDIS_URL: 'rediss://:r3dis@redis.example:6380/2',
      REDIS_PASSWORD: 'rpw',
      FLOTILLA_PREFIX: 'team-a-2',
      LOG_LEVEL: 'debug',
      HTTP_PORT: '9464',
      HTTP_HOST: '0.0.0.0',
      LEADER_LEASE_MS: '1000',
      HEAP_GROWTH_PERCENT: '0',
    });
    expect(config).toMatchObject({
      NATS_URL: 'nats://alice:s3cret@nats.example:4222',
      NATS_USER: 'bob',
      REDIS_URL: 'rediss://:r3dis@redis.example:6380/2',
      FLOTILLA_PREFIX: 'team-a-2',
      LOG_LEVEL: 'debug',
      HTTP_PORT: 9464,
      HTTP_HOST: '0.0.0.0',
      LEADER_LEASE_MS: 1000,
      HEAP_GROWTH_PERCENT: 0,
    });
  });

  it('reads a NATS cluster (a URL list), its replicas and Redis Sentinels', () => {
    expect(
      loadConfig(baseConfigSchema, {
        NATS_URL: 'nats://127.0.0.1:4301, nats://127.0.0.1:4302,nats://127.0.0.1:4303',
        NATS_REPLICAS: '3',
        REDIS_SENTINELS: '127.0.0.1:26379,sentinel-1.redis:26380,[::1]:26381',
        REDIS_SENTINEL_NAME: 'flotilla',
      }),
    ).toMatchObject({
      NATS_URL: 'nats://127.0.0.1:4301,nats://127.0.0.1:4302,nats://127.0.0.1:4303',
      NATS_REPLICAS: 3,
      REDIS_SENTINELS: [
        { host: '127.0.0.1', port: 26379 },
        { host: 'sentinel-1.redis', port: 26380 },
        { host: '::1', port: 26381 },
      ],
      REDIS_SENTINEL_NAME: 'flotilla',
    });
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig(baseConfigSchema, { HTTP_PORT: '', LEADER_LEASE_MS: '', FLOTILLA_PREFIX: '' })).toMatchObject({
      HTTP_PORT: 0,
      LEADER_LEASE_MS: 10_000,
      FLOTILLA_PREFIX: 'flotilla',
    });
  });

  it('ignores variables it does not know', () => {
    expect(loadConfig(baseConfigSchema, { PATH: '/bin', HOME: 'x' })).not.toHaveProperty('PATH');
  });

  it.each([
    ['LEADER_LEASE_MS', 'abc', 'LEADER_LEASE_MS: expected an integer >= 1000, got "abc"'],
    ['LEADER_LEASE_MS', '999', 'LEADER_LEASE_MS: expected an integer >= 1000, got "999"'],
    ['LEADER_LEASE_MS', '1.5e4', 'LEADER_LEASE_MS: expected an integer >= 1000, got "1.5e4"'],
    ['LEADER_LEASE_MS', '-5000', 'LEADER_LEASE_MS: expected an integer >= 1000, got "-5000"'],
    ['HTTP_PORT', '65536', 'HTTP_PORT: expected an integer from 0 to 65535, got "65536"'],
    ['HTTP_PORT', '-1', 'HTTP_PORT: expected an integer from 0 to 65535, got "-1"'],
    ['HTTP_PORT', '80x', 'HTTP_PORT: expected an integer from 0 to 65535, got "80x"'],
    ['HTTP_PORT', ' 80', 'HTTP_PORT: expected an integer from 0 to 65535, got " 80"'],
    ['HTTP_PORT', '0x50', 'HTTP_PORT: expected an integer from 0 to 65535, got "0x50"'],
    [
      'LOG_LEVEL',
      'verbose',
      'LOG_LEVEL: expected one of fatal, error, warn, info, debug, trace, silent, got "verbose"',
    ],
    ['LOG_LEVEL', 'INFO', 'LOG_LEVEL: expected one of fatal, error, warn, info, debug, trace, silent, got "INFO"'],
    [
      'FLOTILLA_PREFIX',
      'Flotilla',
      `FLOTILLA_PREFIX: expected lower-case letters, digits and '-' (1-63 characters, not starting or ending with '-'), got "Flotilla"`,
    ],
    [
      'FLOTILLA_PREFIX',
      'a:b',
      `FLOTILLA_PREFIX: expected lower-case letters, digits and '-' (1-63 characters, not starting or ending with '-'), got "a:b"`,
    ],
    [
      'FLOTILLA_PREFIX',
      'a.b',
      `FLOTILLA_PREFIX: expected lower-case letters, digits and '-' (1-63 characters, not starting or ending with '-'), got "a.b"`,
    ],
    [
      'FLOTILLA_PREFIX',
      '-a',
      `FLOTILLA_PREFIX: expected lower-case letters, digits and '-' (1-63 characters, not starting or ending with '-'), got "-a"`,
    ],
    [
      'FLOTILLA_PREFIX',
      'a'.repeat(64),
      `FLOTILLA_PREFIX: expected lower-case letters, digits and '-' (1-63 characters, not starting or ending with '-'), got "${'a'.repeat(64)}"`,
    ],
    [
      'NATS_URL',
      'http://127.0.0.1:4222',
      'NATS_URL: expected a URL starting with nats:// or tls:// or ws:// or wss://, got "http://127.0.0.1:4222"',
    ],
    [
      'NATS_URL',
      'localhost:4222',
      'NATS_URL: expected a URL starting with nats:// or tls:// or ws:// or wss://, got "localhost:4222"',
    ],
    [
      'NATS_URL',
      'nats://127.0.0.1:4301,127.0.0.1:4302',
      'NATS_URL: entry 2: expected a URL starting with nats:// or tls:// or ws:// or wss://, got "nats://127.0.0.1:4301,127.0.0.1:4302"',
    ],
    [
      'NATS_URL',
      'nats://127.0.0.1:4301,,nats://127.0.0.1:4303',
      'NATS_URL: entry 2: expected a URL starting with nats:// or tls:// or ws:// or wss://, got "nats://127.0.0.1:4301,,nats://127.0.0.1:4303"',
    ],
    ['NATS_REPLICAS', '0', 'NATS_REPLICAS: expected an integer from 1 to 5, got "0"'],
    ['NATS_REPLICAS', '7', 'NATS_REPLICAS: expected an integer from 1 to 5, got "7"'],
    [
      'REDIS_SENTINELS',
      '127.0.0.1:26379,127.0.0.1',
      'REDIS_SENTINELS: entry 2: expected host:port with a port from 1 to 65535, got "127.0.0.1:26379,127.0.0.1"',
    ],
    [
      'REDIS_SENTINELS',
      'sentinel:70000',
      'REDIS_SENTINELS: entry 1: expected host:port with a port from 1 to 65535, got "sentinel:70000"',
    ],
    ['REDIS_SENTINEL_NAME', 'my master', 'REDIS_SENTINEL_NAME: expected a Sentinel master name, got "my master"'],
    ['REDIS_URL', 'not a url', 'REDIS_URL: expected a URL starting with redis:// or rediss://, got "not a url"'],
    [
      'REDIS_URL',
      'nats://127.0.0.1:6379',
      'REDIS_URL: expected a URL starting with redis:// or rediss://, got "nats://127.0.0.1:6379"',
    ],
  ])('%s=%j is refused', (variable, value, message) => {
    const err = configError(() => loadConfig(baseConfigSchema, { [variable]: value }));
    expect(err.issues).toHaveLength(1);
    expect(err.issues[0]?.variable).toBe(variable);
    expect(err.message).toBe(`invalid configuration:\n  ${message}`);
  });

  it('names every bad variable at once', () => {
    const err = configError(() =>
      loadConfig(baseConfigSchema, { LEADER_LEASE_MS: 'abc', HTTP_PORT: 'x', LOG_LEVEL: 'loud' }),
    );
    expect(err.issues.map((i) => i.variable).sort()).toEqual(['HTTP_PORT', 'LEADER_LEASE_MS', 'LOG_LEVEL']);
    expect(err.message).toContain('LEADER_LEASE_MS: expected an integer >= 1000, got "abc"');
    expect(err.message).toContain('HTTP_PORT: expected an integer from 0 to 65535, got "x"');
    expect(err.message).toContain('LOG_LEVEL: expected one of');
  });

  it('never echoes credentials of a bad URL', () => {
    const err = configError(() =>
      loadConfig(baseConfigSchema, {
        REDIS_URL: 'http://:hunter2@redis:6379',
        NATS_URL: 'http://alice:pa55@nats:4222',
      }),
    );
    expect(err.message).not.toContain('hunter2');
    expect(err.message).not.toContain('pa55');
    expect(err.message).not.toContain('alice');
    expect(err.message).toContain(
      'REDIS_URL: expected a URL starting with redis:// or rediss://, got "http://***@redis:6379"',
    );
  });

  it('never echoes a bad secret value', () => {
    const schema = baseConfigSchema.extend({
      API_TOKEN: envString({ pattern: /^[a-f0-9]{8}$/, patternHint: '8 hex digits' }),
    });
    const err = configError(() => loadConfig(schema, { API_TOKEN: 'topsecret' }));
    expect(err.message).toBe('invalid configuration:\n  API_TOKEN: expected 8 hex digits, got "***"');
  });

  it('lets services extend it', () => {
    const schema = baseConfigSchema.extend({
      GATEWAY_API_PORT: envPort(8081),
      SIM_CLUSTERS: envInt({ default: 3, min: 1 }),
      DRIVER: envEnum(['sim', 'kube'], 'sim'),
      DRY_RUN: envBool(false),
    });
    const config = loadConfig(schema, { SIM_CLUSTERS: '5', DRY_RUN: 'yes' });
    expect(config).toMatchObject({
      GATEWAY_API_PORT: 8081,
      SIM_CLUSTERS: 5,
      DRIVER: 'sim',
      DRY_RUN: true,
      LEADER_LEASE_MS: 10_000,
    });
    const err = configError(() => loadConfig(schema, { SIM_CLUSTERS: '0', DRIVER: 'docker', DRY_RUN: 'maybe' }));
    expect(err.message).toBe(
      [
        'invalid configuration:',
        '  SIM_CLUSTERS: expected a positive integer, got "0"',
        '  DRIVER: expected one of sim, kube, got "docker"',
        '  DRY_RUN: expected true or false, got "maybe"',
      ].join('\n'),
    );
  });

  it('reports plain zod schemas of services with the variable name and value', () => {
    const schema = baseConfigSchema.extend({ WORKERS: z.coerce.number().int().min(1) });
    const err = configError(() => loadConfig(schema, { WORKERS: 'many' }));
    expect(err.issues[0]).toMatchObject({ variable: 'WORKERS', value: 'many' });
    expect(err.message).toMatch(/^invalid configuration:\n {2}WORKERS: .+, got "many"$/);
  });
});

describe('env field builders', () => {
  const one = <T>(field: z.ZodType<T, string | undefined>, raw: string | undefined) =>
    loadConfig(z.object({ X: field }), raw === undefined ? {} : { X: raw }).X;

  it.each([
    ['envInt unset, no default', envInt(), undefined, undefined],
    ['envInt unset, default', envInt({ default: 7 }), undefined, 7],
    ['envInt zero allowed with min 0', envInt({ min: 0 }), '0', 0],
    ['envInt negative without bounds', envInt(), '-3', -3],
    ['envBool 1', envBool(false), '1', true],
    ['envBool OFF', envBool(true), 'OFF', false],
    ['envBool unset', envBool(true), undefined, true],
    ['envString unset', envString(), undefined, undefined],
    ['envRequired set', envRequired(), 'v', 'v'],
    ['envUrl default', envUrl({ protocols: ['redis'], default: 'redis://h:1' }), undefined, 'redis://h:1'],
  ] as const)('%s', (_label, field, raw, expected) => {
    expect(one(field as z.ZodType<unknown, string | undefined>, raw)).toEqual(expected);
  });

  it.each([
    ['envInt above max', envInt({ max: 10 }), '11', 'X: expected an integer <= 10, got "11"'],
    [
      'envInt beyond safe integers',
      envInt(),
      '99999999999999999999',
      'X: expected an integer, got "99999999999999999999"',
    ],
    ['envInt min 0', envInt({ min: 0 }), '-1', 'X: expected a non-negative integer, got "-1"'],
    ['envRequired unset', envRequired(), undefined, 'X: required, not set'],
    [
      'envRequired bad pattern',
      envRequired({ pattern: /^a/, patternHint: 'a leading a' }),
      'b',
      'X: expected a leading a, got "b"',
    ],
    [
      'envUrl without host',
      envUrl({ protocols: ['redis'], default: 'redis://h' }),
      'redis://',
      'X: expected a URL starting with redis://, got "redis://"',
    ],
  ] as const)('%s is refused', (_label, field, raw, message) => {
    const err = configError(() => one(field as z.ZodType<unknown, string | undefined>, raw));
    expect(err.message).toBe(`invalid configuration:\n  ${message}`);
  });
});
