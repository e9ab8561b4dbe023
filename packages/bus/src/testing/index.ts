import { createGzip } from 'node:zlib';
import { NATS_URL, uniquePrefix } from '@flotilla/testkit';
import { connectBus, destroyBus, type Bus } from '../index.js';

/** A bus on a fresh prefix; `dispose` removes its streams and buckets. */
export async function testBus(label?: string): Promise<Bus & { dispose(): Promise<void> }> {
  const bus = await connectBus({ url: NATS_URL, prefix: uniquePrefix(label), name: 'test' });
  return Object.assign(bus, {
    async dispose() {
      await destroyBus(bus);
      await bus.close();
    },
  });
}

/**
 * A gzip bomb, as a hostile writer would store it: gzip of `prefix`, `padBytes` spaces and `suffix`, made as a
 * stream so the test never holds the expanded text. With JSON around the padding it decodes (without a bound) to
 * valid JSON of that size, so only the bound tells it apart from a value Flotilla wrote.
 */
export async function gzipBomb(o: { prefix: string; padBytes: number; suffix: string }): Promise<Uint8Array> {
  const gzip = createGzip({ level: 9 });
  const out: Buffer[] = [];
  gzip.on('data', (b: Buffer) => out.push(b));
  const done = new Promise<void>((resolve, reject) => {
    gzip.on('end', resolve);
    gzip.on('error', reject);
  });
  const write = (b: Buffer) =>
    new Promise<void>((resolve, reject) => gzip.write(b, (err) => (err ? reject(err) : resolve())));
  await write(Buffer.from(o.prefix));
  const chunk = Buffer.alloc(1024 * 1024, 0x20);
  for (let left = o.padBytes; left > 0; left -= chunk.length)
    await write(chunk.subarray(0, Math.min(left, chunk.length)));
  await write(Buffer.from(o.suffix));
  gzip.end();
  await done;
  return Buffer.concat(out);
}
