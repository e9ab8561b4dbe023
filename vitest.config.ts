import { defineConfig } from 'vitest/config';

export default defineConfig({
  ssr: { resolve: { conditions: ['source', 'module', 'node', 'development|production'] } },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'services/*/src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Integration and e2e suites share two real servers; running files in parallel on 2 cores
    // makes timing-sensitive tests (leases, timers) flaky without buying much.
    fileParallelism: true,
    maxWorkers: 2,
  },
});
