/**
 * mulberry32, a small seeded generator. Crane's period detection shuffles with a generator seeded from the clock,
 * so the same history can give a different answer on a borderline signal; Flotilla seeds it so that a prediction
 * is reproducible (and what-if shows what the service computes).
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Go's `rand.Shuffle` order (Fisher-Yates from the end), in place. */
export function shuffleInPlace(values: Float64Array, random: () => number): void {
  for (let i = values.length - 1; i > 0; i--) {
    const j = (random() * (i + 1)) | 0;
    const t = values[i]!;
    values[i] = values[j]!;
    values[j] = t;
  }
}

/** A standard normal draw by Box-Muller (u redrawn while 0), for synthetic workloads in tests and benchmarks. */
export function gaussian(random: () => number): number {
  let u = random();
  while (u === 0) u = random();
  const v = random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}
