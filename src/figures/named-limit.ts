/**
 * A limit of this machine that rtcap measured in a step (the server's or the generator's open
 * files, ports, a memory cgroup) is the step's first reason, in the words its capacity row uses
 * (model/limit limitWords: "environment limit: server process open-file limit 20,000"), so the
 * step, the headline and the row name it alike — not only "1,020 connections failed".
 */
import type { StepResult } from '../result/result.js';
import { limitWords } from '../model/limit.js';
import { isIncompleteReason } from '../model/format.js';
import { limitOfStep, type StepLimitContext } from '../model/step-limit.js';
import { DEFAULT_SAFE_LINES } from '../model/capacity-row.js';

/** `step` with its environment limit, when it met one, named first among its own reasons. */
export function withLimitNamed(step: StepResult, ctx: Omit<StepLimitContext, 'safe'>): StepResult {
  if (step.verdict === 'stable' || step.verdict === 'inconclusive') return step;
  const limit = limitOfStep(step, { ...ctx, safe: DEFAULT_SAFE_LINES });
  if (limit.kind !== 'environment') return step;
  const words = limitWords(limit, { remedy: false });
  if (step.verdict_reasons.includes(words)) return step;
  const reasons = [...step.verdict_reasons];
  const at = reasons.findIndex((r) => !isIncompleteReason(r));
  reasons.splice(at < 0 ? reasons.length : at, 0, words);
  return { ...step, verdict_reasons: reasons };
}
