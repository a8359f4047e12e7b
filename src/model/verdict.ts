/**
 * A step's verdict (defined in docs/VERDICTS.md). Checked in this order, the first class that
 * applies wins:
 *
 * 1. generator-bound — the load generator fell behind (offered < min ratio, event-loop lag
 *    p99 over its limit, generator CPU over its limit) or hit its own OS limits (EMFILE,
 *    EADDRNOTAVAIL...). Whatever else happened, the step says nothing about the server.
 * 2. broken — delivery below the SLO's delivery rate, messages lost, join failures or
 *    rejections, disconnects, server/network/protocol-class errors.
 * 3. degraded — everything delivered but p95 (or p99 when the SLO sets it) over the SLO.
 * 4. inconclusive — nothing failed but nothing was measured either (no delivery latency, no
 *    acknowledged send, no join): the step says nothing about the server.
 * 5. stable.
 *
 * The reasons list the winning class first; checks of lower classes that also failed follow
 * with an "also:" prefix so a reader sees everything that went wrong.
 */
import type { ErrorClass, StepResult, Verdict } from '../result/result.js';
import { fmtInt, fmtMs, fmtPct, fmtRate, fmtRatioPct } from './format.js';

/** What the verdict needs from a step; the run engine can fill it before a StepResult exists. */
export interface VerdictInput {
  delivery_rate: number | null;
  latency_p95_ms: number | null;
  latency_p99_ms: number | null;
  connections_failed: number;
  /** Connections joined (members measured); absent in inputs made before it was passed. */
  connections_joined?: number | null;
  connections_disconnected: number;
  messages_lost: number;
  error_classes: Partial<Record<ErrorClass, number>>;
  /** Counts by verbatim reason; scanned for generator-side errno codes a classifier missed. */
  errors?: Record<string, number>;
  generator_cpu_pct: number | null;
  generator_lag_p99_ms: number | null;
  generator_offered_ratio: number | null;
  /**
   * The offered ratio per part of the load (traffic kind, joins), to name the parts that fell
   * behind.
   */
  generator_offered_by_part?: Record<string, number> | null;
  /**
   * Connections the step asked for: join success is (target − failed) ÷ target. Absent: any failure
   * breaks.
   */
  connections_target?: number;
  /** Scheduled join time → ok reply, p95 of the step's joins; null when none joined. */
  join_latency_p95_ms?: number | null;
  /** The ramp's measured join rate beside the offered one, and how long the offered ramp lasted. */
  join_rate?: { measured_per_s: number | null; offered_per_s: number; ramp_ms: number } | null;
  /** Acked sends (load.ack); absent or null when no ack was asked for. */
  acks?: { unacked: number; errors: number; untracked: number; acked?: number } | null;
  /**
   * First-receipt latency of each traffic kind of a step that carried several (mixed): every
   * kind is held to the SLO and named, not only the headline (primary) kind. Absent or with
   * one kind: the headline latency above is the step's.
   */
  latency_by_kind?: Record<string, { p95_ms: number | null; p99_ms: number | null }> | null;
  /**
   * Presence tracks: unanswered within load.ack_timeout (the server's failure) and untracked
   * (sent while the generator's bounded pending-track state was full: its own limit).
   */
  presence_tracks?: { unanswered: number; untracked: number } | null;
  /**
   * The traffic the step asked for (messages, updates or rows per second, all kinds together)
   * and what it sent: a step that asked for traffic and sent none measured no delivery, however
   * well its joins went. Absent: not judged.
   */
  traffic?: { asked_per_s: number; sent: number } | null;
}

export interface VerdictSlo {
  p95_ms: number;
  p99_ms?: number;
  /** 1 = every expected message must arrive. */
  delivery_rate: number;
  /** Joins slower than this at p95 make the step degraded. */
  join_p95_ms?: number;
  /** Share of the step's connections that must join; 1 (default) = every one. */
  join_success?: number;
}

/**
 * A server that keeps up answers joins at the rate offered (joinsPerS is exact then, whatever
 * the latency), so a measured rate below 90 % of it is a server falling behind the join
 * schedule; the 10 % is room for reply jitter. At twice the server's join capacity it is 50 %.
 */
export const JOIN_RATE_KEPT = 0.9;
/**
 * Ramps shorter than this are not judged by their rate: a few ms of jitter would dominate. A
 * stable step with such a ramp says its join rate was not judged (never a silent pass).
 */
export const MIN_JOIN_RAMP_MS = 1000;

export interface GeneratorLimits {
  min_offered_ratio: number;
  max_event_loop_lag_p99_ms: number;
  max_cpu_pct: number;
}

/** The defaults docs/VERDICTS.md gives: 99 % offered, 50 ms lag p99, 90 % CPU. */
export const DEFAULT_GENERATOR_LIMITS: GeneratorLimits = {
  min_offered_ratio: 0.99,
  max_event_loop_lag_p99_ms: 50,
  max_cpu_pct: 90,
};

export interface VerdictDecision {
  verdict: Verdict;
  reasons: string[];
}

/**
 * OS errors raised on the generator's side of the socket: out of file descriptors, out of
 * ephemeral ports or source addresses, out of socket buffers. They are limits of this
 * machine, never server failures.
 */
export const GENERATOR_ERRNO = /\b(EMFILE|ENFILE|EADDRNOTAVAIL|EADDRINUSE|ENOBUFS)\b/;

function generatorErrnoCounts(errors: Record<string, number> | undefined): Map<string, number> {
  const out = new Map<string, number>();
  for (const [reason, count] of Object.entries(errors ?? {})) {
    const m = GENERATOR_ERRNO.exec(reason);
    if (m && count > 0) out.set(m[1], (out.get(m[1]) ?? 0) + count);
  }
  return out;
}

/**
 * How a part of the offered load is named in a reason. The Postgres Changes part is rows the
 * coordinator inserted, not messages a connection sent: say so, since its shortfall is rtcap's
 * insert backlog.
 */
export function partLabel(part: string): string {
  return part === 'changes' ? 'changes (inserts)' : part;
}

export function decideVerdict(
  input: VerdictInput,
  slo: VerdictSlo,
  limits: GeneratorLimits = DEFAULT_GENERATOR_LIMITS,
): VerdictDecision {
  const generator: string[] = [];
  const broken: string[] = [];
  const degraded: string[] = [];

  // 1. The generator's own health.
  const offered = input.generator_offered_ratio;
  // A run the server refused outright (every connection failed, e.g. HTTP 401) offered little
  // because there was no one to offer it to: that is the server's answer, not the generator's
  // shortfall, and the failed connections below make the step broken.
  const refusedOutright = input.connections_joined === 0 && input.connections_failed > 0;
  if (offered !== null && offered < limits.min_offered_ratio && !refusedOutright) {
    const behind = Object.entries(input.generator_offered_by_part ?? {}).filter(
      ([, r]) => r < limits.min_offered_ratio,
    );
    const parts = behind.length
      ? ` (behind: ${behind.map(([part, r]) => `${partLabel(part)} ${fmtRatioPct(r)}`).join(', ')})`
      : '';
    generator.push(
      `offered ${fmtRatioPct(offered)} of the scheduled load < ${fmtRatioPct(limits.min_offered_ratio)}${parts}`,
    );
  }
  const lag = input.generator_lag_p99_ms;
  if (lag !== null && lag > limits.max_event_loop_lag_p99_ms) {
    generator.push(
      `generator event-loop lag p99 ${fmtMs(lag)} > ${fmtMs(limits.max_event_loop_lag_p99_ms)}`,
    );
  }
  const gcpu = input.generator_cpu_pct;
  if (gcpu !== null && gcpu > limits.max_cpu_pct) {
    generator.push(`generator CPU ${fmtPct(gcpu, 0)} > ${fmtPct(limits.max_cpu_pct, 0)}`);
  }
  const untracked = input.acks?.untracked ?? 0;
  if (untracked > 0) {
    generator.push(
      `pending-ack state full: ${fmtInt(untracked)} send${untracked === 1 ? '' : 's'} not tracked`,
    );
  }
  const untrackedTracks = input.presence_tracks?.untracked ?? 0;
  if (untrackedTracks > 0) {
    generator.push(
      `presence pending-track state full: ${fmtInt(untrackedTracks)} track${untrackedTracks === 1 ? '' : 's'} not tracked`,
    );
  }
  const errno = generatorErrnoCounts(input.errors);
  const classified = input.error_classes.generator ?? 0;
  if (errno.size > 0) {
    const list = [...errno].map(([code, n]) => `${code} ×${fmtInt(n)}`).join(', ');
    generator.push(`generator-side errors: ${list}`);
  } else if (classified > 0) {
    generator.push(`${fmtInt(classified)} generator-side error${classified === 1 ? '' : 's'}`);
  }

  // 2. Function: every message, every join, every socket.
  const rate = input.delivery_rate;
  if (rate !== null && rate < slo.delivery_rate) {
    const lost = input.messages_lost > 0 ? ` (${fmtInt(input.messages_lost)} lost)` : '';
    broken.push(`delivery ${fmtRatioPct(rate)} < SLO ${fmtRatioPct(slo.delivery_rate)}${lost}`);
  } else if (input.messages_lost > 0 && slo.delivery_rate >= 1) {
    broken.push(`${fmtInt(input.messages_lost)} messages lost`);
  }
  // A send counts as taken only once acknowledged.
  const unacked = input.acks?.unacked ?? 0;
  if (unacked > 0)
    broken.push(`${fmtInt(unacked)} send${unacked === 1 ? '' : 's'} never acknowledged`);
  const refused = input.acks?.errors ?? 0;
  if (refused > 0)
    broken.push(`${fmtInt(refused)} send${refused === 1 ? '' : 's'} refused (ack error)`);
  const unanswered = input.presence_tracks?.unanswered ?? 0;
  if (unanswered > 0)
    broken.push(
      `${fmtInt(unanswered)} presence track${unanswered === 1 ? '' : 's'} never answered`,
    );
  if (input.connections_failed > 0) {
    const need = slo.join_success ?? 1;
    const target = input.connections_target ?? 0;
    if (need >= 1 || target <= 0) {
      broken.push(`${fmtInt(input.connections_failed)} connections failed or were rejected`);
    } else {
      const success = Math.max(0, target - input.connections_failed) / target;
      if (success < need)
        broken.push(
          `joins ${fmtRatioPct(success)} succeeded < SLO ${fmtRatioPct(need)} (${fmtInt(input.connections_failed)} failed or rejected)`,
        );
    }
  }
  if (input.connections_disconnected > 0) {
    broken.push(`${fmtInt(input.connections_disconnected)} connections disconnected`);
  }
  // Network and protocol errors are on the server's side of the wire too (refused
  // connections, resets, malformed frames); generator-side errno codes were taken above.
  for (const cls of ['server', 'network', 'protocol'] as const) {
    const n = input.error_classes[cls] ?? 0;
    if (n > 0) broken.push(`${fmtInt(n)} ${cls}-class error${n === 1 ? '' : 's'}`);
  }

  // 3. Experience: latency against the SLO — of every kind when the step carried several, so
  // a mixed step whose secondary kind the server held back is not stable on its headline kind.
  const p95 = input.latency_p95_ms;
  const p99 = input.latency_p99_ms;
  const byKind = Object.entries(input.latency_by_kind ?? {});
  const latencies =
    byKind.length > 1
      ? byKind.map(([kind, l]) => ({ name: `${kind} `, p95: l.p95_ms, p99: l.p99_ms }))
      : [{ name: '', p95, p99 }];
  for (const l of latencies) {
    if (l.p95 !== null && l.p95 > slo.p95_ms)
      degraded.push(`${l.name}p95 ${fmtMs(l.p95)} > SLO ${fmtMs(slo.p95_ms)}`);
    if (slo.p99_ms !== undefined && l.p99 !== null && l.p99 > slo.p99_ms)
      degraded.push(`${l.name}p99 ${fmtMs(l.p99)} > SLO ${fmtMs(slo.p99_ms)}`);
  }

  const jp95 = input.join_latency_p95_ms ?? null;
  if (slo.join_p95_ms !== undefined && jp95 !== null && jp95 > slo.join_p95_ms) {
    degraded.push(`join p95 ${fmtMs(jp95)} > SLO ${fmtMs(slo.join_p95_ms)}`);
  }
  const jr = input.join_rate;
  if (
    jr &&
    jr.measured_per_s !== null &&
    jr.ramp_ms >= MIN_JOIN_RAMP_MS &&
    jr.measured_per_s < JOIN_RATE_KEPT * jr.offered_per_s
  ) {
    degraded.push(
      `joins ${fmtRate(jr.measured_per_s)} < ${fmtPct(JOIN_RATE_KEPT * 100, 0)} of the ${fmtRate(jr.offered_per_s)} offered: the server fell behind the join schedule`,
    );
  }

  const also = (lines: string[]) => lines.map((l) => `also: ${l}`);
  // A server that went away, or that no connection could reach or join, is the step's answer:
  // what the generator did not offer then had no one to go to, and a stall of its event loop
  // while every socket failed at once is the failure's, not the load's. Broken, the generator
  // figures kept as "also:" (its own OS limits still make the step generator-bound).
  const gone = wentAwayReason(input);
  const ownLimits = errno.size > 0 || classified > 0;
  if (!ownLimits && (gone || refusedOutright) && generator.length > 0) {
    return {
      verdict: 'broken',
      reasons: [...(gone ? [gone] : []), ...broken, ...also(generator), ...also(degraded)],
    };
  }
  if (gone && !ownLimits) broken.unshift(gone);
  if (generator.length > 0) {
    return {
      verdict: 'generator-bound',
      reasons: [...generator, ...also(broken), ...also(degraded)],
    };
  }
  if (broken.length > 0) return { verdict: 'broken', reasons: [...broken, ...also(degraded)] };
  if (degraded.length > 0) return { verdict: 'degraded', reasons: degraded };
  if (!somethingMeasured(input)) {
    return {
      verdict: 'inconclusive',
      reasons: ['nothing measured: no delivery latency, no acknowledged send, no join'],
    };
  }
  const traffic = input.traffic;
  if (traffic && traffic.asked_per_s > 0 && traffic.sent === 0) {
    return {
      verdict: 'inconclusive',
      reasons: [
        `nothing sent: ${fmtRate(traffic.asked_per_s)} asked for, none sent in the steady window; delivery and latency not measured`,
      ],
    };
  }

  const parts: string[] = [];
  if (rate !== null) parts.push(`delivery ${fmtRatioPct(rate)}`);
  if (p95 !== null) parts.push(`p95 ${fmtMs(p95)} within SLO ${fmtMs(slo.p95_ms)}`);
  else if (jp95 !== null) {
    // A join-only step: what was measured are its joins.
    const rate = jr?.measured_per_s ?? null;
    parts.push(
      `${rate !== null ? `joins ${fmtRate(rate)}, ` : ''}join p95 ${fmtMs(jp95)}${slo.join_p95_ms !== undefined ? ` within SLO ${fmtMs(slo.join_p95_ms)}` : ''}`,
    );
  } else parts.push('no latency measured');
  // A ramp too short for its rate to be judged must not pass as if it had kept up: say so.
  if (jr && jr.measured_per_s !== null && jr.ramp_ms > 0 && jr.ramp_ms < MIN_JOIN_RAMP_MS) {
    parts.push(`join rate not judged (ramp ${fmtMs(jr.ramp_ms)} < ${fmtMs(MIN_JOIN_RAMP_MS)})`);
  }
  return { verdict: 'stable', reasons: [parts.join(', ')] };
}

/** How a step whose server went away mid-step begins its reasons. */
export const SERVER_WENT_AWAY = 'the server went away';

/**
 * Connections dropped without a close frame (1006: the TCP connection just ended, as when the
 * server process is killed) counted by their reason's words.
 */
const DROPPED_WITHOUT_CLOSE = /without a close frame \(1006\)/;

/**
 * "the server went away: …" when at least half the step's joined connections were dropped
 * without a close frame; null otherwise.
 */
function wentAwayReason(input: VerdictInput): string | null {
  let dropped = 0;
  for (const [reason, n] of Object.entries(input.errors ?? {}))
    if (DROPPED_WITHOUT_CLOSE.test(reason)) dropped += n;
  const joined = input.connections_joined ?? input.connections_target ?? 0;
  if (dropped === 0 || input.connections_disconnected === 0 || dropped < joined / 2) return null;
  return `${SERVER_WENT_AWAY}: ${fmtInt(dropped)} of ${fmtInt(joined)} connections dropped without a close frame (1006)`;
}

/**
 * A step measured the server when it timed or counted a delivery, had a send acknowledged or
 * a join answered. (A delivery rate without latency exists only in transcribed results: rtcap
 * times every delivery it counts.)
 */
function somethingMeasured(input: VerdictInput): boolean {
  return (
    input.latency_p95_ms !== null ||
    input.delivery_rate !== null ||
    (input.acks?.acked ?? 0) > 0 ||
    (input.join_latency_p95_ms ?? null) !== null ||
    (input.join_rate?.measured_per_s ?? null) !== null
  );
}

/**
 * Whether a verdict judges the server: generator-bound and inconclusive steps say nothing
 * about it, so knees, fits and capacity leave them out.
 */
export function isJudged(verdict: Verdict): boolean {
  return verdict !== 'generator-bound' && verdict !== 'inconclusive';
}

/** The verdict input of a recorded step (to re-judge a result under another SLO). */
export function verdictInputFromStep(step: StepResult): VerdictInput {
  return {
    delivery_rate: step.delivery_rate,
    latency_p95_ms: step.latency_ms?.p95 ?? null,
    latency_p99_ms: step.latency_ms?.p99 ?? null,
    connections_failed: step.connections?.failed ?? 0,
    connections_joined: step.connections?.joined ?? null,
    connections_disconnected: step.connections?.disconnected ?? 0,
    messages_lost: step.messages?.lost ?? 0,
    error_classes: step.error_classes ?? {},
    errors: step.errors,
    generator_cpu_pct: step.generator?.cpu_pct ?? null,
    generator_lag_p99_ms: step.generator?.event_loop_lag_p99_ms ?? null,
    generator_offered_ratio: step.generator?.offered_ratio ?? null,
    generator_offered_by_part: step.generator?.offered_by_part ?? null,
    connections_target: step.connections?.target,
    join_latency_p95_ms: step.connections?.join_latency_ms?.p95 ?? null,
    join_rate: joinRateOfStep(step),
    latency_by_kind: latencyByKindOfStep(step),
    presence_tracks: presenceTracksOfStep(step),
    acks:
      step.messages?.unacked === undefined
        ? null
        : {
            unacked: step.messages.unacked,
            errors: step.messages.ack_errors ?? 0,
            untracked: step.messages.ack_untracked ?? 0,
            acked: step.messages.acked ?? 0,
          },
  };
}

/** The presence-track counts of a recorded step (extra), null for results without them. */
function presenceTracksOfStep(step: StepResult): VerdictInput['presence_tracks'] {
  const e = step.extra ?? {};
  if (
    typeof e.presence_tracks_unanswered !== 'number' &&
    typeof e.presence_tracks_untracked !== 'number'
  )
    return null;
  return {
    unanswered: Number(e.presence_tracks_unanswered ?? 0),
    untracked: Number(e.presence_tracks_untracked ?? 0),
  };
}

/** Each kind's latency of a recorded step that carried several (extra.kinds); null otherwise. */
function latencyByKindOfStep(step: StepResult): VerdictInput['latency_by_kind'] {
  const kinds = step.extra?.kinds as
    Record<string, { latency_ms?: { p95?: number | null; p99?: number | null } }> | undefined;
  if (!kinds || Object.keys(kinds).length < 2) return null;
  return Object.fromEntries(
    Object.entries(kinds).map(([k, v]) => [
      k,
      { p95_ms: v.latency_ms?.p95 ?? null, p99_ms: v.latency_ms?.p99 ?? null },
    ]),
  );
}

/** The join-rate input of a recorded step; null for results written before joins were measured. */
function joinRateOfStep(step: StepResult): VerdictInput['join_rate'] {
  const offered = step.params?.join_rate;
  const scheduled = step.connections?.scheduled_joins;
  if (typeof offered !== 'number' || offered <= 0 || scheduled === undefined) return null;
  return {
    measured_per_s: step.rates?.joins_per_s ?? null,
    offered_per_s: offered,
    ramp_ms: rampMs(scheduled, offered),
  };
}

/** How long a ramp of `scheduled` joins at `ratePerS` lasts, first due → last due. */
export function rampMs(scheduled: number, ratePerS: number): number {
  return scheduled > 1 && ratePerS > 0 ? ((scheduled - 1) / ratePerS) * 1000 : 0;
}

/**
 * Verdicts that may stand for server capacity (docs/VERDICTS.md:
 * generator-bound never does).
 */
export function isServerEvidence(verdict: Verdict): boolean {
  return verdict !== 'generator-bound';
}
