import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BucketRevisions } from './bucket-revisions.js';
import type { Bus } from './connect.js';
import { connectBus } from './connect.js';
import { lastRevisionOf } from './kv-json.js';
import { testBus } from './testing/index.js';
import { NATS_URL } from '@flotilla/testkit';

// Two connections on one bucket, as two gateway replicas: `other` writes, `revisions` (watching through `bus`) must
// count what `other` wrote a moment before each question, as the server's own `last_by_subj` over the prefix does.
let bus: Bus & { dispose(): Promise<void> };
let other: Bus;
let revisions: BucketRevisions;
const CATCH_UP_MS = 5000;
beforeAll(async () => {
  bus = await testBus('bucket-revisions');
  other = await connectBus({ url: NATS_URL, prefix: bus.names.prefix, name: 'other-replica' });
  await other.objects.put('FederatedHPA.ns-a.one', '{}');
  await other.objects.put('FederatedHPA.ns-b.two', '{}');
  await other.objects.put('Deployment.ns-a.web', '{}');
  revisions = new BucketRevisions({ bus, bucket: bus.names.objectsBucket });
  await revisions.start();
});
afterAll(async () => {
  revisions?.stop();
  await other?.close();
  await bus?.dispose();
});

const server = (prefix: string) => lastRevisionOf(bus.jsm, bus.names.objectsBucket, `${prefix}>`);
const PREFIXES = [
  'FederatedHPA.',
  'FederatedHPA.ns-a.',
  'FederatedHPA.ns-b.',
  'Deployment.ns-a.',
  'CronFederatedHPA.ns-a.',
];

describe('BucketRevisions', () => {
  it('answers what the server answers for every prefix, for what was there before the watch began', async () => {
    for (const prefix of PREFIXES) expect(await revisions.newestUnder(prefix, CATCH_UP_MS)).toBe(await server(prefix));
    expect(await revisions.newestUnder('CronFederatedHPA.ns-a.', CATCH_UP_MS)).toBe(0);
  });

  it("counts another connection's write made just before each question, updates and deletes included", async () => {
    for (let i = 0; i < 20; i++) {
      const key = i % 2 === 0 ? `FederatedHPA.ns-a.n${i}` : 'FederatedHPA.ns-b.two';
      const prefix = key.slice(0, key.lastIndexOf('.') + 1);
      if (i % 5 === 4) await other.objects.delete(key);
      else expect(await other.objects.put(key, `{"i":${i}}`)).toBe(await server(prefix));
      expect(await revisions.newestUnder(prefix, CATCH_UP_MS)).toBe(await server(prefix));
      expect(await revisions.newestUnder('FederatedHPA.', CATCH_UP_MS)).toBe(await server('FederatedHPA.'));
    }
    // A write to another kind moves neither.
    const before = await revisions.newestUnder('FederatedHPA.', CATCH_UP_MS);
    await other.objects.put('ResourceBinding.ns-a.web', '{}');
    expect(await revisions.newestUnder('FederatedHPA.', CATCH_UP_MS)).toBe(before);
  });

  it('answers many concurrent questions through few requests, each counting the writes made before it', async () => {
    const asked = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const written = await other.objects.put(`FederatedHPA.ns-c.c${i}`, '{}');
        return { written, answer: await revisions.newestUnder('FederatedHPA.ns-c.', CATCH_UP_MS) };
      }),
    );
    for (const { written, answer } of asked) expect(answer).toBeGreaterThanOrEqual(written);
  });

  it('answers undefined once stopped, so that the caller reads the bucket itself', async () => {
    const stopped = new BucketRevisions({ bus, bucket: bus.names.objectsBucket });
    await stopped.start();
    expect(await stopped.newestUnder('FederatedHPA.', CATCH_UP_MS)).toBe(await server('FederatedHPA.'));
    stopped.stop();
    expect(await stopped.newestUnder('FederatedHPA.', CATCH_UP_MS)).toBeUndefined();
  });

  it('starts on an empty bucket and counts its first write', async () => {
    const empty = await testBus('bucket-revisions-empty');
    const watch = new BucketRevisions({ bus: empty, bucket: empty.names.objectsBucket });
    try {
      await watch.start();
      expect(await watch.newestUnder('Deployment.', CATCH_UP_MS)).toBe(0);
      const written = await empty.objects.put('Deployment.ns.web', '{}');
      expect(await watch.newestUnder('Deployment.ns.', CATCH_UP_MS)).toBe(written);
    } finally {
      watch.stop();
      await empty.dispose();
    }
  });

  it('refuses a retry delay that is not a positive number', () => {
    expect(() => new BucketRevisions({ bus, bucket: 'b', retryDelayMs: 0 })).toThrow(/retryDelayMs/);
  });
});
