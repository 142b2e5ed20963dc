import { configDefaults, defineConfig } from 'vitest/config';

// Integration tests share one Redis and spawn processes: run files two at a time, never flaky on 2 cores.
// The chaos suite has a config of its own (vitest.chaos.config.ts, `npm run test:chaos`).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, 'test/chaos/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    fileParallelism: true,
  },
});
