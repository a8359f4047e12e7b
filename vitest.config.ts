import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Integration suites open thousands of sockets and start Postgres; on a 2-core
    // machine running them side by side makes the measurements they assert noisy.
    fileParallelism: true,
    maxWorkers: 2,
    pool: 'forks',
  },
});
