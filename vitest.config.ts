import { configDefaults, defineConfig } from 'vitest/config';
import IntegrationFirst from './test/support/integration-first.js';
import { INTEGRATION, SHARED_PROCESS, TWO_AT_A_TIME } from './test/support/test-groups.js';

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two groups, one after the other (sequence.groupOrder). First the integration files that
    // mostly wait (fixed-length steps against a loopback server): four at a time on the 2-core
    // machines this runs on, where fewer leave a core idle (test/support/test-groups.ts). Then the
    // integration files that assert tight timings (test/support/test-groups.ts says which and why)
    // and the unit files: two at a time, one per core, as the whole suite ran before, so the
    // latencies they assert are not made noisy by a third file beside them; the pure unit files
    // among them (the 'shared' project) one after another in each worker process instead of each in
    // a fresh one.
    fileParallelism: true,
    maxWorkers: 2,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: {
          name: 'waiting',
          include: [INTEGRATION],
          exclude: [...configDefaults.exclude, ...TWO_AT_A_TIME],
          maxWorkers: 4,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'paced',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, INTEGRATION, ...SHARED_PROCESS],
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      {
        // Pure unit tests, one file after another in each worker process rather than each in a
        // fresh one (test/support/test-groups.ts says which and what they must keep to).
        extends: true,
        test: {
          name: 'shared',
          include: SHARED_PROCESS,
          isolate: false,
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          name: 'paced-integration',
          include: [...TWO_AT_A_TIME],
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
    ],
    // Without recorded durations (a fresh clone) the long integration files start first and the
    // short unit files fill in at the end, so no long file runs alone while the other worker idles.
    sequence: { sequencer: IntegrationFirst },
    // Each test file its own temp dir; a file that leaves an rtcap-* entry there fails, named.
    globalSetup: ['test/support/tmp-global-setup.ts'],
    setupFiles: ['test/support/tmp-per-file.ts', 'test/support/file-cpu.ts'],
    // At the end of every run, the ten slowest test files and their times.
    reporters: ['default', './test/support/slowest-files.ts'],
  },
});
