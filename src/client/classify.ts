/**
 * Failure classification, kept verbatim: what the server said stays readable,
 * and who is to blame is explicit. Generator-side limits (EMFILE, EADDRNOTAVAIL) are never
 * server failures.
 */
import { REASON } from '../protocol/constants.js';
import { FrameError } from '../protocol/frame-types.js';
import { redactHttpHead } from '../redact/redact.js';
import type { ErrorClass } from '../result/result.js';

export interface ClassifiedError {
  class: ErrorClass;
  /** One line, verbatim where the server gave words. */
  reason: string;
  /**
   * The error is a frame rtcap could not read: not a Phoenix frame (`malformed`), or a message
   * over the client's limit (`oversized`). Counted in the step's frames too
   * (generator/step-counters).
   */
  frame?: 'malformed' | 'oversized';
}

const GENERATOR_CODES = new Set([
  'EMFILE',
  'ENFILE',
  'EADDRNOTAVAIL',
  'EADDRINUSE',
  'ENOBUFS',
  'ENOMEM',
]);
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** This process's open-file limit, when known: its EMFILE reasons name the number. */
let openFilesLimit: number | null = null;

/**
 * Notes this process's open-file limit (a generator process, once, before it opens sockets:
 * reading /proc/self/limits later needs a descriptor it may no longer have).
 */
export function noteOpenFilesLimit(limit: number | null): void {
  openFilesLimit = limit !== null && Number.isFinite(limit) ? limit : null;
}

export function classifySocketError(
  err: Error & { code?: string; address?: string; port?: number },
): ClassifiedError {
  const code = err.code ?? '';
  if (GENERATOR_CODES.has(code)) {
    const what =
      code === 'EMFILE' && openFilesLimit !== null
        ? `open-file limit reached: ${openFilesLimit.toLocaleString('en-US')} per process`
        : code === 'EMFILE' || code === 'ENFILE'
          ? 'open-file limit reached'
          : code === 'EADDRNOTAVAIL' || code === 'EADDRINUSE'
            ? 'no ephemeral port left on this source address'
            : 'out of buffers';
    return { class: 'generator', reason: `generator: ${code} (${what})` };
  }
  if (NETWORK_CODES.has(code)) {
    const where = err.address ? ` ${err.address}${err.port ? `:${err.port}` : ''}` : '';
    return { class: 'network', reason: `connect ${code}${where}` };
  }
  return { class: 'network', reason: `socket error: ${oneLine(err.message)}` };
}

/**
 * A wss:// connect that failed before its TLS handshake completed: a plain ws:// server (it
 * answers the ClientHello with HTTP, or resets), an untrusted or mismatched certificate, a
 * protocol mismatch. Named as a TLS failure, never as the ECONNRESET it surfaces as.
 */
export function classifyTlsFailure(err: Error & { code?: string }): ClassifiedError {
  const code = err.code ?? '';
  if (GENERATOR_CODES.has(code)) return classifySocketError(err);
  const cls: ErrorClass =
    code === 'ECONNREFUSED' ||
    code === 'ETIMEDOUT' ||
    code === 'EHOSTUNREACH' ||
    code === 'ENETUNREACH' ||
    code === 'ENOTFOUND' ||
    code === 'EAI_AGAIN'
      ? 'network'
      : 'server';
  if (cls === 'network') return classifySocketError(err);
  const why = /wrong version number|packet length too long|http request/i.test(err.message)
    ? 'the server did not answer with TLS (a plain ws:// server?)'
    : code === 'ECONNRESET' ||
        code === 'EPIPE' ||
        /socket disconnected|socket hang up/i.test(err.message)
      ? 'the server closed the connection during the handshake (a plain ws:// server?)'
      : oneLine(err.message);
  return {
    class: cls,
    reason: `TLS handshake failed: ${why}${code && !why.includes(code) ? ` (${code})` : ''}`,
  };
}

/**
 * Said after a refusal for a missing key: which key a Supabase-style server expects and where
 * rtcap takes it from (docs/YOUR-SERVER.md).
 */
export const API_KEY_HINT =
  'the server expects an API key (the apikey query parameter or the x-api-key header): set ' +
  'target.auth.apikey (target.auth.apikey_in: query or header), or target.auth.jwt_secret to ' +
  "mint one per connection (rtcap serve's: its --jwt-secret, by default the Supabase " +
  'development secret)';

export function classifyRefusedUpgrade(status: number, body: string): ClassifiedError {
  // Header lines before they are joined: an echoed request's Cookie is hidden where it stands.
  const text = oneLine(redactHttpHead(body)).slice(0, 300);
  const hint = status === 401 && text.includes(REASON.apiKeyMissing) ? ` — ${API_KEY_HINT}` : '';
  return {
    class: 'server',
    reason: `upgrade refused: HTTP ${status}${text ? ` ${text}` : ''}${hint}`,
  };
}

/**
 * What a 1006 close is: no close frame arrived, the TCP connection just ended (RFC 6455 §7.4.1).
 */
export const DROPPED_1006 =
  'connection dropped without a close frame (1006): the server went away or the network failed';

export function classifyClose(code: number, reason: string): ClassifiedError {
  // Nobody sent a close code, so "closed by server" would blame words the server never said.
  if (code === 1006) return { class: 'network', reason: DROPPED_1006 };
  const r = oneLine(reason);
  return { class: 'server', reason: `closed by server: ${code}${r ? ` ${r}` : ''}` };
}

/**
 * A frame that does not decode as a Phoenix frame (the socket stays open): why, and its first
 * characters (of a binary frame, its size).
 */
export function classifyMalformedFrame(
  e: unknown,
  data: Buffer,
  isBinary: boolean,
): ClassifiedError {
  const why = e instanceof FrameError ? e.message : String(e);
  const sample = isBinary
    ? `<${data.length} binary bytes>`
    : oneLine(data.toString('utf8', 0, Math.min(60, data.length)));
  return { class: 'protocol', reason: `malformed frame (${why}): ${sample}`, frame: 'malformed' };
}

/** ws's codes for a message over its maxPayload, or a length it cannot even hold. */
const TOO_LARGE_CODES = new Set([
  'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH',
  'WS_ERR_UNSUPPORTED_DATA_PAYLOAD_LENGTH',
]);

/**
 * A frame from the server that ws refused (its receiver's errors carry a `WS_ERR_` code), after
 * which ws closes the connection itself (RFC 6455 §7.4.1): a message over the client's limit of
 * `limitBytes` (1009, `oversized`), or a frame that is not valid WebSocket (1002 mostly,
 * `malformed`). Named for what it is, never as a close by the server or a dropped connection.
 * null: another error.
 */
export function classifyRefusedFrame(
  err: Error & { code?: string },
  limitBytes: number,
): ClassifiedError | null {
  const code = err.code ?? '';
  if (!code.startsWith('WS_ERR_')) return null;
  if (TOO_LARGE_CODES.has(code)) {
    const limit = `${limitBytes.toLocaleString('en-US')} bytes`;
    const reason = `frame too large (1009): a message over the client's limit of ${limit} was refused and the connection closed`;
    return { class: 'protocol', reason, frame: 'oversized' };
  }
  const reason = `invalid WebSocket frame, refused and the connection closed: ${oneLine(err.message)}`;
  return { class: 'protocol', reason, frame: 'malformed' };
}

export function classifyJoinError(response: unknown): ClassifiedError {
  return { class: 'server', reason: `join refused: ${replyReason(response)}` };
}

/**
 * The reason of an error phx_reply: `{reason}` or a bare string (docs/PROTOCOL.md §4.1 ack errors),
 * else the JSON.
 */
export function replyReason(response: unknown): string {
  if (typeof response === 'string') return response;
  if (response && typeof response === 'object' && 'reason' in response) {
    const r = (response as { reason: unknown }).reason;
    return typeof r === 'string' ? r : JSON.stringify(r);
  }
  return JSON.stringify(response ?? null);
}

export function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}
