import { defineConfig } from 'vitest/config';

export default defineConfig({
  ssr: { resolve: { conditions: ['source', 'module', 'node', 'development|production'] } },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'services/*/src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two files at a time keeps the suite well inside CI's time budget. Sharing the NATS and Redis servers is safe
    // because every test file works under its own random prefix (streams, buckets, keys), so no file sees another's
    // state; at most two workers on a 2-core runner keeps timer-driven tests (leases, schedules) from starving.
    fileParallelism: true,
    maxWorkers: 2,
  },
});
