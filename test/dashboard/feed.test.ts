/**
 * The dashboard's live state against known seconds and steps: each second is the timeline's
 * point unchanged plus what the page adds, what is kept is bounded, a campaign entry's time
 * runs while it runs, and a new run (a campaign's next entry) starts afresh.
 */
import { describe, expect, it } from 'vitest';
import type { SecondStats } from '../../src/generator/ipc.js';
import type { RunResult, StepResult } from '../../src/result/result.js';
import type { TimeseriesPoint } from '../../src/result/timeseries-point.js';
import type { CampaignState } from '../../src/campaign/state.js';
import type { SweepRecord, SweepResult } from '../../src/sweep/record.js';
import type { SecondRecord } from '../../src/figures/timeline.js';
import { DashboardFeed, MAX_LOG_LINES, MAX_SECONDS } from '../../src/dashboard/feed.js';
import { secondLimitsOf } from '../../src/model/second-limit.js';
import { loadRun } from '../fixtures/index.js';

function worker(rssMb: number): SecondStats {
  return {
    type: 'second',
    worker: 0,
    t: 0,
    open: 0,
    joined: 0,
    joins: 0,
    sent: 0,
    acked: 0,
    acksPending: 0,
    received: 0,
    bytes: 0,
    errors: 0,
    disconnects: 0,
    histogram: '',
    health: { cpuPct: 10, lagP99Ms: 5, lagMaxMs: 6, rssMb },
    errorReasons: {},
  };
}

function second(t: number, workers: SecondStats[] = [worker(40), worker(2.25)]): SecondRecord {
  const point: TimeseriesPoint = {
    t,
    step: 1,
    phase: 'steady',
    connections_open: 7,
    joined: 6,
    joins_per_s: 1,
    sent_per_s: 10,
    acked_per_s: 0,
    acks_pending: 0,
    delivered_per_s: 60,
    sent_per_s_60s: 9.5,
    delivered_per_s_60s: 57,
    delivery_p50_ms: 1.5,
    delivery_p95_ms: 4,
    delivery_p99_ms: 9,
    errors: 0,
    disconnects: 0,
    server_cpu_pct: 12.5,
    server_rss_mb: 80,
    generator_cpu_pct: 30,
    generator_lag_p99_ms: 4,
  };
  return { point, workers, server: null };
}

const run = (): RunResult => loadRun('run-a');

describe('DashboardFeed', () => {
  it('sends each second as the timeline point with the target, the phase clock and the generator RSS summed', () => {
    const events: Array<[string, unknown]> = [];
    const feed = new DashboardFeed('run', (e, d) => events.push([e, d]));
    const rec = second(100);
    feed.second(rec, 8, { elapsedS: 3.04, lengthS: 10, steps: 4 });
    const sent = events.find(([e]) => e === 'second')![1] as Record<string, unknown>;
    expect(sent).toEqual({
      ...rec.point,
      target_connections: 8,
      generator_rss_mb: 42.3,
      phase_elapsed_s: 3,
      phase_length_s: 10,
      steps_planned: 4,
    });
    expect(feed.snapshot().seconds).toEqual([sent]);
    // No process reported: the memory is missing, never 0.
    feed.second(second(101, []), 8);
    expect(feed.snapshot().seconds[1].generator_rss_mb).toBeNull();
  });

  it("carries the limit a second met in the progress line's words, and none when it met none", () => {
    const feed = new DashboardFeed('run');
    const atLimit = second(100);
    atLimit.point = {
      ...atLimit.point,
      disconnects: 2,
      server_open_files: { open: 20_000, limit: 20_000 },
    };
    feed.second(atLimit, 8);
    feed.second(second(101), 8);
    const [a, b] = feed.snapshot().seconds;
    expect(a.limit).toBe('environment limit: server process open-file limit 20,000');
    expect(a.server_open_files).toEqual({ open: 20_000, limit: 20_000 });
    expect(b).not.toHaveProperty('limit');
  });

  it("names a generator process out of descriptors with the run's own open-file limit", () => {
    const feed = new DashboardFeed('run');
    const r = run();
    r.generator.limits = {
      open_files_per_process: 1024,
      ephemeral_ports: 28_232,
      port_range: null,
    };
    r.generator.source_addresses = ['127.0.0.1'];
    feed.start(r);
    const out = second(100);
    out.point = { ...out.point, errors: 5, generator_os_errors: { EMFILE: 5 } };
    feed.second(out, 8);
    expect(feed.snapshot().seconds[0].limit).toBe(
      "environment limit: rtcap's generator process open-file limit 1,024",
    );
  });

  it("names the server's memory cgroup in the server tile with the limits the runner hands the progress line", () => {
    const feed = new DashboardFeed('run');
    const limits = secondLimitsOf(
      { profile: {}, target: { builtin: true, instance: { memory_mb: 4096 } } },
      { memory_mb: 512, memory_source: 'cgroup' },
    );
    const full = second(100);
    full.point = { ...full.point, server_rss_mb: 500 };
    feed.second(full, 8, undefined, limits);
    feed.second(second(101), 8, undefined, limits);
    const [a, b] = feed.snapshot().seconds;
    expect(a.limit).toBe('environment limit: server process memory cgroup limit 512 MB');
    expect(b).not.toHaveProperty('limit');
  });

  it('keeps the last MAX_SECONDS seconds and MAX_LOG_LINES log lines, no more', () => {
    const feed = new DashboardFeed('run');
    for (let t = 0; t < MAX_SECONDS + 25; t++) feed.second(second(t), 1);
    for (let i = 0; i < MAX_LOG_LINES + 3; i++) feed.log(`line ${i}`);
    const s = feed.snapshot();
    expect(s.seconds.length).toBe(MAX_SECONDS);
    expect(s.seconds[0].t).toBe(25);
    expect(s.log.length).toBe(MAX_LOG_LINES);
    expect(s.log[0]).toBe('line 3');
  });

  it('lists a finished step with its verdict, reasons and first-receipt figures, as the result has them', () => {
    const feed = new DashboardFeed('run');
    const step: StepResult = run().steps[0];
    feed.step(step);
    const [s] = feed.snapshot().steps;
    expect(s).toMatchObject({
      index: step.index,
      verdict: step.verdict,
      verdict_reasons: step.verdict_reasons,
      delivery_rate: step.delivery_rate,
    });
    expect(s.latency_ms).toEqual({
      p50: step.latency_ms.p50,
      p95: step.latency_ms.p95,
      p99: step.latency_ms.p99,
    });
    expect(s.rates.delivered_per_s).toBe(step.rates.delivered_per_s);
    expect(s.connections).toEqual({
      target: step.connections.target,
      joined: step.connections.joined,
      failed: step.connections.failed,
      disconnected: step.connections.disconnected,
    });
  });

  it('starts a new run afresh and follows the target once it is known', () => {
    const events: string[] = [];
    const feed = new DashboardFeed('campaign', (e) => events.push(e));
    const r = run();
    r.target.url = '';
    feed.start(r);
    feed.second(second(1), 1);
    feed.step(r.steps[0]);
    r.target.url = 'ws://127.0.0.1:4000/socket/websocket';
    feed.start({ ...r, run_id: 'next' });
    expect(feed.snapshot()).toMatchObject({ run: { run_id: 'next' }, seconds: [], steps: [] });
    feed.second(second(2), 1);
    expect(feed.snapshot().run?.target).toBe('ws://127.0.0.1:4000/socket/websocket');
  });

  it("counts a running campaign entry's time from when it was first seen running until its run ended", () => {
    let now = 1_000_000;
    const feed = new DashboardFeed(
      'campaign',
      () => undefined,
      () => now,
    );
    const state = {
      name: 'c',
      status: 'running',
      entries: [
        {
          index: 1,
          name: 'a',
          profile: '/p.yaml',
          sweep: false,
          dir: '01-a',
          status: 'completed',
          exit_code: 0,
          wall_s: 30,
          attempts: 1,
        },
        {
          index: 2,
          name: 'b',
          profile: '/p.yaml',
          sweep: true,
          dir: '02-b',
          status: 'running',
          exit_code: null,
          wall_s: 0,
          attempts: 1,
        },
      ],
    } as unknown as CampaignState;
    feed.campaign(state);
    now += 42_000;
    feed.entryDone(2, {
      dir: '02-b',
      links: [{ name: 'report.html', href: 'files/1/report.html' }],
    });
    const view = feed.snapshot().campaign!;
    expect(view.entries.map((e) => [e.status, e.wall_s])).toEqual([
      ['completed', 30],
      ['running', 42],
    ]);
    expect(view.entries[1].files?.links).toEqual([
      { name: 'report.html', href: 'files/1/report.html' },
    ]);
    // Its run is over: its time stands while the campaign moves on, until campaign.json's.
    now += 9_000;
    expect(feed.snapshot().campaign!.entries[1].wall_s).toBe(42);
    state.entries[1].status = 'completed';
    state.entries[1].wall_s = 43;
    expect(feed.snapshot().campaign!.entries[1].wall_s).toBe(43);
  });

  it('links the files of an entry finished before a resume, its time as campaign.json has it', () => {
    const feed = new DashboardFeed(
      'campaign',
      () => undefined,
      () => 5_000_000,
    );
    const entry = (index: number, status: string, wall_s: number) => ({
      index,
      name: `e${index}`,
      profile: '/p.yaml',
      sweep: false,
      dir: `0${index}-e${index}`,
      status,
      exit_code: status === 'completed' ? 0 : null,
      wall_s,
      attempts: status === 'completed' ? 1 : 0,
    });
    const state = {
      name: 'c',
      status: 'running',
      entries: [entry(1, 'completed', 30), entry(2, 'pending', 0)],
    } as unknown as CampaignState;
    feed.campaign(state);
    const files = { dir: '01-e1', links: [{ name: 'report.html', href: 'files/1/report.html' }] };
    feed.entryDone(1, files);
    expect(
      feed.snapshot().campaign!.entries.map((e) => [e.status, e.wall_s, e.files?.dir ?? null]),
    ).toEqual([
      ['completed', 30, '01-e1'],
      ['pending', 0, null],
    ]);
  });

  it("shows a sweep's knee as soon as a step past it has landed (the record has it only at the end)", () => {
    const events: Array<[string, unknown]> = [];
    const feed = new DashboardFeed('sweep', (e, d) => events.push([e, d]));
    const r = run(); // send_rate 5, 10, 20 stable, 30 degraded, 40 generator-bound
    const record: SweepRecord = {
      driver: 'send_rate',
      mode: 'search',
      points: r.steps.map((st) => ({
        step: st.index,
        value: st.params.send_rate,
        phase: 'grow' as const,
      })),
      stop_reason: null,
      knee: null,
      resumed_at: [],
    };
    const after = (n: number): SweepResult => ({ ...r, steps: r.steps.slice(0, n), sweep: record });
    feed.result(after(3));
    expect(feed.snapshot().sweep?.knee).toMatchObject({
      safe: { step: 2, value: 20 },
      first_unsafe: null,
    });
    feed.result(after(4));
    expect(feed.snapshot().sweep?.knee).toMatchObject({
      safe: { step: 2, value: 20 },
      first_unsafe: { step: 3, value: 30 },
    });
    expect(record.knee).toBeNull(); // the runner's record is not touched
    expect(events.map(([e]) => e)).toEqual(['sweep', 'sweep']);
    feed.result(run()); // not a sweep: nothing
    expect(events.length).toBe(2);
  });
});
