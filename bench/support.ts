import { connectBus, destroyBus, type Bus } from '@flotilla/bus';
import { NATS_URL, uniquePrefix } from '@flotilla/testkit';

/** Percentile of a sorted sample (nearest rank). */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export function fmt(n: number, digits = 1): string {
  return n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(digits);
}

export function rssMb(): number {
  return process.memoryUsage().rss / 2 ** 20;
}

/** A bus on a fresh prefix, destroyed after `fn`. */
export async function withBenchBus<T>(label: string, fn: (bus: Bus) => Promise<T>): Promise<T> {
  const bus = await connectBus({ url: NATS_URL, prefix: uniquePrefix(label), name: `bench-${label}` });
  try {
    return await fn(bus);
  } finally {
    await destroyBus(bus);
    await bus.close();
  }
}

export function report(title: string, rows: Array<[string, string]>): void {
  console.log(`\n${title}`);
  const w = Math.max(...rows.map(([k]) => k.length));
  for (const [k, v] of rows) console.log(`  ${k.padEnd(w)}  ${v}`);
}
