import { describe, expect, it } from 'vitest';
import { decodeJson, encodeJson, GZIP_ABOVE_BYTES } from './kv-json.js';

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
