/**
 * docs/METHOD.md §3: payload size. Public broadcast as docs/METHOD.md §1 — every connection on one
 * topic, one sender (connection 0) at a fixed rate — with one payload size per step (64 B, 1 KB, 10
 * KB, 100 KB). Expected per message: the members joined at its scheduled time, minus the sender.
 *
 * When delivery falls short, the step says which side failed (docs/METHOD.md §3: a bandwidth limit
 * shows as the sender failing to send, not as receivers losing messages): sends that did not
 * leave — scheduled but not sent, sitting in the sender's socket buffer, unacknowledged or
 * acknowledged late with load.ack — are "the server could not send"; a sender side that kept
 * up while receivers came up short is "receivers lost messages".
 */
import type { Profile } from '../profile/schema.js';
import { planBroadcastPublic } from './broadcast-public.js';
import type { Scenario, StepPlan } from './types.js';

export function planPayloadSize(profile: Profile, step: number): StepPlan {
  const plan = planBroadcastPublic(profile, step);
  const s = profile.load.steps[step];
  return {
    ...plan,
    label:
      s.label ??
      `${bytesLabel(plan.payloadBytes)} × ${s.send_rate}/s to ${plan.params.receivers} receivers`,
  };
}

/** 64 B, 1 KB, 100 KB, 1.5 MB (docs/METHOD.md §3's spelling of sizes). */
export function bytesLabel(bytes: number): string {
  const trim = (v: number) => String(Number(v.toFixed(1)));
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${trim(bytes / 1024)} KB`;
  return `${trim(bytes / (1024 * 1024))} MB`;
}

export const payloadSize: Scenario = {
  name: 'payload-size',
  seedSection: 'docs/METHOD.md §3 Payload size',
  describe:
    'public broadcast at a fixed rate and connection count, one payload size per step: delivery, fan-out span, egress MiB/s, and which side failed',
  plan: planPayloadSize,
};
