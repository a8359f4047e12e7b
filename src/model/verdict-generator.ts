/**
 * The first class of a verdict, generator-bound (docs/VERDICTS.md): the load generator fell
 * behind (offered load, event-loop lag, CPU), its bounded pending state filled, or it hit its
 * own OS limits. Whatever else happened, such a step says nothing about the server.
 */
import { fmtInt, fmtMs, fmtPct, fmtRatioPct } from './format.js';
import type { GeneratorLimits, VerdictInput } from './verdict-input.js';

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

/** The per-process open-file limit an EMFILE reason names (client/classify), or null. */
function openFilesLimitOf(errors: Record<string, number> | undefined): string | null {
  for (const reason of Object.keys(errors ?? {})) {
    const m = /open-file limit reached: ([\d,]+) per process/.exec(reason);
    if (m) return m[1];
  }
  return null;
}

/**
 * How a part of the offered load is named in a reason. The Postgres Changes part is rows the
 * coordinator inserted, not messages a connection sent: say so, since its shortfall is rtcap's
 * insert backlog.
 */
export function partLabel(part: string): string {
  return part === 'changes' ? 'changes (inserts)' : part;
}

/** The generator checks of a step, and what the verdict's order of classes needs to know. */
export interface GeneratorCheck {
  reasons: string[];
  /** The generator hit its own OS limits (errno codes, generator-class errors). */
  ownLimits: boolean;
  /**
   * The server refused the run outright (every connection failed, e.g. HTTP 401): it offered
   * little because there was no one to offer it to — the server's answer, not the generator's
   * shortfall.
   */
  refusedOutright: boolean;
}

/** "offered 80% of the scheduled load < 99% (behind: changes (inserts) 60%)", or null. */
function offeredShortfall(input: VerdictInput, limits: GeneratorLimits): string | null {
  const offered = input.generator_offered_ratio;
  if (offered === null || offered >= limits.min_offered_ratio) return null;
  const behind = Object.entries(input.generator_offered_by_part ?? {}).filter(
    ([, r]) => r < limits.min_offered_ratio,
  );
  const parts = behind.length
    ? ` (behind: ${behind.map(([part, r]) => `${partLabel(part)} ${fmtRatioPct(r)}`).join(', ')})`
    : '';
  return `offered ${fmtRatioPct(offered)} of the scheduled load < ${fmtRatioPct(limits.min_offered_ratio)}${parts}`;
}

/** Event-loop lag p99 and CPU over their limits. */
function busyReasons(input: VerdictInput, limits: GeneratorLimits): string[] {
  const out: string[] = [];
  const lag = input.generator_lag_p99_ms;
  if (lag !== null && lag > limits.max_event_loop_lag_p99_ms) {
    out.push(
      `generator event-loop lag p99 ${fmtMs(lag)} > ${fmtMs(limits.max_event_loop_lag_p99_ms)}`,
    );
  }
  const gcpu = input.generator_cpu_pct;
  if (gcpu !== null && gcpu > limits.max_cpu_pct) {
    out.push(`generator CPU ${fmtPct(gcpu, 0)} > ${fmtPct(limits.max_cpu_pct, 0)}`);
  }
  return out;
}

/** Sends and presence tracks the generator's bounded pending state had no room to track. */
function pendingStateReasons(input: VerdictInput): string[] {
  const out: string[] = [];
  const untracked = input.acks?.untracked ?? 0;
  if (untracked > 0) {
    out.push(
      `pending-ack state full: ${fmtInt(untracked)} send${untracked === 1 ? '' : 's'} not tracked`,
    );
  }
  const untrackedTracks = input.presence_tracks?.untracked ?? 0;
  if (untrackedTracks > 0) {
    out.push(
      `presence pending-track state full: ${fmtInt(untrackedTracks)} track${untrackedTracks === 1 ? '' : 's'} not tracked`,
    );
  }
  return out;
}

/** Everything that makes the step generator-bound, in the order the reasons list it. */
export function generatorCheck(input: VerdictInput, limits: GeneratorLimits): GeneratorCheck {
  const refusedOutright = input.connections_joined === 0 && input.connections_failed > 0;
  const reasons: string[] = [];
  const offered = offeredShortfall(input, limits);
  if (offered !== null && !refusedOutright) reasons.push(offered);
  reasons.push(...busyReasons(input, limits), ...pendingStateReasons(input));
  const errno = generatorErrnoCounts(input.errors);
  const classified = input.error_classes.generator ?? 0;
  if (errno.size > 0) {
    // The cause, first: past its own OS limit the generator also falls behind and lags.
    const list = [...errno].map(([code, n]) => `${code} ×${fmtInt(n)}`).join(', ');
    const limit = openFilesLimitOf(input.errors);
    const named = errno.has('EMFILE') && limit ? ` (open-file limit ${limit} per process)` : '';
    reasons.unshift(`generator-side errors: ${list}${named}`);
  } else if (classified > 0) {
    reasons.push(`${fmtInt(classified)} generator-side error${classified === 1 ? '' : 's'}`);
  }
  return { reasons, ownLimits: errno.size > 0 || classified > 0, refusedOutright };
}
