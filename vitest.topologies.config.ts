import { defineConfig } from 'vitest/config';

// Topology tests start their own redis-server processes (Sentinel, Cluster) on free ports; one file
// at a time keeps a 2-core machine from timing out failovers.
export default defineConfig({
  test: {
    include: ['test/topologies/**/*.topology.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
  },
});
