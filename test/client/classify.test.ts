import { describe, expect, it } from 'vitest';
import { FrameError } from '../../src/protocol/frame-types.js';
import {
  classifyClose,
  classifyJoinError,
  classifyMalformedFrame,
  classifyRefusedFrame,
  API_KEY_HINT,
  classifyRefusedUpgrade,
  classifySocketError,
  noteOpenFilesLimit,
  oneLine,
  replyReason,
} from '../../src/client/classify.js';

const sysErr = (code: string, extra: Record<string, unknown> = {}) =>
  Object.assign(new Error(`${code} something`), { code, ...extra });

describe('classifySocketError', () => {
  it.each([
    ['EMFILE', 'open-file limit reached'],
    ['ENFILE', 'open-file limit reached'],
    ['EADDRNOTAVAIL', 'no ephemeral port left on this source address'],
    ['EADDRINUSE', 'no ephemeral port left on this source address'],
    ['ENOBUFS', 'out of buffers'],
  ])('%s is the generator’s own limit, never the server’s', (code, what) => {
    expect(classifySocketError(sysErr(code, { address: '127.0.0.1', port: 4000 }))).toEqual({
      class: 'generator',
      reason: `generator: ${code} (${what})`,
    });
  });

  it("EMFILE names this process's open-file limit once it was noted", () => {
    noteOpenFilesLimit(1024);
    try {
      expect(classifySocketError(sysErr('EMFILE')).reason).toBe(
        'generator: EMFILE (open-file limit reached: 1,024 per process)',
      );
      expect(classifySocketError(sysErr('ENFILE')).reason).toBe(
        'generator: ENFILE (open-file limit reached)',
      );
      noteOpenFilesLimit(Infinity);
      expect(classifySocketError(sysErr('EMFILE')).reason).toBe(
        'generator: EMFILE (open-file limit reached)',
      );
    } finally {
      noteOpenFilesLimit(null);
    }
  });

  it('ECONNREFUSED names the address and port', () => {
    expect(
      classifySocketError(sysErr('ECONNREFUSED', { address: '127.0.0.1', port: 4000 })),
    ).toEqual({
      class: 'network',
      reason: 'connect ECONNREFUSED 127.0.0.1:4000',
    });
  });

  it('network codes without an address', () => {
    expect(classifySocketError(sysErr('ECONNRESET'))).toEqual({
      class: 'network',
      reason: 'connect ECONNRESET',
    });
    expect(classifySocketError(sysErr('ENOTFOUND', { address: 'nowhere.invalid' }))).toEqual({
      class: 'network',
      reason: 'connect ENOTFOUND nowhere.invalid',
    });
  });

  it('anything else keeps its message on one line', () => {
    expect(classifySocketError(new Error('Opening handshake has timed out\n  at x'))).toEqual({
      class: 'network',
      reason: 'socket error: Opening handshake has timed out at x',
    });
  });
});

describe('classifyRefusedUpgrade', () => {
  it('keeps status and body verbatim, on one line (§1.5)', () => {
    expect(classifyRefusedUpgrade(401, '{"error":"Unauthorized"}')).toEqual({
      class: 'server',
      reason: 'upgrade refused: HTTP 401 {"error":"Unauthorized"}',
    });
    expect(classifyRefusedUpgrade(429, '{\n  "error": "Too many connected users"\n}\n')).toEqual({
      class: 'server',
      reason: 'upgrade refused: HTTP 429 { "error": "Too many connected users" }',
    });
  });

  it('an echoed request head keeps its lines but not the values of its credential headers', () => {
    const echoed =
      'GET /socket/websocket?vsn=1.0.0 HTTP/1.1\r\nHost: rt.example\r\nCookie: sb=COOKSEC1\r\n' +
      'X-Api-Token: XTOKSEC2\r\nUser-Agent: rtcap\r\n\r\n';
    const { reason } = classifyRefusedUpgrade(401, echoed);
    expect(reason).toBe(
      'upgrade refused: HTTP 401 GET /socket/websocket?vsn=1.0.0 HTTP/1.1 Host: rt.example ' +
        'Cookie: *** X-Api-Token: *** User-Agent: rtcap',
    );
    expect(reason).not.toMatch(/COOKSEC1|XTOKSE/);
  });

  it('a missing API key says which key the server expects and where rtcap takes it from', () => {
    expect(classifyRefusedUpgrade(401, '{"error":"API key is missing"}')).toEqual({
      class: 'server',
      reason: `upgrade refused: HTTP 401 {"error":"API key is missing"} — ${API_KEY_HINT}`,
    });
    expect(API_KEY_HINT).toMatch(
      /target\.auth\.apikey \(target\.auth\.apikey_in: query or header\)/,
    );
    expect(API_KEY_HINT).toMatch(/target\.auth\.jwt_secret/);
  });

  it('a bare status when there is no body (older servers: bare 403)', () => {
    expect(classifyRefusedUpgrade(403, '')).toEqual({
      class: 'server',
      reason: 'upgrade refused: HTTP 403',
    });
  });

  it('caps a long body', () => {
    const r = classifyRefusedUpgrade(500, 'x'.repeat(5000)).reason;
    expect(r.length).toBeLessThan(350);
    expect(r.startsWith('upgrade refused: HTTP 500 xxx')).toBe(true);
  });
});

describe('classifyClose', () => {
  it('1006 (no close frame, the TCP connection just ended) is the network', () => {
    expect(classifyClose(1006, '')).toEqual({
      class: 'network',
      reason:
        'connection dropped without a close frame (1006): the server went away or the network failed',
    });
  });
  it.each([
    [1000, 'heartbeat timeout'],
    [1001, ''],
    [1011, 'internal error'],
    [1012, 'Service Restart'],
  ])('%i is the server', (code, reason) => {
    expect(classifyClose(code, reason)).toEqual({
      class: 'server',
      reason: `closed by server: ${code}${reason ? ` ${reason}` : ''}`,
    });
  });
  it('a reason over several lines becomes one', () => {
    expect(classifyClose(1000, 'a\nb')).toEqual({
      class: 'server',
      reason: 'closed by server: 1000 a b',
    });
  });
});

describe('frames rtcap could not read', () => {
  it("a malformed frame says why and shows its start (a binary one's size)", () => {
    const text = Buffer.from(`not json {\n${'z'.repeat(100)}`);
    expect(classifyMalformedFrame(new FrameError('not JSON'), text, false)).toEqual({
      class: 'protocol',
      reason: `malformed frame (not JSON): not json { ${'z'.repeat(49)}`,
      frame: 'malformed',
    });
    const bin = Buffer.from([9, 1, 2]);
    expect(
      classifyMalformedFrame(new FrameError('unknown binary frame kind 9'), bin, true),
    ).toEqual({
      class: 'protocol',
      reason: 'malformed frame (unknown binary frame kind 9): <3 binary bytes>',
      frame: 'malformed',
    });
  });

  it.each(['WS_ERR_UNSUPPORTED_MESSAGE_LENGTH', 'WS_ERR_UNSUPPORTED_DATA_PAYLOAD_LENGTH'])(
    'ws refusing a message over its limit (%s) is "frame too large (1009)", with the limit',
    (code) => {
      const err = Object.assign(new RangeError('Max payload size exceeded'), { code });
      expect(classifyRefusedFrame(err, 104_857_600)).toEqual({
        class: 'protocol',
        reason:
          "frame too large (1009): a message over the client's limit of 104,857,600 bytes was refused and the connection closed",
        frame: 'oversized',
      });
    },
  );

  it("ws refusing an invalid frame keeps ws's words; any other error is not a refused frame", () => {
    const err = Object.assign(new RangeError('Invalid WebSocket frame: invalid opcode 3'), {
      code: 'WS_ERR_INVALID_OPCODE',
    });
    expect(classifyRefusedFrame(err, 1000)).toEqual({
      class: 'protocol',
      reason:
        'invalid WebSocket frame, refused and the connection closed: Invalid WebSocket frame: invalid opcode 3',
      frame: 'malformed',
    });
    expect(classifyRefusedFrame(sysErr('ECONNRESET'), 1000)).toBeNull();
    expect(classifyRefusedFrame(new Error('no code'), 1000)).toBeNull();
  });
});

describe('reply reasons', () => {
  it('{reason} (join errors, §3.2) verbatim', () => {
    expect(replyReason({ reason: 'ChannelRateLimitReached: Too many channels' })).toBe(
      'ChannelRateLimitReached: Too many channels',
    );
    expect(classifyJoinError({ reason: 'unmatched topic' })).toEqual({
      class: 'server',
      reason: 'join refused: unmatched topic',
    });
  });
  it('a bare string (ack errors, §4.1)', () => {
    expect(replyReason('payload_size_exceeded')).toBe('payload_size_exceeded');
  });
  it('anything else as JSON', () => {
    expect(replyReason({})).toBe('{}');
    expect(replyReason({ code: 1, message: 'x' })).toBe('{"code":1,"message":"x"}');
    expect(replyReason({ reason: { nested: true } })).toBe('{"nested":true}');
    expect(replyReason(null)).toBe('null');
    expect(replyReason(undefined)).toBe('null');
  });
});

describe('oneLine', () => {
  it('collapses whitespace runs and trims', () => {
    expect(oneLine('  a\r\n\tb   c \n')).toBe('a b c');
  });
});
