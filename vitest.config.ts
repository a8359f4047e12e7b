import { defineConfig } from 'vitest/config';
import IntegrationFirst from './test/support/integration-first.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two test files at a time, one per core of the 2-core machines this runs on: integration
    // suites open thousands of sockets and start Postgres, and more than two side by side
    // would make the latencies they assert noisy; fewer would double the suite's time.
    fileParallelism: true,
    maxWorkers: 2,
    pool: 'forks',
    // Without recorded durations (a fresh clone) the long integration files start first and the
    // short unit files fill in at the end, so no long file runs alone while the other worker idles.
    sequence: { sequencer: IntegrationFirst },
    // Each test file its own temp dir; a file that leaves an rtcap-* entry there fails, named.
    globalSetup: ['test/support/tmp-global-setup.ts'],
    setupFiles: ['test/support/tmp-per-file.ts'],
    // At the end of every run, the ten slowest test files and their times.
    reporters: ['default', './test/support/slowest-files.ts'],
  },
});
