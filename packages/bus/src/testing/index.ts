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
