import { defineConfig } from 'vitest/config';

// Integration tests share one Redis and spawn processes: run files two at a time, never flaky on 2 cores.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    fileParallelism: true,
  },
});
