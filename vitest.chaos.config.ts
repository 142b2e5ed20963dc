import { defineConfig } from 'vitest/config';

// The chaos suite (`npm run test:chaos`): CHAOS_RUNS seeded runs of worker processes from dist/,
// SIGKILLed at random moments. One file at a time: each run's timings are its own. Each test
// sets its own timeout from CHAOS_RUNS.
export default defineConfig({
  test: {
    include: ['test/chaos/**/*.test.ts'],
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
  },
});
