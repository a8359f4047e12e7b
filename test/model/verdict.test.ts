import { describe, expect, it } from 'vitest';
import {
  DEFAULT_GENERATOR_LIMITS,
  type VerdictInput,
  type VerdictSlo,
} from '../../src/model/verdict-input.js';
import { decideVerdict, isJudged } from '../../src/model/verdict.js';
import { partLabel } from '../../src/model/verdict-generator.js';
import { verdictInputFromStep } from '../../src/model/verdict-from-step.js';
import { healthyVerdictInput, loadRun } from '../fixtures/index.js';

const slo = { p95_ms: 200, delivery_rate: 1 };
const v = (o: Partial<VerdictInput>, s: VerdictSlo = slo) =>
  decideVerdict(healthyVerdictInput(o), s, DEFAULT_GENERATOR_LIMITS);

describe('decideVerdict', () => {
  const DROP =
    'connection dropped without a close frame (1006): the server went away or the network failed';
  it('a server that went away mid-step is broken, first; the shortfall it caused is only "also:"', () => {
    const gone = v({
      connections_joined: 1000,
      connections_disconnected: 1000,
      errors: { [DROP]: 1000 },
      error_classes: { network: 1000 },
      generator_offered_ratio: 0.29,
      generator_lag_p99_ms: 1298,
      delivery_rate: 0.8,
      messages_lost: 1998,
    });
    expect(gone.verdict).toBe('broken');
    expect(gone.reasons[0]).toBe(
      'the server went away: 1,000 of 1,000 connections dropped without a close frame (1006)',
    );
    expect(gone.reasons).toContain('also: generator event-loop lag p99 1,298 ms > 50 ms');
    // A few drops among many connections are disconnects, not a server gone.
    const few = v({ connections_joined: 1000, connections_disconnected: 3, errors: { [DROP]: 3 } });
    expect(few.reasons[0]).toBe('3 connections disconnected');
    // Its own OS limits still make the step the generator's.
    expect(
      v({
        connections_joined: 10,
        connections_disconnected: 10,
        errors: { [DROP]: 10, 'generator: EMFILE (open-file limit reached)': 5 },
      }).verdict,
    ).toBe('generator-bound');
  });

  it('no connection could join: broken, however the generator lagged meanwhile', () => {
    const refused = v({
      connections_joined: 0,
      connections_failed: 500,
      connections_target: 500,
      errors: { 'connect ECONNREFUSED 127.0.0.1:80': 500 },
      error_classes: { network: 500 },
      generator_lag_p99_ms: 3534,
      generator_offered_ratio: 0.1,
      delivery_rate: null,
      latency_p95_ms: null,
    });
    expect(refused.verdict).toBe('broken');
    expect(refused.reasons[0]).toBe('500 connections failed or were rejected');
    expect(refused.reasons).toContain('also: generator event-loop lag p99 3,534 ms > 50 ms');
  });

  it('a private ramp the server refused with IncreaseConnectionPool is broken, the refusal quoted first, though the generator lagged', () => {
    const POOL = 'join refused: IncreaseConnectionPool: Please increase your connection pool size';
    const ramp = {
      connections_joined: 4,
      connections_failed: 98,
      connections_target: 30,
      errors: { [POOL]: 98, 'join timeout: no reply within 5000 ms': 3 },
      error_classes: { server: 98, network: 3 },
      generator_lag_p99_ms: 106,
      generator_offered_by_part: { broadcast: 1, joins: 1 },
    };
    const refused = v(ramp);
    expect(refused.verdict).toBe('broken');
    expect(refused.reasons[0]).toBe(`server rejection: “${POOL}” ×98`);
    expect(refused.reasons).toContain('98 connections failed or were rejected');
    expect(refused.reasons).toContain('also: generator event-loop lag p99 106 ms > 50 ms');
    // Joins the generator opened behind their schedule may have bunched into the refusal: its own.
    const late = v({ ...ramp, generator_offered_by_part: { broadcast: 1, joins: 0.6 } });
    expect(late.verdict).toBe('generator-bound');
    expect(late.reasons).toContain(`also: server rejection: “${POOL}” ×98`);
    // Failures the server put in no words are not quoted.
    const silent = v({ ...ramp, generator_lag_p99_ms: 2, errors: { 'connect ECONNRESET': 98 } });
    expect(silent.reasons[0]).toBe('98 connections failed or were rejected');
  });

  it('joins: success against the SLO share, join p95 against its SLO, the measured join rate against the offered one', () => {
    const seed = { ...slo, join_success: 0.9995, join_p95_ms: 2000 };
    // Seed §1: 15,998 of 16,000 joined is stable at 0.9995; the default (1) breaks on any failure.
    expect(v({ connections_failed: 2, connections_target: 16_000 }, seed).verdict).toBe('stable');
    expect(v({ connections_failed: 2, connections_target: 16_000 }).reasons).toEqual([
      '2 connections failed or were rejected',
    ]);
    expect(v({ connections_failed: 10, connections_target: 16_000 }, seed)).toEqual({
      verdict: 'broken',
      reasons: ['joins 99.93% succeeded < SLO 99.95% (10 failed or rejected)'],
    });
    expect(v({ join_latency_p95_ms: 2500 }, seed)).toEqual({
      verdict: 'degraded',
      reasons: ['join p95 2,500 ms > SLO 2,000 ms'],
    });
    expect(v({ join_latency_p95_ms: 1500 }, seed).verdict).toBe('stable');
    expect(
      v(
        {
          latency_p95_ms: null,
          delivery_rate: null,
          join_latency_p95_ms: 135,
          join_rate: { measured_per_s: 5, offered_per_s: 5, ramp_ms: 5800 },
        },
        seed,
      ).reasons,
    ).toEqual(['joins 5/s, join p95 135 ms within SLO 2,000 ms']);
    // Twice the server's join capacity: half the offered rate answered.
    expect(
      v({ join_rate: { measured_per_s: 10, offered_per_s: 20, ramp_ms: 3000 } }, seed),
    ).toEqual({
      verdict: 'degraded',
      reasons: ['joins 10/s < 90% of the 20/s offered: the server fell behind the join schedule'],
    });
    expect(
      v({ join_rate: { measured_per_s: 19.5, offered_per_s: 20, ramp_ms: 3000 } }, seed).verdict,
    ).toBe('stable');
    // A ramp under a second is not judged by its rate (jitter would dominate), nor one not
    // measured.
    expect(
      v({ join_rate: { measured_per_s: 10, offered_per_s: 20, ramp_ms: 500 } }, seed).verdict,
    ).toBe('stable');
    expect(
      v({ join_rate: { measured_per_s: null, offered_per_s: 20, ramp_ms: 3000 } }, seed).verdict,
    ).toBe('stable');
  });

  it('acked sends: unanswered or refused ones break the step; an untracked one makes it generator-bound', () => {
    expect(v({ acks: { unacked: 0, errors: 0, untracked: 0 } }).verdict).toBe('stable');
    expect(v({ acks: { unacked: 10, errors: 0, untracked: 0 } })).toEqual({
      verdict: 'broken',
      reasons: ['10 sends never acknowledged'],
    });
    expect(v({ acks: { unacked: 0, errors: 1, untracked: 0 } })).toEqual({
      verdict: 'broken',
      reasons: ['1 send refused (ack error)'],
    });
    expect(v({ acks: { unacked: 1, errors: 0, untracked: 3 } })).toEqual({
      verdict: 'generator-bound',
      reasons: ['pending-ack state full: 3 sends not tracked', 'also: 1 send never acknowledged'],
    });
    expect(v({ acks: null }).verdict).toBe('stable');
  });

  it('generator-bound when any part of the load fell behind, naming it', () => {
    const r = v({
      generator_offered_ratio: 0.5,
      generator_offered_by_part: { changes: 1, presence: 0.5, joins: 1 },
    });
    expect(r).toEqual({
      verdict: 'generator-bound',
      reasons: ['offered 50.00% of the scheduled load < 99.00% (behind: presence 50.00%)'],
    });
  });

  it('names the Postgres Changes part by what fell behind: the inserts', () => {
    const r = v({
      generator_offered_ratio: 0.638,
      generator_offered_by_part: { changes: 0.638, joins: 1 },
    });
    expect(r.verdict).toBe('generator-bound');
    expect(r.reasons[0]).toBe(
      'offered 63.80% of the scheduled load < 99.00% (behind: changes (inserts) 63.80%)',
    );
    expect(partLabel('presence')).toBe('presence');
  });

  it('presence tracks: never answered is broken, not tracked (pending state full) is generator-bound', () => {
    expect(v({ presence_tracks: { unanswered: 2, untracked: 0 } })).toEqual({
      verdict: 'broken',
      reasons: ['2 presence tracks never answered'],
    });
    expect(v({ presence_tracks: { unanswered: 1, untracked: 5 } })).toEqual({
      verdict: 'generator-bound',
      reasons: [
        'presence pending-track state full: 5 tracks not tracked',
        'also: 1 presence track never answered',
      ],
    });
    expect(v({ presence_tracks: { unanswered: 0, untracked: 0 } }).verdict).toBe('stable');
    const step = {
      delivery_rate: 1,
      latency_ms: { p95: 40, p99: 80 },
      extra: { presence_tracks_unanswered: 3, presence_tracks_untracked: 0 },
    } as never;
    expect(verdictInputFromStep(step).presence_tracks).toEqual({ unanswered: 3, untracked: 0 });
  });

  it('holds every kind of a mixed step to the latency SLO and names the kind over it', () => {
    const latency_by_kind = {
      broadcast: { p95_ms: 1900, p99_ms: 2000 },
      presence: { p95_ms: 40, p99_ms: 80 },
    };
    // The headline (primary) kind is presence, within the SLO: the step is degraded by broadcast
    // alone.
    expect(v({ latency_by_kind })).toEqual({
      verdict: 'degraded',
      reasons: ['broadcast p95 1,900 ms > SLO 200 ms'],
    });
    expect(v({ latency_by_kind }, { ...slo, p99_ms: 1000 }).reasons).toEqual([
      'broadcast p95 1,900 ms > SLO 200 ms',
      'broadcast p99 2,000 ms > SLO 1,000 ms',
    ]);
    // Every kind within: stable. One kind only: the headline latency is the step's.
    expect(
      v({ latency_by_kind: { ...latency_by_kind, broadcast: { p95_ms: 50, p99_ms: 60 } } }).verdict,
    ).toBe('stable');
    expect(
      v({ latency_p95_ms: 412, latency_by_kind: { broadcast: { p95_ms: 10, p99_ms: 10 } } })
        .reasons,
    ).toEqual(['p95 412 ms > SLO 200 ms']);
  });

  it('re-judges a recorded mixed step by each kind in extra.kinds', () => {
    const step = {
      delivery_rate: 1,
      latency_ms: { p95: 40, p99: 80 },
      extra: {
        kinds: {
          broadcast: { latency_ms: { p50: 900, p95: 1900, p99: 2000 } },
          presence: { latency_ms: { p50: 10, p95: 40, p99: 80 } },
        },
      },
    } as never;
    const input = verdictInputFromStep(step);
    expect(input.latency_by_kind).toEqual({
      broadcast: { p95_ms: 1900, p99_ms: 2000 },
      presence: { p95_ms: 40, p99_ms: 80 },
    });
    expect(decideVerdict(input, slo).reasons).toEqual(['broadcast p95 1,900 ms > SLO 200 ms']);
  });

  it('a join ramp too short to judge its rate says so instead of passing silently', () => {
    const short = { measured_per_s: 40, offered_per_s: 100, ramp_ms: 190 };
    expect(v({ join_rate: short })).toEqual({
      verdict: 'stable',
      reasons: [
        'delivery 100%, p95 40 ms within SLO 200 ms, join rate not judged (ramp 190 ms < 1,000 ms)',
      ],
    });
    // A ramp of 1 s or more is judged; a single join (no ramp) has no rate to judge.
    expect(v({ join_rate: { ...short, ramp_ms: 1000 } }).verdict).toBe('degraded');
    expect(
      v({ join_rate: { measured_per_s: null, offered_per_s: 100, ramp_ms: 0 } }).reasons,
    ).toEqual(['delivery 100%, p95 40 ms within SLO 200 ms']);
  });

  it('stable, with a reason that shows what was checked', () => {
    expect(v({})).toEqual({
      verdict: 'stable',
      reasons: ['delivery 100%, p95 40 ms within SLO 200 ms'],
    });
  });

  it('degraded when p95, or p99 when the SLO sets it, is over the SLO', () => {
    expect(v({ latency_p95_ms: 412 })).toEqual({
      verdict: 'degraded',
      reasons: ['p95 412 ms > SLO 200 ms'],
    });
    expect(v({ latency_p99_ms: 900 }).verdict).toBe('stable');
    expect(v({ latency_p99_ms: 900 }, { ...slo, p99_ms: 500 })).toEqual({
      verdict: 'degraded',
      reasons: ['p99 900 ms > SLO 500 ms'],
    });
  });

  it('broken on delivery below the SLO, lost messages, failed joins, disconnects and server-side errors', () => {
    expect(v({ delivery_rate: 0.9787, messages_lost: 2130 })).toEqual({
      verdict: 'broken',
      reasons: ['delivery 97.87% < SLO 100% (2,130 lost)'],
    });
    expect(v({ delivery_rate: 0.9995 }, { ...slo, delivery_rate: 0.999 }).verdict).toBe('stable');
    expect(v({ messages_lost: 3 }).reasons).toEqual(['3 messages lost']);
    expect(v({ connections_failed: 2 }).reasons).toEqual(['2 connections failed or were rejected']);
    expect(v({ connections_disconnected: 4228 }).reasons).toEqual([
      '4,228 connections disconnected',
    ]);
    expect(v({ error_classes: { server: 1 } }).reasons).toEqual(['1 server-class error']);
    expect(v({ error_classes: { network: 3, protocol: 1 } }).reasons).toEqual([
      '3 network-class errors',
      '1 protocol-class error',
    ]);
  });

  it('lists the latency problem of a broken step after its cause', () => {
    expect(v({ connections_failed: 1, latency_p95_ms: 6400 }).reasons).toEqual([
      '1 connections failed or were rejected',
      'also: p95 6,400 ms > SLO 200 ms',
    ]);
  });

  it('generator-bound first: offered below 99 %, lag p99 over 50 ms, generator CPU over 90 %', () => {
    expect(v({ generator_offered_ratio: 0.95 }).reasons).toEqual([
      'offered 95.00% of the scheduled load < 99.00%',
    ]);
    expect(v({ generator_lag_p99_ms: 72 }).reasons).toEqual([
      'generator event-loop lag p99 72 ms > 50 ms',
    ]);
    expect(v({ generator_cpu_pct: 97 }).reasons).toEqual(['generator CPU 97% > 90%']);
    const both = v({ generator_cpu_pct: 97, delivery_rate: 0.5, latency_p95_ms: 900 });
    expect(both.verdict).toBe('generator-bound');
    expect(both.reasons).toEqual([
      'generator CPU 97% > 90%',
      'also: delivery 50.00% < SLO 100%',
      'also: p95 900 ms > SLO 200 ms',
    ]);
  });

  it('a step whose every connection was refused (HTTP 401) is broken, not generator-bound, though little was offered', () => {
    const refused = v({
      connections_joined: 0,
      connections_failed: 20,
      delivery_rate: null,
      latency_p95_ms: null,
      generator_offered_ratio: 0.85,
    });
    expect(refused.verdict).toBe('broken');
    expect(refused.reasons).toEqual(['20 connections failed or were rejected']);
    // Some joined: a shortfall in what was offered is still the generator's.
    expect(
      v({ connections_joined: 5, connections_failed: 15, generator_offered_ratio: 0.85 }).verdict,
    ).toBe('generator-bound');
    // Refused by the generator's own limits: still generator-bound.
    expect(
      v({
        connections_joined: 0,
        connections_failed: 20,
        generator_offered_ratio: 0.85,
        errors: { 'connect EMFILE': 20 },
      }).verdict,
    ).toBe('generator-bound');
  });

  it('EMFILE and EADDRNOTAVAIL make a step generator-bound, never broken, even if classified as network', () => {
    const r = v({
      connections_failed: 40,
      error_classes: { network: 40 },
      errors: {
        'connect: EMFILE: too many open files': 25,
        'connect: connect EADDRNOTAVAIL 127.0.0.1:4000': 15,
      },
    });
    expect(r.verdict).toBe('generator-bound');
    expect(r.reasons[0]).toBe('generator-side errors: EMFILE ×25, EADDRNOTAVAIL ×15');
    expect(v({ error_classes: { generator: 3 } }).verdict).toBe('generator-bound');
  });

  it('does not judge what was not measured (null is not 0): a step with nothing measured is inconclusive', () => {
    const nothing = {
      delivery_rate: null,
      latency_p95_ms: null,
      generator_cpu_pct: null,
      generator_lag_p99_ms: null,
      generator_offered_ratio: null,
    };
    expect(v(nothing)).toEqual({
      verdict: 'inconclusive',
      reasons: ['nothing measured: no delivery latency, no acknowledged send, no join'],
    });
    expect(v({ ...nothing, delivery_rate: 1 })).toEqual({
      verdict: 'stable',
      reasons: ['delivery 100%, no latency measured'],
    });
    expect(v({ ...nothing, acks: { unacked: 0, errors: 0, untracked: 0, acked: 3 } }).verdict).toBe(
      'stable',
    );
    expect(v({ ...nothing, acks: { unacked: 0, errors: 0, untracked: 0, acked: 0 } }).verdict).toBe(
      'inconclusive',
    );
    expect(v({ ...nothing, join_latency_p95_ms: 12 }).verdict).toBe('stable');
    expect(
      v({ ...nothing, join_rate: { measured_per_s: 50, offered_per_s: 50, ramp_ms: 100 } }).verdict,
    ).toBe('stable');
    // Failures are evidence: a step with nothing timed but connections refused is broken.
    expect(v({ ...nothing, connections_failed: 2 }).verdict).toBe('broken');
  });

  it('a step that asked for traffic and sent none is inconclusive, even with its joins answered', () => {
    const joinsOnly = { delivery_rate: null, latency_p95_ms: null, join_latency_p95_ms: 12 };
    expect(v({ ...joinsOnly, traffic: { asked_per_s: 10, sent: 0 } })).toEqual({
      verdict: 'inconclusive',
      reasons: [
        'nothing sent: 10/s asked for, none sent in the steady window; delivery and latency not measured',
      ],
    });
    // A step that only holds connections asks for nothing: its joins are what it measures.
    expect(v({ ...joinsOnly, traffic: { asked_per_s: 0, sent: 0 } }).verdict).toBe('stable');
    expect(
      v({
        ...joinsOnly,
        delivery_rate: 1,
        latency_p95_ms: 5,
        traffic: { asked_per_s: 10, sent: 30 },
      }).verdict,
    ).toBe('stable');
    // A failure still breaks it.
    expect(
      v({ ...joinsOnly, connections_failed: 1, traffic: { asked_per_s: 10, sent: 0 } }).verdict,
    ).toBe('broken');
  });

  it('judges the server only with stable, degraded and broken steps', () => {
    expect(
      (['stable', 'degraded', 'broken', 'generator-bound', 'inconclusive'] as const).map(isJudged),
    ).toEqual([true, true, true, false, false]);
  });

  it('agrees with every verdict in the seed fixtures', () => {
    for (const name of [
      'seed-002-s1.1-connections',
      'seed-002-s1.2-deliveries',
      'seed-002-s4-join-rate',
      'seed-002-s6-postgres-changes',
      'seed-002-s2.1-private',
    ]) {
      const run = loadRun(name);
      for (const s of run.steps) {
        expect(
          decideVerdict(verdictInputFromStep(s), run.slo).verdict,
          `${name} step ${s.index}`,
        ).toBe(s.verdict);
      }
    }
  });
});
