/**
 * How a connection's WebSocket is opened: the options rtcap gives `ws` for every socket
 * (no compression, no UTF-8 validation, no redirects) and, for wss://, ws's own TLS connect
 * plus the moment the TLS handshake completes, so a failure before it can be told apart as a
 * TLS failure (client/classify's classifyTlsFailure); the relay of an emulated client link
 * (src/link) the TCP connection goes to instead of the URL's host, when given; and what a
 * refused upgrade said.
 */
import { connect as tlsConnect, type ConnectionOptions as TlsConnectionOptions } from 'node:tls';
import { connect as netConnect, isIP, type NetConnectOpts } from 'node:net';
import WebSocket from 'ws';

export interface ConnectOptions {
  url: string;
  headers: Record<string, string>;
  localAddress?: string;
  handshakeTimeoutMs: number;
  /** wss:// trust and client certificate (target.tls). */
  tls?: TlsOptions;
  /**
   * Where the TCP connection goes instead of the URL's host and port: an emulated link's relay
   * (src/link). The URL still decides the Host header, TLS server name and certificate check.
   */
  via?: { host: string; port: number };
  /**
   * Phoenix dialect: the event a delivery comes as (target.receive_event), quoted as on the wire
   * (protocol/frame-event quotedEvent); a stamped text frame of another event (a push's reply
   * carrying the pushed payload) is not a delivery. Absent: every stamped frame is one.
   */
  deliveryEvent?: Uint8Array;
}

export interface TlsOptions {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  /** false: accept any server certificate (target.tls.insecure). */
  rejectUnauthorized: boolean;
}

/**
 * The largest message accepted (ws's own default for clients, set explicitly so rtcap's own
 * frame reader uses the same).
 */
export const MAX_PAYLOAD_BYTES = 100 * 1024 * 1024;

/**
 * A new WebSocket to `opts.url` (throws what ws's constructor throws, e.g. on a bad URL).
 * `onTlsUp` runs when a wss:// socket's TLS handshake completes; never for ws://.
 */
export function openSocket(opts: ConnectOptions, onTlsUp: () => void): WebSocket {
  const secure = opts.url.startsWith('wss:');
  const via = opts.via;
  return new WebSocket(opts.url, {
    headers: opts.headers,
    localAddress: opts.localAddress,
    handshakeTimeout: opts.handshakeTimeoutMs,
    perMessageDeflate: false,
    skipUTF8Validation: true,
    maxPayload: MAX_PAYLOAD_BYTES,
    followRedirects: false,
    ...(secure
      ? {
          ...(opts.tls ?? {}),
          // ws's own tlsConnect, plus the moment the handshake completes.
          createConnection: (o: TlsConnectionOptions & { path?: string; host?: string }) => {
            o.path = undefined;
            if (!o.servername && o.servername !== '')
              o.servername = o.host && isIP(o.host) ? '' : o.host;
            const socket = tlsConnect(via ? { ...o, ...via } : o);
            socket.once('secureConnect', onTlsUp);
            return socket;
          },
        }
      : via
        ? {
            // An emulated link's relay: the TCP connection goes there, the URL stays the server's.
            createConnection: (o: NetConnectOpts) =>
              netConnect({ ...o, ...via, path: undefined } as NetConnectOpts),
          }
        : {}),
  } as WebSocket.ClientOptions);
}

/** The longest part of a refused upgrade's body kept (its start says why). */
const REFUSAL_BODY_CHARS = 2048;

/**
 * Calls `refused` with the status and body of an upgrade the server refused (an HTTP answer
 * instead of 101), verbatim (docs/PROTOCOL.md §1.5), once the body is read or failed; the
 * request is destroyed right after.
 */
export function onRefusedUpgrade(
  ws: WebSocket,
  refused: (status: number, body: string) => void,
): void {
  ws.on('unexpected-response', (req, res) => {
    let body = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      if (body.length < REFUSAL_BODY_CHARS) body += chunk;
    });
    const done = () => {
      refused(res.statusCode ?? 0, body);
      req.destroy();
    };
    res.on('end', done);
    res.on('error', done);
  });
}
