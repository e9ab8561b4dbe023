import { describe, expect, it } from 'vitest';
import { isUndecodable } from './errors.js';
import { decodeJson, encodeJson, GZIP_ABOVE_BYTES, MAX_DECODED_JSON_BYTES } from './kv-json.js';
import { gzipBomb } from './testing/index.js';

describe('encodeJson / decodeJson', () => {
  it('keeps small values plain JSON', () => {
    const b = encodeJson({ a: 1 });
    expect(new TextDecoder().decode(b)).toBe('{"a":1}');
    expect(decodeJson(b)).toEqual({ a: 1 });
  });
  it('gzips a value past the threshold, so the status of 10,000 rebalanced workloads fits in one 1 MiB message', () => {
    const observedWorkloads = Array.from({ length: 10_000 }, (_, i) => ({
      workload: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        name: `web-${String(i).padStart(5, '0')}`,
        namespace: 'default',
      },
      result: 'Successful',
    }));
    const status = { observedWorkloads, observedGeneration: 1, finishTime: '2026-01-01T00:00:00Z' };
    expect(JSON.stringify(status).length).toBeGreaterThan(1024 * 1024);
    const b = encodeJson(status);
    expect(b.length).toBeLessThan(GZIP_ABOVE_BYTES);
    expect([b[0], b[1]]).toEqual([0x1f, 0x8b]);
    expect(decodeJson(b)).toEqual(status);
  });
});

describe('decodeJson: what Flotilla did not write', () => {
  it('stops a gzip bomb at MAX_DECODED_JSON_BYTES with an error naming where it was read', async () => {
    const bomb = await gzipBomb({ prefix: '{"a":', padBytes: 2 * MAX_DECODED_JSON_BYTES, suffix: '1}' });
    expect(bomb.length).toBeLessThan(1024 * 1024); // it fits in one NATS message
    const err = catchError(() => decodeJson(bomb, 'objects Deployment.default.web'));
    expect(isUndecodable(err)).toBe(true);
    expect(err).toMatchObject({ source: 'objects Deployment.default.web', reason: 'too-large' });
    expect((err as Error).message).toMatch(
      new RegExp(
        `^cannot decode objects Deployment.default.web: gzipped \\d+ bytes expand past ${MAX_DECODED_JSON_BYTES} bytes`,
      ),
    );
  });
  it('decodes a gzipped value just under the bound', async () => {
    const value = await gzipBomb({ prefix: '{"a":', padBytes: MAX_DECODED_JSON_BYTES - 16, suffix: '1}' });
    expect(decodeJson(value)).toEqual({ a: 1 });
  });
  it('names a broken gzip stream and text that is not JSON', () => {
    expect(catchError(() => decodeJson(new Uint8Array([0x1f, 0x8b, 1, 2, 3]), 'status Cluster._.m1'))).toMatchObject({
      name: 'UndecodableValueError',
      source: 'status Cluster._.m1',
      reason: 'bad-gzip',
    });
    expect(catchError(() => decodeJson(new TextEncoder().encode('{"a":'), 'status Cluster._.m1'))).toMatchObject({
      reason: 'bad-json',
      message: expect.stringMatching(/^cannot decode status Cluster._.m1: not JSON: /),
    });
  });
});

function catchError(f: () => unknown): unknown {
  try {
    f();
  } catch (err) {
    return err;
  }
  throw new Error('expected an error');
}
