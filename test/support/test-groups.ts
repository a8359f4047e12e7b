/**
 * Which test files run four at a time and which two at a time (vitest.config.ts).
 *
 * Most integration files spend their time waiting: a benchmark's fixed-length steps against a
 * loopback server at a few messages a second, a sweep's drains and recovery probes, a server's
 * start, at 0.29 of a core each on average. Four of them side by side use a 2-core machine as three
 * did before rtcap's processes were bundled and started on two thirds of the CPU (four then made
 * more of them read generator-bound on a loaded machine): the whole suite 667 s against 750 s at
 * three, and five 658 s for 65 CPU s more (docs/PERFORMANCE.md "Test suite time"). The files below
 * assert figures that another busy file beside them would move: a latency or a join time against a
 * tight bound (an SLO of 100–500 ms, a p50 within a few tens of ms of an injected delay), a
 * generator's offered share with many processes, a network namespace's timing. They run two at a
 * time, with the unit files, after the others, as the whole suite did before: what they assert has
 * the machine as it had then.
 *
 * A new integration file that asserts such a figure belongs in this list.
 */

/** Integration files that assert timing tight enough to need the machine as two files leave it. */
export const TWO_AT_A_TIME = [
  // SLO 400 ms over a queue served at exactly R: p95 reached 350 ms at load 15.
  'test/integration/known-answer-search.test.ts',
  // SLO 100 ms for the steps below capacity.
  'test/integration/known-answer-backlog.test.ts',
  // SLO 200 ms, latency p50 below 80 ms with 40 ms injected.
  'test/integration/known-answer.test.ts',
  // p95 below 500 ms per kind of traffic.
  'test/integration/known-answer-mixed.test.ts',
  // join p50 below 400 ms under the server's join limit.
  'test/integration/known-answer-joins.test.ts',
  // the drain's backlog within 1.5 s of the injected delay.
  'test/integration/known-answer-drain.test.ts',
  // p50 within the link's delay, jitter and a small slack.
  'test/integration/link-known-answer.test.ts',
  // p99 below 700 ms and clock offsets within 150 ms across network namespaces.
  'test/integration/netns-segments.test.ts',
  // 16 generator processes: offered >= 99 %, join p95 below 1 s.
  'test/integration/many-generators.test.ts',
  // every quota PASS, which needs each rate offered at >= 95 % of its schedule (149 of 160
  // events/s read inconclusive beside two other files).
  'test/integration/quotas-cli.test.ts',
  // acks per whole steady second within 1 of the schedule's (200/s): 4 off, once, beside two
  // other files, where acks a few ms late crossed a second's edge.
  'test/integration/scenario-write-only.test.ts',
] as const;

/** The integration files, which run four at a time unless listed above. */
export const INTEGRATION = 'test/integration/**/*.test.ts';

/**
 * Unit test folders whose files run one after another in a shared worker process (vitest's
 * `isolate: false`) instead of each in a fresh one. Their tests are pure logic with no process,
 * server or timing of their own, so what a fresh process costs (starting Node, transforming and
 * importing rtcap's modules again) was nearly all of their time: 188 files took 84 s and 152 CPU s
 * isolated, 22 s and 34 CPU s shared (docs/PERFORMANCE.md "Test suite time"). A file here must
 * leave the process as it found it: put back the environment variables it sets one by one (never
 * assign a copy to process.env: the plain object left is no longer the system's environment,
 * which os.tmpdir() and child processes read), restore real timers and mocks, close what it opens.
 */
export const SHARED_PROCESS = [
  'artefacts',
  'builtin',
  'campaign',
  'capacity',
  'client',
  'dashboard',
  'docs',
  'figures',
  'generator',
  'k8s',
  'link',
  'load',
  'model',
  'monitor',
  'plan',
  'profile',
  'protocol',
  'recovery',
  'redact',
  'report',
  'scenarios',
  'shard',
  'sweep',
  'util',
  'validate',
].map((dir) => `test/${dir}/**/*.test.ts`);
