/**
 * How one generator connection dials the target: the URL with the token as the `apikey`
 * query parameter (or an `x-api-key` header, target.auth.apikey_in), the process's source
 * address for its index (beyond the ephemeral port range: generator/limits), and TLS.
 */
import type { ConnectOptions, TlsOptions } from '../client/socket-open.js';
import { quotedEvent } from '../protocol/frame-event.js';

export interface DialTarget {
  url: string;
  headers: Record<string, string>;
  apikeyIn: 'query' | 'header';
  /** Loopback source addresses this process spreads its connections over; empty: the OS picks. */
  sourceAddresses: string[];
  handshakeTimeoutMs: number;
  tls: TlsOptions | undefined;
  /** An emulated link's relay every connection dials instead of the URL's host (src/link). */
  via?: { host: string; port: number };
  /** Phoenix dialect: target.receive_event, as ConnectOptions.deliveryEvent carries it. */
  deliveryEvent?: Uint8Array;
}

/** The target as the coordinator's init message gives it to a generator process. */
export function dialTargetOf(m: {
  url: string;
  headers: Record<string, string>;
  sourceAddresses: string[];
  tls?: TlsOptions;
  tokens: { apikeyIn: 'query' | 'header' };
  profile: { target: { join_timeout: number; dialect?: string; receive_event?: string } };
  via?: { host: string; port: number };
}): DialTarget {
  const t = m.profile.target;
  return {
    url: m.url,
    headers: m.headers,
    apikeyIn: m.tokens.apikeyIn,
    sourceAddresses: m.sourceAddresses,
    handshakeTimeoutMs: m.profile.target.join_timeout,
    tls: m.tls,
    ...(m.via ? { via: m.via } : {}),
    ...(t.dialect === 'phoenix' && t.receive_event
      ? { deliveryEvent: quotedEvent(t.receive_event) }
      : {}),
  };
}

/**
 * Connect options of connection `index`; `owners` processes share the indexes (the process's
 * k-th connection, index ÷ owners, picks its source address round-robin).
 */
export function dialOptions(
  t: DialTarget,
  index: number,
  owners: number,
  token: string | null,
): ConnectOptions {
  const headers = { ...t.headers };
  let url = t.url;
  if (token && t.apikeyIn === 'header') headers['x-api-key'] = token;
  else if (token) url += (url.includes('?') ? '&' : '?') + 'apikey=' + encodeURIComponent(token);
  const n = t.sourceAddresses.length;
  const localAddress = n ? t.sourceAddresses[Math.floor(index / owners) % n] : undefined;
  return {
    url,
    headers,
    localAddress,
    handshakeTimeoutMs: t.handshakeTimeoutMs,
    tls: t.tls,
    ...(t.via ? { via: t.via } : {}),
    ...(t.deliveryEvent ? { deliveryEvent: t.deliveryEvent } : {}),
  };
}
