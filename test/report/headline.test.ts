import { describe, expect, it } from 'vitest';
import { headline } from '../../src/report/headline.js';
import { loadRun, makeRun, makeStep } from '../fixtures/index.js';

/** A ramp of 1,000 connections at 10, 20, 30 msg/s (expected deliveries follow the rate). */
function ramp(
  verdicts: ('stable' | 'degraded' | 'broken' | 'generator-bound')[],
  o: { complete?: boolean[]; builtin?: boolean } = {},
) {
  const steps = verdicts.map((verdict, i) => {
    const rate = 10 * (i + 1);
    return makeStep(i + 1, {
      params: { send_rate: rate },
      verdict,
      verdict_reasons:
        verdict === 'degraded'
          ? ['p95 260 ms > SLO 200 ms']
          : verdict === 'broken'
            ? ['delivery 94.12% < SLO 100%']
            : verdict === 'generator-bound'
              ? ['generator CPU 97% > 90%']
              : ['delivery 100%'],
      complete: o.complete?.[i] ?? true,
      messages: { expected: rate * 1000 * 20, received: rate * 1000 * 20 },
      rates: { sent_per_s: rate, delivered_per_s: rate * 999 },
    });
  });
  return makeRun(
    'broadcast-public',
    steps,
    o.builtin === false ? { target: { ...makeRun('x', []).target, builtin: false } } : {},
  );
}

describe('headline', () => {
  it('names what the server carried at the SLO and what limited it', () => {
    expect(headline(ramp(['stable', 'stable', 'degraded']))).toBe(
      'The built-in server on this machine carried 19,980 deliveries/s to 1,000 connections within the SLO (first-receipt p95 ≤ 200 ms, 100% delivered; step 2: p95 8.0 ms); what limited it: latency SLO (p95 260 ms > SLO 200 ms) — step 3 (1,000 connections, 30,000 deliveries/s asked) was degraded.',
    );
  });

  it('no limit reached: a lower bound, "≥ …"', () => {
    const h = headline(ramp(['stable', 'stable']));
    expect(h).toContain('carried ≥ 19,980 deliveries/s to ≥ 1,000 connections within the SLO');
    expect(h).toMatch(/no limit was reached, so this is a lower bound\.$/);
  });

  it("a generator-bound step above is the generator's limit, never the server's", () => {
    const h = headline(ramp(['stable', 'generator-bound']));
    expect(h).toContain('carried ≥ 9,990 deliveries/s');
    expect(h).toContain(
      'the load generator, not the server, was the limit: step 2 (1,000 connections, 20,000 deliveries/s asked) was generator-bound: generator CPU 97% > 90%, so this is a lower bound.',
    );
  });

  it('never cites an incomplete step as what was carried', () => {
    const h = headline(ramp(['stable', 'stable'], { complete: [true, false] }));
    expect(h).toContain('carried ≥ 9,990 deliveries/s');
    expect(h).toContain('step 1: p95');
  });

  it('says when no step was within the SLO, and why', () => {
    const h = headline(ramp(['broken']));
    expect(h).toBe(
      'The built-in server on this machine carried no step within the SLO (first-receipt p95 ≤ 200 ms, 100% delivered): step 1 (1,000 connections, 10,000 deliveries/s asked) was broken — delivery 94.12% < SLO 100%.',
    );
  });

  it('a run whose first step was generator-bound measured no server figure, and says so', () => {
    expect(headline(ramp(['generator-bound', 'generator-bound']))).toBe(
      'No step measured the server: step 1 (1,000 connections, 10,000 deliveries/s asked) was already generator-bound — generator CPU 97% > 90% — so the load generator, not the server, was the limit on this machine.',
    );
  });

  it('a run the server refused outright (HTTP 401) is broken, with the refusal, not generator-bound', () => {
    const refused = makeRun(
      'broadcast-public',
      [
        makeStep(1, {
          verdict: 'broken',
          complete: false,
          verdict_reasons: [
            'incomplete (cut short): figures cover only what ran',
            '20 connections failed or were rejected',
          ],
          connections: { target: 20, joined: 0, failed: 20 },
          messages: { expected: 0, received: 0 },
          rates: { delivered_per_s: 0 },
        }),
      ],
      {
        status: 'aborted',
        abort_reason: 'no connection could join: upgrade refused: HTTP 401 (×20)',
      },
    );
    expect(headline(refused)).toBe(
      'The built-in server on this machine carried no step within the SLO (first-receipt p95 ≤ 200 ms, 100% delivered): step 1 (20 connections) was broken, incomplete (cut short) — 20 connections failed or were rejected; the run was aborted: no connection could join: upgrade refused: HTTP 401 (×20).',
    );
  });

  it('a step cut short by SIGINT says so, never "no step within the SLO" nor generator-bound', () => {
    const r = ramp(['stable'], { complete: [false] });
    r.status = 'interrupted';
    r.abort_reason = 'interrupted by the user (SIGINT)';
    r.steps[0].cut_short = {
      by: 'SIGINT',
      phase: 'steady',
      collected: true,
      collect_wait_ms: 5000,
    };
    r.steps[0].verdict_reasons = [
      'incomplete (cut short by SIGINT in the steady window): figures cover only what ran',
      'delivery 100%, p95 8.0 ms within SLO 200 ms',
    ];
    expect(headline(r)).toBe(
      'No step ran to its end: step 1 (1,000 connections, 10,000 deliveries/s asked) was cut short by SIGINT in the steady window (stable over the part that ran: delivery 100%, p95 8.0 ms within SLO 200 ms), and a step cut short is never capacity.',
    );
  });

  it('a step cut short above a stable one is named after what the run carried', () => {
    const r = ramp(['stable', 'stable'], { complete: [true, false] });
    r.steps[1].cut_short = { by: 'SIGINT', phase: 'ramp', collected: true, collect_wait_ms: 5000 };
    expect(headline(r)).toMatch(
      /no limit was reached, so this is a lower bound; then step 2 \(1,000 connections, 20,000 deliveries\/s asked\) was cut short by SIGINT in the ramp\.$/,
    );
  });

  it('a server gone mid-step with no step before it: no limit of its load, said once', () => {
    const gone = 'the server went away: all 20 connections were lost without a close frame (1006)';
    const r = ramp(['broken'], { complete: [false] });
    r.status = 'aborted';
    r.abort_reason = gone;
    r.steps[0].cut_short = { by: gone, phase: 'steady', collected: true, collect_wait_ms: 20000 };
    r.steps[0].verdict_reasons = [
      `incomplete (cut short in the steady window: ${gone}): figures cover only what ran`,
      'the server went away: 20 of 20 connections dropped without a close frame (1006)',
      '20 connections disconnected',
    ];
    const h = headline(r);
    expect(h).toBe(
      'No step measured the server: in step 1 (1,000 connections, 10,000 deliveries/s asked), the server went away: 20 of 20 connections dropped without a close frame (1006); a server that went away reached no limit of its load.',
    );
    expect(h).not.toMatch(/generator-bound|closed by server|carried no step/);
  });

  it('a server killed after a stable step: that step stands, a lower bound, never a limit', () => {
    const gone =
      'the server went away: all 1,000 connections were lost without a close frame (1006)';
    const r = ramp(['stable', 'broken'], { complete: [true, false] });
    r.status = 'aborted';
    r.abort_reason = gone;
    // Cut short, the killed step asked fewer deliveries over the part that ran than step 1 did.
    r.steps[1].messages.expected = 1000;
    r.steps[1].cut_short = { by: gone, phase: 'steady', collected: true, collect_wait_ms: 20000 };
    r.steps[1].verdict_reasons = [
      `incomplete (cut short in the steady window: ${gone}): figures cover only what ran`,
      'the server went away: 1,000 of 1,000 connections dropped without a close frame (1006)',
      '1,000 connections disconnected',
    ];
    expect(headline(r)).toBe(
      'The built-in server on this machine carried ≥ 9,990 deliveries/s to ≥ 1,000 connections within the SLO (first-receipt p95 ≤ 200 ms, 100% delivered; step 1: p95 8.0 ms); then, in step 2 (1,000 connections, 50 deliveries/s asked), the server went away: 1,000 of 1,000 connections dropped without a close frame (1006), so no limit was measured and this is a lower bound.',
    );
  });

  it('a server gone in a step above one that failed first is named all the same', () => {
    const gone = 'the server went away: all 20 connections were lost without a close frame (1006)';
    const r = ramp(['degraded', 'broken'], { complete: [true, false] });
    r.steps[1].cut_short = { by: gone, phase: 'steady', collected: true, collect_wait_ms: 20000 };
    r.steps[1].verdict_reasons = [
      `incomplete (cut short in the steady window: ${gone}): figures cover only what ran`,
      'the server went away: 20 of 20 connections dropped without a close frame (1006)',
    ];
    expect(headline(r)).toMatch(
      /was degraded — p95 260 ms > SLO 200 ms; then, in step 2 \(1,000 connections, 20,000 deliveries\/s asked\), the server went away: 20 of 20 connections dropped without a close frame \(1006\)\.$/,
    );
  });

  it('an external server is "the server", not "this machine"', () => {
    expect(headline(ramp(['stable'], { builtin: false }))).toMatch(/^The server carried ≥ 9,990/);
  });

  it('agrees with the seed §1.2 knee: 33,988/s carried, 40,000/s degraded', () => {
    const h = headline(loadRun('seed-002-s1.2-deliveries'));
    expect(h).toContain('carried 33,988 deliveries/s');
    expect(h).toContain('step 4 (5,001 connections, 40,000 deliveries/s asked) was degraded');
  });
});
