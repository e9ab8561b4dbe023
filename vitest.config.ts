import { defineConfig } from 'vitest/config';
import {
  TIME_SCALE_ENV,
  measureCpuShare,
  parseTimeScale,
  timeScaleForCpuShare,
} from './packages/testkit/src/time-scale.js';

// Every machine-dependent time budget (each test's timeout, each wait for a condition) is multiplied by one factor:
// FLOTILLA_TEST_TIME_SCALE when set, else measured here once from the share of a core a busy loop gets, and handed to
// the workers in that variable (packages/testkit/src/time-scale.ts).
const given = parseTimeScale(process.env[TIME_SCALE_ENV]);
const timeScale = given ?? timeScaleForCpuShare(measureCpuShare());
process.env[TIME_SCALE_ENV] = String(timeScale);
if (!process.env.VITEST_WORKER_ID)
  console.log(`[vitest] time scale ${timeScale} (${given === undefined ? 'measured' : TIME_SCALE_ENV})`);

export default defineConfig({
  ssr: { resolve: { conditions: ['source', 'module', 'node', 'development|production'] } },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'services/*/src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000 * timeScale,
    hookTimeout: 30_000 * timeScale,
    // Two files at a time keeps the suite well inside CI's time budget. Sharing the NATS and Redis servers is safe
    // because every test file works under its own random prefix (streams, buckets, keys), so no file sees another's
    // state; at most two workers on a 2-core runner keeps timer-driven tests (leases, schedules) from starving.
    fileParallelism: true,
    maxWorkers: 2,
  },
});
