import { describe, expect, it } from 'vitest';
import { SCENARIOS } from '../../src/profile/schema/scenarios.js';
import { registeredScenarios, sectionFor } from '../../src/report/sections/index.js';
import { buildSummary, renderSummaryMarkdown } from '../../src/report/summary.js';
import { loadRun, makeRun, makeStep } from '../fixtures/index.js';

describe('renderSummaryMarkdown — seed 002 §1 from its own figures', () => {
  const md = renderSummaryMarkdown(loadRun('seed-002-s1.2-deliveries'));

  it('prints the §1.2 table with the seed columns and the fit the data gives', () => {
    expect(md).toContain('| deliveries/s | server CPU | latency (p50 / p95 / p99) | verdict |');
    expect(md).toContain('| 5,000/s | 18.0% | 12 ms / 25 ms / 40 ms | stable |');
    expect(md).toContain(
      '| 27,000/s | 70.0% | 25 ms / 60 ms / 90 ms | stable — near limit: CPU over 70% safe line |',
    );
    expect(md).toContain('| 45,800/s | 94.8% | 21.0 s / 52.0 s / 58.0 s | degraded |');
    expect(md).toContain('\nCPU ≈ 5.5 % + 2.41 pp × deliveries/s ÷ 1,000 (R² 0.99, 4 steps)\n');
  });

  it('prints the §7 row and §8 advice', () => {
    expect(md).toMatch(
      /\| 3 \| Public broadcast — deliveries\/s \| ≤ 26,700\/s \| server CPU safe line \(70%\) \| .*reaches 70% at 26,798\/s/,
    );
    expect(md).toContain('| Max events per second (max_events_per_second) | 26,000 |');
  });

  it('shows memory it did not have as "—", never 0, and says so in the notes', () => {
    expect(md).toContain('| 5,001 | — | 100% | stable |');
    expect(md).not.toMatch(/\| 0(\.0)?% \|/);
    expect(md).toContain('- All 6 steps: server memory not sampled (shown as "—").');
  });

  it("§1.1: memory table and the memory fit, 34 % + 2.4 pp, not the seed text's 35 % + 4 pp", () => {
    const s11 = renderSummaryMarkdown(loadRun('seed-002-s1.1-connections'));
    expect(s11).toContain('| connections | server memory | delivery | verdict |');
    expect(s11).toContain(
      '| 24,000 | 91.6% | 100% | stable — near limit: memory over 85% safe line |',
    );
    expect(s11).toContain('| 25,000 | 100.0% | 100% | broken |');
    expect(s11).toContain(
      'Memory ≈ 34.0 % + 2.40 pp × connections ÷ 1,000 (R² 1.00, 2 steps; two points fit any line exactly)',
    );
    expect(s11).toContain('rests on two steps');
    expect(s11).toContain('| server: memory exhausted (seed 002 §1.1 "内存耗尽") | 1 | 2 |');
  });
});

describe('header and notes', () => {
  it('states the target, instance, generator and SLO', () => {
    const h = new Map(buildSummary(loadRun('run-a')).header);
    expect(h.get('target')).toBe(
      'ws://127.0.0.1:4000/socket/websocket — built-in server; vsn 1.0.0, dialect supabase, topic realtime:bench',
    );
    expect(h.get('instance')).toBe(
      '1 vCPU / 2,048 MiB (basis of server CPU % and memory %); server on cpus 1',
    );
    expect(h.get('generator')).toContain('1 worker on cpus 0');
    expect(h.get('SLO')).toBe('p95 ≤ 200 ms, delivery ≥ 100%');
    expect(h.get('status')).toBe('completed');
  });

  it('an aborted run says so in the header and first in the notes', () => {
    const s = buildSummary(loadRun('run-b'));
    expect(new Map(s.header).get('status')).toBe(
      'aborted — server closed every socket (1006) during step 3',
    );
    expect(s.notes[0]).toBe(
      'The run was aborted: server closed every socket (1006) during step 3. Figures cover the steps that ran; none of them is a finished sweep.',
    );
    expect(s.notes).toContain(
      'Step 3 is incomplete (cut short): its figures cover only the part that ran; no fit uses it and it is never cited as capacity.',
    );
    expect(s.notes.some((n) => n.startsWith('Step 3 is broken'))).toBe(true);
  });

  it('a generator-bound step is never presented as capacity', () => {
    const s = buildSummary(loadRun('run-a'));
    const md = renderSummaryMarkdown(loadRun('run-a'));
    expect(md).toContain(
      '| 37,163/s | 66.0% | 90 ms / 700 ms / 1,500 ms | generator-bound — not server capacity |',
    );
    expect(
      s.notes.some((n) =>
        n.startsWith('Step 4 is generator-bound (offered 93.00% of the scheduled load'),
      ),
    ).toBe(true);
    expect(
      s.analysis.fits
        .find((f) => f.spec.id === 'cpu_vs_deliveries')!
        .fit!.points.map((p) => p.step),
    ).toEqual([0, 1, 2]);
    for (const row of s.analysis.capacity) expect(row.evidence_steps).not.toContain(4);
  });

  it('server not sampled: every resource figure is "—" and the note says why', () => {
    const run = makeRun('broadcast-public', [
      makeStep(0, { server: { cpu_pct: null, mem_pct: null, rss_mb: null } }),
    ]);
    run.target.server_sampling = null;
    const md = renderSummaryMarkdown(run);
    expect(md).toContain('| — / — / — |');
    expect(md).toContain('Server CPU and memory were not sampled');
  });

  it('verbatim error reasons keep their pipes without breaking the table', () => {
    const run = makeRun('broadcast-public', [
      makeStep(0, { verdict: 'broken', errors: { 'join: a | b': 2 } }),
    ]);
    expect(renderSummaryMarkdown(run)).toContain('| join: a \\| b | 2 | 0 |');
  });

  it('a single-step run has no capacity rows and says why', () => {
    expect(renderSummaryMarkdown(makeRun('broadcast-public', [makeStep(0)]))).toContain(
      'No dimension was measured',
    );
  });

  it('the built-in server without CPU pinning is a note', () => {
    const run = makeRun('broadcast-public', [makeStep(0)]);
    run.target.cpus = null;
    expect(buildSummary(run).notes.some((n) => n.includes('shared this machine'))).toBe(true);
  });
});

describe('scenario sections', () => {
  it('every profile scenario has a registered section', () => {
    expect(registeredScenarios().sort()).toEqual([...SCENARIOS].sort());
  });

  it('an unknown scenario still gets the common tables', () => {
    const md = renderSummaryMarkdown(makeRun('something-new', [makeStep(0)]));
    expect(md).toContain('## All steps');
    expect(sectionFor('something-new')).toBeUndefined();
  });

  it('§2.1 private: topology, sends, deliveries, p50 with p95 where it shows the trouble', () => {
    const md = renderSummaryMarkdown(loadRun('seed-002-s2.1-private'));
    expect(md).toContain(
      '| 0 · high-frequency steady | 500 rooms × 8, 5/s per room | 2,500/s | 17,200/s | 77 ms | 100% | stable |',
    );
    expect(md).toContain(
      '| 3 · mid-frequency overload | 2,000 rooms × 2, 5/s per room | 10,000/s | 8,100/s | 93 ms (p95 6,400 ms) | 82.00% (106,683 lost) | broken |',
    );
    expect(md).toContain('### 2.2 Connections');
  });

  it('§3 payload: "only 3/5 sent" and which side failed', () => {
    const md = renderSummaryMarkdown(loadRun('seed-002-s3-payload'));
    expect(md).toContain(
      '| 100 KB | only 3/5 sent; 100% | 5,222 ms | 114 MiB/s ≈ 956 Mbps | — | broken — the server could not send (sends not leaving) |',
    );
    expect(md).toContain('| 10 KB | 100% | — | — | — | stable |');
  });

  it('§4 join rate: success ratio, delivery, verbatim rejections, recovery, the predicted ceiling', () => {
    const md = renderSummaryMarkdown(loadRun('seed-002-s4-join-rate'));
    expect(md).toContain(
      '| 100/s | — | — | 15,998 / 16,000 (<0.1% rejected) | 100% | 2 × join: IncreaseConnectionPool: Please increase your connection pool size | — | 100/s | broken |',
    );
    expect(md).toContain('| 130/s | — | — | 100% | 0.00% (479,970 lost) | — | — | — | broken |');
    expect(md).toContain('| 200/s | — | — | 6,670 / 16,000 (58.3% rejected) |');
    expect(md).toContain(
      'Predicted ceiling: db_pool ÷ check time = 10 ÷ 80 ms ≈ 125/s; measured: highest stable 50/s, first broken 100/s.',
    );
  });

  it('§5 presence: the result column and the quota arithmetic', () => {
    const md = renderSummaryMarkdown(loadRun('seed-002-s5-presence'));
    expect(md).toContain(
      '| 8 | 16,000 connections in 2,000 topics, 10% updating/s | 12,800/s | 12,670/s, p50 85 ms, zero errors | stable |',
    );
    expect(md).toContain(
      'CPU 99.6%, memory 100.0%, snapshot 174 KB per member, 4,228 disconnected',
    );
    expect(md).toContain('### Allowed update rate per topic at a quota of 1,000/s');
    expect(md).toContain('| 200 | 5/s |');
    expect(md).toContain('| 10,000 | 0.1/s |');
  });

  it('§6 CDC: reconciliation, deliveries over rounds, poll peak', () => {
    const md = renderSummaryMarkdown(loadRun('seed-002-s6-postgres-changes'));
    expect(md).toContain(
      '| 16,000 | 100% | 4 × 16,000, missing 0 | 391 ms | 1,317 ms / 1,694 ms / 1,710 ms | stable |',
    );
    expect(md).toContain(
      '| 18,000 | 17,743 (257 short) | 4 × 18,000, missing 1,028 | 841 ms | — | broken |',
    );
  });

  it('write-only and mixed render from their extra fields', () => {
    const wo = makeRun('write-only', [
      makeStep(0, {
        params: { send_rate: 30_000 },
        rates: { sent_per_s: 28_600 },
        extra: { acked_per_s: 28_500, stop_reason: null },
      }),
    ]);
    expect(renderSummaryMarkdown(wo)).toContain(
      '| 30,000/s | 28,600/s | 28,500/s | 0 | 30.0% | stable | — |',
    );
    const mx = makeRun('mixed', [
      makeStep(0, {
        extra: {
          components: [
            {
              name: 'postgres-changes',
              latency_ms: { p50: 15_000, p95: 18_000, p99: null },
              solo_latency_ms: { p50: 2600, p95: 3000, p99: null },
              delivery_rate: 1,
              delivered_per_s: 3000,
            },
          ],
        },
      }),
    ]);
    expect(renderSummaryMarkdown(mx)).toContain(
      '| 0 | postgres-changes | 15.0 s / 18.0 s | 2,600 ms / 3,000 ms | × 5.8 | 3,000/s | 100% | stable |',
    );
  });
});
