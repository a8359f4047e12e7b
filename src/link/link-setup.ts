/**
 * A run's emulated client link (profile `generator.link`), set up by the coordinator before the
 * generator processes start and stopped after them:
 *
 * - `netem` (root on Linux with the netem qdisc): a namespace of rtcap's own (src/link/netem.ts);
 *   the generator processes are launched inside it and dial a no-delay forwarder on the host's
 *   veth end, one per process, that forwards to the target.
 * - `relay` (anywhere, no root): one relay per generator process on 127.0.0.1 that holds every
 *   chunk for delay ± jitter each way (src/link/relay.ts). It cannot drop: `loss` is refused.
 */
import type { LinkRecord, LinkSpec } from './link-config.js';
import { linkRecord, relayProblem } from './link-config.js';
import { launcherOf, NetemLink, netemUnavailable } from './netem.js';
import { startRelayThreads, type RelayAddress, type RelayThreads } from './relay-threads.js';

export interface LinkSetup {
  record: LinkRecord;
  /** Generator process i dials via[i] instead of the target's host. */
  via: RelayAddress[];
  /** argv prefix the generator processes are launched with (empty: as usual). */
  launcher: string[];
  /** Whether the generator's source addresses apply: not inside the namespace (one address). */
  keepSourceAddresses: boolean;
  /** Stops the relays and removes the namespace. Idempotent. */
  stop(): Promise<void>;
}

/** How the link would be emulated here, or why it cannot be (one line naming the field). */
export function linkEmulationHere(spec: LinkSpec): { emulation: 'netem' | 'relay' } | string {
  const hostFact = netemUnavailable();
  if (hostFact === null) return { emulation: 'netem' };
  return relayProblem(spec, hostFact) ?? { emulation: 'relay' };
}

/**
 * Why a profile's link cannot be emulated here (one line naming the field), or null: only loss
 * can be refused (it needs netem), so a link without loss is never probed for.
 */
export function linkRefusal(spec: LinkSpec | undefined): string | null {
  if (!spec || spec.loss === 0) return null;
  const how = linkEmulationHere(spec);
  return typeof how === 'string' ? how : null;
}

/** host and port a ws:// or wss:// URL's TCP connection goes to. */
export function tcpTargetOf(socketUrl: string): { host: string; port: number } {
  const u = new URL(socketUrl);
  const host = u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname;
  const secure = u.protocol === 'wss:' || u.protocol === 'https:';
  return { host, port: u.port ? Number(u.port) : secure ? 443 : 80 };
}

export async function setUpLink(
  spec: LinkSpec,
  args: { workers: number; socketUrl: string; sourceAddresses: string[] },
): Promise<LinkSetup> {
  const how = linkEmulationHere(spec);
  if (typeof how === 'string') throw new Error(how);
  const target = tcpTargetOf(args.socketUrl);
  const record = linkRecord(spec, how.emulation);
  if (how.emulation === 'relay') {
    const relays = await startRelayThreads(args.workers, {
      listenHost: '127.0.0.1',
      target,
      delayMs: spec.delay,
      jitterMs: spec.jitter,
      sourceAddresses: args.sourceAddresses,
    });
    return {
      record,
      via: relays.addresses,
      launcher: [],
      keepSourceAddresses: true,
      ...stopOf(relays),
    };
  }
  const link = NetemLink.create(spec);
  let forwarders: RelayThreads;
  try {
    forwarders = await startRelayThreads(args.workers, {
      listenHost: link.plan.hostAddress,
      target,
      delayMs: 0,
      jitterMs: 0,
      sourceAddresses: args.sourceAddresses,
    });
  } catch (e) {
    link.destroy();
    throw e;
  }
  const stop = stopOf(forwarders).stop;
  return {
    record,
    via: forwarders.addresses,
    launcher: launcherOf(link.plan),
    keepSourceAddresses: false,
    stop: async () => {
      await stop();
      link.destroy();
    },
  };
}

function stopOf(relays: RelayThreads): { stop: () => Promise<void> } {
  let stopping: Promise<void> | null = null;
  return { stop: () => (stopping ??= relays.stop().then(() => undefined)) };
}
