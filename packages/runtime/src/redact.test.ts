import { describe, expect, it } from 'vitest';
import { displayValue, isSecretName, redactConfig, redactUrl } from './redact.js';

describe('redactUrl', () => {
  it.each([
    ['nats://127.0.0.1:4222', 'nats://127.0.0.1:4222'],
    ['nats://alice:s3cret@nats:4222', 'nats://***@nats:4222'],
    ['nats://T0KEN@nats:4222', 'nats://***@nats:4222'],
    ['redis://:hunter2@redis:6379/0', 'redis://***@redis:6379/0'],
    ['rediss://default:pw@redis.example', 'rediss://***@redis.example'],
    ['redis://:p@ss@redis:6379', 'redis://***@redis:6379'],
    ['redis://:pa/ss@redis:6379', 'redis://***@redis:6379'],
    ['alice:pw@host:6379', '***@host:6379'],
    ['REDIS://USER:PW@HOST', 'REDIS://***@HOST'],
    ['not a url', 'not a url'],
  ])('%s -> %s', (input, expected) => {
    expect(redactUrl(input)).toBe(expected);
  });
});

describe('redactConfig', () => {
  it('hides secrets and URL credentials, keeps the rest', () => {
    const safe = redactConfig({
      NATS_URL: 'nats://alice:s3cret@nats:4222',
      NATS_PASSWORD: 'pw1',
      NATS_TOKEN: 'tok1',
      REDIS_URL: 'redis://:hunter2@redis:6379',
      REDIS_PASSWORD: 'pw2',
      NATS_USER: 'alice',
      HTTP_PORT: 0,
      UNSET_TOKEN: undefined,
    });
    expect(safe).toEqual({
      NATS_URL: 'nats://***@nats:4222',
      NATS_PASSWORD: '***',
      NATS_TOKEN: '***',
      REDIS_URL: 'redis://***@redis:6379',
      REDIS_PASSWORD: '***',
      NATS_USER: 'alice',
      HTTP_PORT: 0,
      UNSET_TOKEN: undefined,
    });
    expect(JSON.stringify(safe)).not.toMatch(/s3cret|pw1|pw2|tok1|hunter2/);
  });

  it.each([
    ['NATS_PASSWORD', true],
    ['REDIS_PASSWORD', true],
    ['NATS_TOKEN', true],
    ['WEBHOOK_SECRET', true],
    ['CLOUD_API_KEY', true],
    ['NATS_USER', false],
    ['HTTP_PORT', false],
  ])('isSecretName(%s) = %s', (name, secret) => {
    expect(isSecretName(name)).toBe(secret);
  });

  it('displayValue hides secrets and leaves plain values', () => {
    expect(displayValue('REDIS_PASSWORD', 'x')).toBe('***');
    expect(displayValue('REDIS_URL', 'redis://:x@h')).toBe('redis://***@h');
    expect(displayValue('HTTP_PORT', 'abc')).toBe('abc');
    expect(displayValue('HTTP_PORT', undefined)).toBeUndefined();
  });
});
