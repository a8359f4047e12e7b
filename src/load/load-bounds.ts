/**
 * Loads no run can offer, refused before anything starts (exit 2) and warned by `rtcap validate`:
 * a payload larger than one WebSocket frame may carry, sends or joins due closer together than
 * the generator's schedule can pace, deliveries beyond what this host's generator cores can read.
 * Each bound is stated with the number asked and the bound, in one line. Pure: plans in, a
 * sentence out.
 */
import { MAX_FRAME_BYTES } from '../protocol/constants.js';
import type { StepPlan } from '../scenarios/types.js';

/**
 * Events (sends, joins) per second the open-model schedule can pace: above it consecutive events
 * are due less than 1 µs apart, below the resolution of the clock the schedule, the sends and
 * the latency are measured with (measure/clock).
 */
export const MAX_PACED_PER_S = 1_000_000;
/**
 * The generator's marginal CPU per delivery read (docs/PERFORMANCE.md "CPU per delivery": 11.26
 * µs): a generator core reads at most 1 s ÷ this many deliveries per second, whatever else it does.
 */
export const CPU_US_PER_DELIVERY = 11.26;

const n = (x: number) => Math.round(x).toLocaleString('en-US');

/** Why step `plan` asks what no run can offer, or null. */
function stepBeyond(plan: StepPlan, cores: number): string | null {
  const at = `step ${plan.step + 1}`;
  if (plan.payloadBytes > MAX_FRAME_BYTES)
    return `${at}: load.payload_bytes ${n(plan.payloadBytes)} is over the ${n(MAX_FRAME_BYTES)}-byte WebSocket frame limit (docs/PROTOCOL.md): one message is one frame`;
  const sends = (plan.broadcasts?.ratePerS ?? 0) + (plan.presence?.ratePerS ?? 0);
  if (sends > MAX_PACED_PER_S)
    return `${at}: ${n(sends)} messages/s is over the ${n(MAX_PACED_PER_S)}/s the generator's schedule can pace (sends due under 1 µs apart, below its clock's resolution)`;
  if (plan.joinRatePerS > MAX_PACED_PER_S)
    return `${at}: join_rate ${n(plan.joinRatePerS)}/s is over the ${n(MAX_PACED_PER_S)}/s the generator's schedule can pace (joins due under 1 µs apart, below its clock's resolution)`;
  const deliveries = plan.params.deliveries_per_s_target;
  const most = (cores * 1e6) / CPU_US_PER_DELIVERY;
  if (typeof deliveries === 'number' && deliveries > most)
    return `${at}: ${n(deliveries)} deliveries/s is over the ${n(most)}/s this machine's ${cores} generator core${cores === 1 ? '' : 's'} can read (${CPU_US_PER_DELIVERY} µs of CPU per delivery, docs/PERFORMANCE.md)`;
  return null;
}

/**
 * The first step that asks what no run can offer, in one line, or null. `cores`: the generator's
 * cores on this machine; `segments`: machines the run is split over (each reads its share).
 */
export function loadBeyondBounds(
  plans: readonly StepPlan[],
  cores: number,
  segments = 1,
): string | null {
  for (const plan of plans) {
    const why = stepBeyond(plan, cores * Math.max(1, segments));
    if (why) return why;
  }
  return null;
}
