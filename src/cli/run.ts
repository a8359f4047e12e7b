/**
 * `rtcap run PROFILE`: one benchmark run of a profile. Exit 99 when a profile threshold fails.
 */
import type { Argv } from 'yargs';
import { runBenchmark } from '../run/runner.js';
import { parseSegment, type Segment } from '../generator/segment.js';
import { EXIT } from '../util/exit-codes.js';
import { closeDashboard, dashboardOrExit, withDashboard } from './dashboard-flag.js';
import { checked, isoTime, type Rule } from './flags.js';
import { benchmarkOptions, runContextFrom } from './run-flags.js';
import {
  checkOutDir,
  refuseUnsharedTarget,
  liveMetricsOrExit,
  changesTableOrExit,
  loadProfileOrExit,
} from './shared.js';
import { finishRun } from './finish-run.js';
import { interruptible } from './interrupt.js';
import { refuseLink } from './refuse-link.js';
import { profilePartOf } from '../run/run-options.js';

/** --segment i/N. */
const segmentRule: Rule<Segment> = (raw) => {
  const seg = parseSegment(raw);
  return typeof seg === 'string'
    ? { problem: 'expected i/N with 0 ≤ i < N, e.g. 0/3 (segment i of N, counted from 0)' }
    : seg;
};

export function runCommand(y: Argv): Argv {
  return y.command(
    'run <profile>',
    'run a benchmark profile (without target.url: against the built-in server)',
    (c) =>
      benchmarkOptions(c, 'load.steps.0.connections=200')
        .option(
          'segment',
          checked('segment', segmentRule, {
            describe:
              "run segment i of N of the plan (0 … N−1; e.g. a Kubernetes Indexed Job's JOB_COMPLETION_INDEX) and write shard.json for rtcap merge",
          }),
        )
        .option(
          'start-at',
          checked('start-at', isoTime, {
            describe:
              'with --segment: start the first step at this wall-clock time (ISO 8601), the same for every segment',
          }),
        )
        .option('run-name', {
          type: 'string',
          describe:
            'with --segment: the id every segment of the run shares (default: the --start-at time)',
        }),
    async (args) => {
      const loaded = await loadProfileOrExit(args.profile as string, args.set as string[]);
      if (!loaded || !checkOutDir(args.out, args.force as boolean, loaded.path)) return;
      if (refuseLink(loaded.profile)) return;
      if (!(await changesTableOrExit(loaded, args.url as string | undefined))) return;
      const segment = segmentOrExit(args.segment, args['start-at'], args['run-name']);
      // One segment of one (`--segment 0/1`) shares nothing, so it may start its own server.
      const split = segment && segment.count > 1;
      if (
        segment === null ||
        (split && !refuseUnsharedTarget(loaded, args.url, 'rtcap run --segment'))
      )
        return;
      const live = await liveMetricsOrExit(args);
      if (!live) return;
      const dash = await dashboardOrExit(args, 'run');
      if (dash === null) return live.close();
      const { signal, dispose, exitCode } = interruptible();
      try {
        const outcome = await runBenchmark({
          ...profilePartOf(loaded),
          outDir: args.out,
          ...withDashboard(runContextFrom(args, signal, live.observer), dash),
          ...(segment ? { segment } : {}),
        });
        process.exitCode = exitCode(finishRun(outcome));
        dash?.runFinished(outcome.dir, outcome.result, process.exitCode);
      } finally {
        dispose();
        await live.close();
        await closeDashboard(dash, args);
      }
    },
  );
}

/** undefined: not segmented; null: refused (printed, exit 2). */
function segmentOrExit(
  seg: Segment | undefined,
  startAt: string | undefined,
  runName: string | undefined,
): { index: number; count: number; run: string; startAtMs: number | null } | undefined | null {
  const refuse = (why: string) => {
    process.stderr.write(`${why}\n`);
    process.exitCode = EXIT.usage;
    return null;
  };
  if (seg === undefined)
    return startAt === undefined && runName === undefined
      ? undefined
      : refuse('--start-at and --run-name go with --segment i/N');
  const startAtMs = startAt === undefined ? null : Date.parse(startAt);
  const run = runName ?? (startAtMs !== null ? new Date(startAtMs).toISOString() : null);
  if (!run)
    return refuse(
      '--segment needs --start-at or --run-name: the id every segment of the run shares, so rtcap merge can tell runs apart',
    );
  return { ...seg, run, startAtMs };
}
