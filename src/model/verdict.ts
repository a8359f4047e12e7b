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
import type { Verdict } from '../result/result.js';
import { brokenReasons, serverRefusalReason, wentAwayReason } from './verdict-broken.js';
import { degradedReasons } from './verdict-degraded.js';
import { generatorCheck } from './verdict-generator.js';
import {
  DEFAULT_GENERATOR_LIMITS,
  type GeneratorLimits,
  type VerdictDecision,
  type VerdictInput,
  type VerdictSlo,
} from './verdict-input.js';
import { inconclusiveDecision, stableReason } from './verdict-measured.js';

const also = (lines: string[]) => lines.map((l) => `also: ${l}`);

export function decideVerdict(
  input: VerdictInput,
  slo: VerdictSlo,
  limits: GeneratorLimits = DEFAULT_GENERATOR_LIMITS,
): VerdictDecision {
  const generator = generatorCheck(input, limits);
  const broken = brokenReasons(input, slo);
  const degraded = degradedReasons(input, slo);
  // A server that went away, or that no connection could reach or join, is the step's answer:
  // what the generator did not offer then had no one to go to, and a stall of its event loop
  // while every socket failed at once is the failure's, not the load's. Broken, the generator
  // figures kept as "also:" (its own OS limits still make the step generator-bound).
  const gone = wentAwayReason(input);
  const { ownLimits, refusedOutright } = generator;
  // The server refused joins it was offered on schedule, in its own words (IncreaseConnectionPool,
  // a quota): its answer, whatever the generator's lag or CPU meanwhile.
  const refusedInWords = serverRefusalReason(input) !== null && joinsOnSchedule(input, limits);
  if (!ownLimits && (gone || refusedOutright || refusedInWords) && generator.reasons.length > 0) {
    return {
      verdict: 'broken',
      reasons: [...(gone ? [gone] : []), ...broken, ...also(generator.reasons), ...also(degraded)],
    };
  }
  if (gone && !ownLimits) broken.unshift(gone);
  if (generator.reasons.length > 0) {
    return {
      verdict: 'generator-bound',
      reasons: [...generator.reasons, ...also(broken), ...also(degraded)],
    };
  }
  if (broken.length > 0) return { verdict: 'broken', reasons: [...broken, ...also(degraded)] };
  if (degraded.length > 0) return { verdict: 'degraded', reasons: degraded };
  return inconclusiveDecision(input) ?? { verdict: 'stable', reasons: [stableReason(input, slo)] };
}

/** The generator opened the step's joins on schedule (or the step scheduled none). */
function joinsOnSchedule(input: VerdictInput, limits: GeneratorLimits): boolean {
  return (input.generator_offered_by_part?.joins ?? 1) >= limits.min_offered_ratio;
}

/**
 * Whether a verdict judges the server: generator-bound and inconclusive steps say nothing
 * about it, so knees, fits and capacity leave them out.
 */
export function isJudged(verdict: Verdict): boolean {
  return verdict !== 'generator-bound' && verdict !== 'inconclusive';
}

/**
 * Verdicts that may stand for server capacity (docs/VERDICTS.md:
 * generator-bound never does).
 */
export function isServerEvidence(verdict: Verdict): boolean {
  return verdict !== 'generator-bound';
}
