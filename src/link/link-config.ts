/**
 * An emulated client link (profile `generator.link`): the one-way delay every chunk of every
 * generator connection is held for in each direction, the jitter around it, and the share of
 * packets lost. How it was emulated — the kernel's netem qdisc on a veth pair of rtcap's own
 * namespace, or a userspace relay (src/link/relay.ts) that can delay but not drop — is recorded
 * with it in result.json (`generator.link`).
 */
import type { LinkRecord } from '../result/result.js';

export type { LinkRecord };

/** The link as the profile asks for it (profile schema `generator.link`, parsed). */
export interface LinkSpec {
  /** One-way delay, each direction (ms). */
  delay: number;
  /** Spread around the delay, each direction: uniform in delay ± jitter (ms). */
  jitter: number;
  /** Packets lost, each direction (percent, 0–100). */
  loss: number;
}

/** How a link is put in the generator's path. */
export type LinkEmulation = LinkRecord['emulation'];

export function linkRecord(spec: LinkSpec, emulation: LinkEmulation): LinkRecord {
  return { delay_ms: spec.delay, jitter_ms: spec.jitter, loss_pct: spec.loss, emulation };
}

/**
 * Why a link cannot be emulated without netem (the relay cannot drop), or null; `hostFact` is
 * why this host has no netem (src/link/netem netemUnavailable: "not root (…)").
 */
export function relayProblem(spec: LinkSpec, hostFact: string): string | null {
  if (spec.loss === 0) return null;
  return `generator.link.loss: needs the kernel's netem qdisc, which this host cannot give: ${hostFact}; loss on TCP cannot be emulated faithfully in userspace, delay and jitter can`;
}

/** Why a link spec is inconsistent, or null: jitter larger than the delay would go below zero. */
export function specProblem(spec: LinkSpec): string | null {
  return spec.jitter > spec.delay
    ? `generator.link.jitter: ${spec.jitter} ms is more than the delay (${spec.delay} ms); a chunk cannot arrive before it was sent`
    : null;
}

/** One line for the log: "50 ms ± 5 ms each way, no loss (relay)". */
export function describeLink(r: LinkRecord): string {
  const jitter = r.jitter_ms ? ` ± ${r.jitter_ms} ms` : '';
  const loss = r.loss_pct ? `, ${r.loss_pct} % loss` : ', no loss';
  const how =
    r.emulation === 'netem'
      ? "netem on a veth pair of rtcap's own namespace"
      : 'a userspace relay per generator process';
  return `${r.delay_ms} ms${jitter} each way${loss} (${how})`;
}
