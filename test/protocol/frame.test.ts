/**
 * Golden frames: every literal frame of docs/PROTOCOL.md §2.1, §2.2, §3.2, §3.3, §4.1, §4.2, §5.2
 * and §7.3, decoded and (where the direction makes sense) encoded back to the exact string;
 * binary kinds 0–4 against hand-written byte lists, as the Phoenix client's serializer tests
 * do; and seeded encode→decode round trips.
 *
 * Where docs/PROTOCOL.md elides a payload (`{...}`, `"eyJ..."`) the literal below fills in a small
 * concrete value; everything else is copied as printed.
 */
import { describe, expect, it } from 'vitest';
import {
  binaryToFrame,
  decodeBinary,
  decodeV1,
  decodeV2,
  userBroadcastPayload,
} from '../../src/protocol/frame-decode.js';
import { decodeFrame, encodeFrame } from '../../src/protocol/frame.js';
import {
  encodeBinaryBroadcast,
  encodeBinaryPush,
  encodeBinaryReply,
  encodeUserBroadcast,
  encodeUserBroadcastPush,
} from '../../src/protocol/frame-encode.js';
import { FrameError, type BinaryFrame, type Frame } from '../../src/protocol/frame-types.js';
import { VSN_1, VSN_2 } from '../../src/protocol/constants.js';

const bytes = (...b: number[]) => Uint8Array.from(b);
const utf8 = (s: string) => new TextEncoder().encode(s);
/** The compact form of a literal printed over several lines (key order and numbers kept). */
const compact = (s: string) => JSON.stringify(JSON.parse(s));

interface Golden {
  name: string;
  text: string;
  frame: Frame;
  /** Who sends this frame; v1 encoding differs by side (§2.1). */
  from: 'client' | 'server';
}

// ------------------------------------------------------------------------------ v1 (§2.1, §4.2)

const V1_GOLDEN: Golden[] = [
  {
    name: '§2.1 client join',
    from: 'client',
    text: '{"topic":"realtime:room1","event":"phx_join","payload":{"config":{}},"ref":"1","join_ref":"1"}',
    frame: {
      joinRef: '1',
      ref: '1',
      topic: 'realtime:room1',
      event: 'phx_join',
      payload: { config: {} },
    },
  },
  {
    name: '§2.1 server join reply',
    from: 'server',
    text: '{"topic":"realtime:room1","event":"phx_reply","payload":{"status":"ok","response":{"postgres_changes":[]}},"ref":"1"}',
    frame: {
      joinRef: null,
      ref: '1',
      topic: 'realtime:room1',
      event: 'phx_reply',
      payload: { status: 'ok', response: { postgres_changes: [] } },
    },
  },
  {
    name: '§4.2 v1 broadcast delivery',
    from: 'server',
    text: '{"topic":"realtime:room1","event":"broadcast","payload":{"type":"broadcast","event":"cursor","payload":{"x":1}},"ref":null}',
    frame: {
      joinRef: null,
      ref: null,
      topic: 'realtime:room1',
      event: 'broadcast',
      payload: { type: 'broadcast', event: 'cursor', payload: { x: 1 } },
    },
  },
];

describe('v1 JSON objects (§2.1)', () => {
  for (const g of V1_GOLDEN) {
    it(`decodes ${g.name}`, () => {
      expect(decodeV1(g.text)).toEqual(g.frame);
      expect(decodeFrame(g.text, false, VSN_1, g.from)).toEqual(g.frame);
    });
    it(`encodes ${g.name} back to the literal`, () => {
      expect(encodeFrame(g.frame, VSN_1, g.from)).toBe(g.text);
    });
  }

  it('server frames never carry join_ref, even when the Frame has one', () => {
    const text = encodeFrame(
      { joinRef: '7', ref: '7', topic: 'realtime:room1', event: 'phx_close', payload: {} },
      VSN_1,
      'server',
    );
    expect(text).toBe('{"topic":"realtime:room1","event":"phx_close","payload":{},"ref":"7"}');
    expect(JSON.parse(text)).not.toHaveProperty('join_ref');
  });

  it('client frames always carry join_ref, null when there is none', () => {
    expect(
      encodeFrame(
        { joinRef: null, ref: '5', topic: 'phoenix', event: 'heartbeat', payload: {} },
        VSN_1,
        'client',
      ),
    ).toBe('{"topic":"phoenix","event":"heartbeat","payload":{},"ref":"5","join_ref":null}');
  });

  it('§10.3: the k6 scripts send numeric refs; they decode as strings', () => {
    const f = decodeV1('{"topic":"phoenix","event":"heartbeat","payload":{},"ref":0}');
    expect(f).toEqual({
      joinRef: null,
      ref: '0',
      topic: 'phoenix',
      event: 'heartbeat',
      payload: {},
    });
  });

  it.each([
    ['topic', '{"event":"e","payload":{},"ref":null}'],
    ['event', '{"topic":"t","payload":{},"ref":null}'],
    ['payload', '{"topic":"t","event":"e","ref":null}'],
    ['ref', '{"topic":"t","event":"e","payload":{}}'],
  ])('refuses a frame without "%s" (the server requires it)', (key, text) => {
    expect(() => decodeV1(text)).toThrow(FrameError);
    expect(() => decodeV1(text)).toThrow(`lacks "${key}"`);
  });

  it.each([
    'not json',
    '[null,null,"t","e",{}]',
    'null',
    '{"topic":1,"event":"e","payload":{},"ref":null}',
  ])('refuses %s', (text) => {
    expect(() => decodeV1(text)).toThrow(FrameError);
  });
});

// ------------------------------------------------------------------ v2 arrays (§2.2, §3–§7)

const V2_GOLDEN: Golden[] = [
  {
    name: '§2.2 join',
    from: 'client',
    text: '["1","1","realtime:room1","phx_join",{"config":{"private":false},"access_token":"eyJhbGciOi"}]',
    frame: {
      joinRef: '1',
      ref: '1',
      topic: 'realtime:room1',
      event: 'phx_join',
      payload: { config: { private: false }, access_token: 'eyJhbGciOi' },
    },
  },
  {
    name: '§2.2 join reply',
    from: 'server',
    text: '["1","1","realtime:room1","phx_reply",{"status":"ok","response":{"postgres_changes":[]}}]',
    frame: {
      joinRef: '1',
      ref: '1',
      topic: 'realtime:room1',
      event: 'phx_reply',
      payload: { status: 'ok', response: { postgres_changes: [] } },
    },
  },
  {
    name: '§2.2 heartbeat',
    from: 'client',
    text: '[null,"5","phoenix","heartbeat",{}]',
    frame: { joinRef: null, ref: '5', topic: 'phoenix', event: 'heartbeat', payload: {} },
  },
  {
    name: '§2.2 heartbeat reply',
    from: 'server',
    text: '[null,"5","phoenix","phx_reply",{"status":"ok","response":{}}]',
    frame: {
      joinRef: null,
      ref: '5',
      topic: 'phoenix',
      event: 'phx_reply',
      payload: { status: 'ok', response: {} },
    },
  },
  {
    name: '§2.2 broadcast fan-out',
    from: 'server',
    text: '[null,null,"realtime:room1","broadcast",{"type":"broadcast","event":"msg","payload":{"a":1}}]',
    frame: {
      joinRef: null,
      ref: null,
      topic: 'realtime:room1',
      event: 'broadcast',
      payload: { type: 'broadcast', event: 'msg', payload: { a: 1 } },
    },
  },
  {
    name: '§3.2 join reply with postgres_changes ids',
    from: 'server',
    text: `["1","1","realtime:room1","phx_reply",
 {"status":"ok","response":{"postgres_changes":[
   {"id":47392011,"event":"INSERT","schema":"public","table":"messages","filter":"room_id=eq.7"}]}}]`,
    frame: {
      joinRef: '1',
      ref: '1',
      topic: 'realtime:room1',
      event: 'phx_reply',
      payload: {
        status: 'ok',
        response: {
          postgres_changes: [
            {
              id: 47392011,
              event: 'INSERT',
              schema: 'public',
              table: 'messages',
              filter: 'room_id=eq.7',
            },
          ],
        },
      },
    },
  },
  {
    name: '§3.3 system ok',
    from: 'server',
    text: `[ "1", null, "realtime:room1", "system",
  {"extension":"postgres_changes","status":"ok","message":"Subscribed to PostgreSQL","channel":"room1"} ]`,
    frame: {
      joinRef: '1',
      ref: null,
      topic: 'realtime:room1',
      event: 'system',
      payload: {
        extension: 'postgres_changes',
        status: 'ok',
        message: 'Subscribed to PostgreSQL',
        channel: 'room1',
      },
    },
  },
  {
    name: '§3.4 access_token refresh',
    from: 'client',
    text: '["1","7","realtime:room1","access_token",{"access_token":"eyJnew"}]',
    frame: {
      joinRef: '1',
      ref: '7',
      topic: 'realtime:room1',
      event: 'access_token',
      payload: { access_token: 'eyJnew' },
    },
  },
  {
    name: '§4.1 client broadcast',
    from: 'client',
    text: '["1","3","realtime:room1","broadcast",{"type":"broadcast","event":"cursor","payload":{"x":1,"created_at":1724300000000}}]',
    frame: {
      joinRef: '1',
      ref: '3',
      topic: 'realtime:room1',
      event: 'broadcast',
      payload: { type: 'broadcast', event: 'cursor', payload: { x: 1, created_at: 1724300000000 } },
    },
  },
  {
    name: '§4.2 v2 delivery',
    from: 'server',
    text: '[null,null,"realtime:room1","broadcast",{"type":"broadcast","event":"cursor","payload":{"x":1}}]',
    frame: {
      joinRef: null,
      ref: null,
      topic: 'realtime:room1',
      event: 'broadcast',
      payload: { type: 'broadcast', event: 'cursor', payload: { x: 1 } },
    },
  },
  {
    name: '§5.1 presence track',
    from: 'client',
    text: '["1","4","realtime:room1","presence",{"type":"presence","event":"track","payload":{"user":"alice","online_at":"2026-08-01T00:00:00Z"}}]',
    frame: {
      joinRef: '1',
      ref: '4',
      topic: 'realtime:room1',
      event: 'presence',
      payload: {
        type: 'presence',
        event: 'track',
        payload: { user: 'alice', online_at: '2026-08-01T00:00:00Z' },
      },
    },
  },
  {
    name: '§5.2 presence_state',
    from: 'server',
    text: `["1",null,"realtime:room1","presence_state",
 {"user-42":{"metas":[{"phx_ref":"F-abc123","user":"alice","online_at":"..."}]}}]`,
    frame: {
      joinRef: '1',
      ref: null,
      topic: 'realtime:room1',
      event: 'presence_state',
      payload: { 'user-42': { metas: [{ phx_ref: 'F-abc123', user: 'alice', online_at: '...' }] } },
    },
  },
  {
    name: '§5.2 presence_diff',
    from: 'server',
    text: `[null,null,"realtime:room1","presence_diff",
 {"joins":{"user-42":{"metas":[{"phx_ref":"F-def456","phx_ref_prev":"F-abc123","user":"alice"}]}},
  "leaves":{"user-42":{"metas":[{"phx_ref":"F-abc123","user":"alice"}]}}}]`,
    frame: {
      joinRef: null,
      ref: null,
      topic: 'realtime:room1',
      event: 'presence_diff',
      payload: {
        joins: {
          'user-42': { metas: [{ phx_ref: 'F-def456', phx_ref_prev: 'F-abc123', user: 'alice' }] },
        },
        leaves: { 'user-42': { metas: [{ phx_ref: 'F-abc123', user: 'alice' }] } },
      },
    },
  },
  {
    name: '§7.3 postgres_changes',
    from: 'server',
    text: `[null,null,"realtime:room1","postgres_changes",
 {"ids":[47392011],
  "data":{"schema":"public","table":"messages","commit_timestamp":"2026-08-01T12:00:00.123Z",
          "type":"UPDATE","columns":[{"name":"id","type":"int8"},{"name":"body","type":"text"}],
          "record":{"id":1,"body":"new"},"old_record":{"id":1},"errors":null}}]`,
    frame: {
      joinRef: null,
      ref: null,
      topic: 'realtime:room1',
      event: 'postgres_changes',
      payload: {
        ids: [47392011],
        data: {
          schema: 'public',
          table: 'messages',
          commit_timestamp: '2026-08-01T12:00:00.123Z',
          type: 'UPDATE',
          columns: [
            { name: 'id', type: 'int8' },
            { name: 'body', type: 'text' },
          ],
          record: { id: 1, body: 'new' },
          old_record: { id: 1 },
          errors: null,
        },
      },
    },
  },
];

describe('v2 JSON arrays (§2.2)', () => {
  for (const g of V2_GOLDEN) {
    it(`decodes ${g.name}`, () => {
      expect(decodeV2(g.text)).toEqual(g.frame);
      expect(decodeFrame(g.text, false, VSN_2, g.from)).toEqual(g.frame);
      // The socket hands text over as a Buffer; the same frame comes out.
      expect(decodeFrame(Buffer.from(g.text), false, VSN_2, g.from)).toEqual(g.frame);
    });
    it(`encodes ${g.name} back to the literal`, () => {
      expect(encodeFrame(g.frame, VSN_2, g.from)).toBe(compact(g.text));
    });
  }

  it('§2.5 phx_close and phx_error carry join_ref in both ref slots', () => {
    expect(decodeV2('["3","3","realtime:room1","phx_close",{}]')).toEqual({
      joinRef: '3',
      ref: '3',
      topic: 'realtime:room1',
      event: 'phx_close',
      payload: {},
    });
    expect(
      decodeV2('["3","3","realtime:room1","phx_error",{"reason":"channel_crash"}]').payload,
    ).toEqual({ reason: 'channel_crash' });
  });

  it('accepts arrays longer than five elements, as the server does', () => {
    expect(decodeV2('[null,"1","t","e",{},"extra"]')).toEqual({
      joinRef: null,
      ref: '1',
      topic: 't',
      event: 'e',
      payload: {},
    });
  });

  it.each([
    '[null,"1","t","e"]',
    '{"topic":"t"}',
    '[null,"1",5,"e",{}]',
    '[null,"1","t",null,{}]',
    '[',
    '',
  ])('refuses %s', (text) => {
    expect(() => decodeV2(text)).toThrow(FrameError);
  });

  it('a binary frame on a vsn 1.0.0 socket is a FrameError', () => {
    expect(() =>
      decodeFrame(bytes(4, 1, 1, 0, 1, 116, 101, 123, 125), true, VSN_1, 'server'),
    ).toThrow(FrameError);
  });
});

// ---------------------------------------------------------------------- binary (§2.3)

describe('binary kind 0 push', () => {
  it('decodes the client → server layout (join_ref, ref, topic, event lengths)', () => {
    // prettier-ignore
    const buf = bytes(
      0,                    // kind push
      1, 1, 4, 2,           // join_ref_len, ref_len, topic_len, event_len
      49,                   // join_ref "1"
      50,                   // ref "2"
      114, 111, 111, 109,   // topic "room"
      101, 118,             // event "ev"
      1, 2, 3,              // raw payload
    );
    expect(decodeBinary(buf, 'client')).toEqual({
      kind: 0,
      from: 'client',
      joinRef: '1',
      ref: '2',
      topic: 'room',
      event: 'ev',
      data: bytes(1, 2, 3),
    });
    expect(
      encodeBinaryPush(
        { joinRef: '1', ref: '2', topic: 'room', event: 'ev', data: bytes(1, 2, 3) },
        'client',
      ),
    ).toEqual(buf);
    expect(decodeFrame(buf, true, VSN_2, 'client')).toEqual({
      joinRef: '1',
      ref: '2',
      topic: 'room',
      event: 'ev',
      payload: bytes(1, 2, 3),
    });
  });

  it('decodes the server → client layout, which has no ref', () => {
    // prettier-ignore
    const buf = bytes(
      0,                    // kind push
      1, 4, 2,              // join_ref_len, topic_len, event_len
      49,                   // join_ref "1"
      114, 111, 111, 109,   // topic "room"
      101, 118,             // event "ev"
      9,                    // raw payload
    );
    expect(decodeBinary(buf, 'server')).toEqual({
      kind: 0,
      from: 'server',
      joinRef: '1',
      topic: 'room',
      event: 'ev',
      data: bytes(9),
    });
    expect(
      encodeBinaryPush({ joinRef: '1', topic: 'room', event: 'ev', data: bytes(9) }, 'server'),
    ).toEqual(buf);
    expect(decodeFrame(buf, true, VSN_2, 'server')).toEqual({
      joinRef: '1',
      ref: null,
      topic: 'room',
      event: 'ev',
      payload: bytes(9),
    });
  });

  it('the side matters: server bytes read with the client layout overrun', () => {
    // The client layout reads the join_ref byte "1" (49) as the event length.
    const serverBuf = bytes(0, 1, 4, 2, 49, 114, 111, 111, 109, 101, 118, 9);
    expect(() => decodeBinary(serverBuf, 'client')).toThrow(FrameError);
  });
});

describe('binary kind 1 reply and kind 2 broadcast', () => {
  it('decodes a reply into a phx_reply with status and raw response', () => {
    // prettier-ignore
    const buf = bytes(
      1,                    // kind reply
      1, 1, 4, 2,           // join_ref_len, ref_len, topic_len, status_len
      49, 50,               // join_ref "1", ref "2"
      114, 111, 111, 109,   // topic "room"
      111, 107,             // status "ok"
      7, 8,                 // response bytes
    );
    expect(decodeBinary(buf, 'server')).toEqual({
      kind: 1,
      joinRef: '1',
      ref: '2',
      topic: 'room',
      status: 'ok',
      data: bytes(7, 8),
    });
    expect(
      encodeBinaryReply({ joinRef: '1', ref: '2', topic: 'room', status: 'ok', data: bytes(7, 8) }),
    ).toEqual(buf);
    expect(decodeFrame(buf, true, VSN_2, 'server')).toEqual({
      joinRef: '1',
      ref: '2',
      topic: 'room',
      event: 'phx_reply',
      payload: { status: 'ok', response: bytes(7, 8) },
    });
  });

  it('decodes a broadcast with null refs', () => {
    const buf = bytes(2, 4, 2, 114, 111, 111, 109, 101, 118, 255);
    expect(decodeBinary(buf, 'server')).toEqual({
      kind: 2,
      topic: 'room',
      event: 'ev',
      data: bytes(255),
    });
    expect(encodeBinaryBroadcast({ topic: 'room', event: 'ev', data: bytes(255) })).toEqual(buf);
    expect(decodeFrame(buf, true, VSN_2, 'server')).toEqual({
      joinRef: null,
      ref: null,
      topic: 'room',
      event: 'ev',
      payload: bytes(255),
    });
  });
});

describe('binary kind 3 user broadcast push (realtime-js)', () => {
  // prettier-ignore
  const KIND3 = bytes(
    3,                                                 // kind user_broadcast_push
    1, 1, 10, 5, 0, 1,                                 // lengths of join_ref…metadata; json
    49,                                                // join_ref "1"
    50,                                                // ref "2"
    114, 101, 97, 108, 116, 105, 109, 101, 58, 114,    // topic "realtime:r"
    98, 101, 110, 99, 104,                             // user_event "bench"
    123, 34, 105, 100, 34, 58, 49, 125,                // payload {"id":1}
  );

  it('encodes byte-exact against the literal', () => {
    expect(
      encodeUserBroadcastPush({
        joinRef: '1',
        ref: '2',
        topic: 'realtime:r',
        userEvent: 'bench',
        payload: { id: 1 },
      }),
    ).toEqual(KIND3);
    // Pre-encoded JSON bytes with encoding=json give the same frame.
    expect(
      encodeUserBroadcastPush({
        joinRef: '1',
        ref: '2',
        topic: 'realtime:r',
        userEvent: 'bench',
        payload: utf8('{"id":1}'),
        encoding: 1,
      }),
    ).toEqual(KIND3);
  });

  it('empty metadata is written as length 0, like realtime-js', () => {
    expect(
      encodeUserBroadcastPush({
        joinRef: '1',
        ref: '2',
        topic: 'realtime:r',
        userEvent: 'bench',
        payload: { id: 1 },
        metadata: {},
      }),
    ).toEqual(KIND3);
  });

  it('a missing join_ref or ref is an empty field', () => {
    const f = encodeUserBroadcastPush({
      joinRef: null,
      ref: null,
      topic: 't',
      userEvent: 'e',
      payload: utf8('x'),
    });
    expect(f).toEqual(bytes(3, 0, 0, 1, 1, 0, 0, 116, 101, 120));
    expect(decodeFrame(f, true, VSN_2, 'client')).toEqual({
      joinRef: null,
      ref: null,
      topic: 't',
      event: 'broadcast',
      payload: { type: 'broadcast', event: 'e', payload: utf8('x') },
    });
  });

  it('decodes to a broadcast event the server treats like a JSON broadcast', () => {
    expect(decodeBinary(KIND3, 'client')).toEqual({
      kind: 3,
      joinRef: '1',
      ref: '2',
      topic: 'realtime:r',
      userEvent: 'bench',
      metadata: null,
      encoding: 1,
      payload: utf8('{"id":1}'),
    });
    expect(decodeFrame(KIND3, true, VSN_2, 'client')).toEqual({
      joinRef: '1',
      ref: '2',
      topic: 'realtime:r',
      event: 'broadcast',
      payload: { type: 'broadcast', event: 'bench', payload: { id: 1 } },
    });
  });

  it('carries metadata when given', () => {
    const f = encodeUserBroadcastPush({
      joinRef: '1',
      ref: '2',
      topic: 't',
      userEvent: 'e',
      payload: {},
      metadata: { id: 'u1' },
    });
    // prettier-ignore
    expect(f).toEqual(bytes(
      3, 1, 1, 1, 1, 11, 1,
      49, 50, 116, 101,
      123, 34, 105, 100, 34, 58, 34, 117, 49, 34, 125,  // metadata {"id":"u1"}
      123, 125,                                         // payload {}
    ));
  });
});

describe('binary kind 4 user broadcast (server → client)', () => {
  // prettier-ignore
  const WITH_META = bytes(
    4,                                                 // kind user_broadcast
    10, 5, 11, 1,                                      // lengths: topic event metadata; json
    114, 101, 97, 108, 116, 105, 109, 101, 58, 114,    // topic "realtime:r"
    98, 101, 110, 99, 104,                             // user_event "bench"
    123, 34, 105, 100, 34, 58, 34, 117, 49, 34, 125,   // metadata {"id":"u1"}
    123, 34, 105, 100, 34, 58, 49, 125,                // payload {"id":1}
  );
  // prettier-ignore
  const NO_META = bytes(
    4, 10, 5, 0, 1,
    114, 101, 97, 108, 116, 105, 109, 101, 58, 114,
    98, 101, 110, 99, 104,
    123, 34, 105, 100, 34, 58, 49, 125,
  );

  it('decodes into the realtime-js broadcast shape with meta', () => {
    expect(decodeFrame(WITH_META, true, VSN_2, 'server')).toEqual({
      joinRef: null,
      ref: null,
      topic: 'realtime:r',
      event: 'broadcast',
      payload: { type: 'broadcast', event: 'bench', payload: { id: 1 }, meta: { id: 'u1' } },
    });
  });

  it('metadata is optional: no meta key at all without it', () => {
    const f = decodeFrame(NO_META, true, VSN_2, 'server');
    expect(f.payload).toEqual({ type: 'broadcast', event: 'bench', payload: { id: 1 } });
    expect(f.payload).not.toHaveProperty('meta');
  });

  it('encodes the same bytes', () => {
    expect(
      encodeUserBroadcast({
        topic: 'realtime:r',
        userEvent: 'bench',
        metadata: { id: 'u1' },
        payload: { id: 1 },
      }),
    ).toEqual(WITH_META);
    expect(
      encodeUserBroadcast({ topic: 'realtime:r', userEvent: 'bench', payload: { id: 1 } }),
    ).toEqual(NO_META);
  });

  it('binary-encoded payloads stay bytes', () => {
    const buf = bytes(4, 1, 1, 0, 0, 116, 101, 0, 255, 1);
    const f = decodeFrame(buf, true, VSN_2, 'server');
    expect(f.payload).toEqual({ type: 'broadcast', event: 'e', payload: bytes(0, 255, 1) });
    expect(encodeUserBroadcast({ topic: 't', userEvent: 'e', payload: bytes(0, 255, 1) })).toEqual(
      buf,
    );
  });

  it('a JSON payload that does not parse is a FrameError', () => {
    expect(() => decodeFrame(bytes(4, 1, 1, 0, 1, 116, 101, 123), true, VSN_2, 'server')).toThrow(
      FrameError,
    );
    expect(() =>
      userBroadcastPayload({ userEvent: 'e', metadata: null, encoding: 1, payload: utf8('{') }),
    ).toThrow(FrameError);
  });

  it('metadata that is not a JSON object is a FrameError', () => {
    expect(() => decodeBinary(bytes(4, 1, 1, 2, 1, 116, 101, 91, 93, 123, 125), 'server')).toThrow(
      FrameError,
    ); // "[]"
    expect(() => decodeBinary(bytes(4, 1, 1, 1, 1, 116, 101, 123, 123, 125), 'server')).toThrow(
      FrameError,
    ); // "{"
  });

  it('multi-byte UTF-8 fields are measured in bytes', () => {
    const buf = encodeUserBroadcast({ topic: 'é', userEvent: 'e', payload: bytes() });
    expect(buf).toEqual(bytes(4, 2, 1, 0, 0, 195, 169, 101));
    expect(decodeBinary(buf, 'server')).toMatchObject({ topic: 'é', userEvent: 'e' });
  });
});

describe('malformed binary frames', () => {
  it.each([
    ['empty', bytes()],
    ['kind 0 header cut', bytes(0, 1, 1)],
    ['kind 0 topic cut', bytes(0, 1, 1, 4, 2, 49, 50, 114, 111)],
    ['kind 1 status cut', bytes(1, 1, 1, 1, 2, 49, 50, 116, 111)],
    ['kind 2 header cut', bytes(2, 4)],
    ['kind 3 header cut', bytes(3, 1, 1, 1, 1, 0)],
    ['kind 3 metadata cut', bytes(3, 0, 0, 1, 1, 5, 1, 116, 101, 123, 125)],
    ['kind 4 topic cut', bytes(4, 10, 5, 0, 1, 114, 101)],
  ])('%s throws FrameError', (_name, buf) => {
    expect(() => decodeBinary(buf, 'client')).toThrow(FrameError);
    expect(() => decodeBinary(buf, 'server')).toThrow(FrameError);
  });

  it.each([5, 6, 123, 255])('unknown kind %i throws FrameError', (kind) => {
    expect(() => decodeBinary(bytes(kind, 0, 0, 0, 0, 0, 0), 'server')).toThrow(FrameError);
    expect(() => decodeBinary(bytes(kind, 0, 0, 0, 0, 0, 0), 'server')).toThrow(`kind ${kind}`);
  });
});

describe('fields over 255 bytes are refused', () => {
  const long = 'a'.repeat(256);
  const longUtf8 = 'é'.repeat(128); // 128 characters, 256 bytes
  const ok = 'a'.repeat(255);

  it('255 bytes is the maximum and fits', () => {
    const f = encodeUserBroadcastPush({
      joinRef: ok,
      ref: ok,
      topic: ok,
      userEvent: ok,
      payload: {},
    });
    expect(decodeBinary(f, 'client')).toMatchObject({
      joinRef: ok,
      ref: ok,
      topic: ok,
      userEvent: ok,
    });
  });

  it.each([
    [
      'kind 3 topic',
      () =>
        encodeUserBroadcastPush({
          joinRef: '1',
          ref: '1',
          topic: long,
          userEvent: 'e',
          payload: {},
        }),
    ],
    [
      'kind 3 topic in multi-byte characters',
      () =>
        encodeUserBroadcastPush({
          joinRef: '1',
          ref: '1',
          topic: longUtf8,
          userEvent: 'e',
          payload: {},
        }),
    ],
    [
      'kind 3 join_ref',
      () =>
        encodeUserBroadcastPush({
          joinRef: long,
          ref: '1',
          topic: 't',
          userEvent: 'e',
          payload: {},
        }),
    ],
    [
      'kind 3 ref',
      () =>
        encodeUserBroadcastPush({
          joinRef: '1',
          ref: long,
          topic: 't',
          userEvent: 'e',
          payload: {},
        }),
    ],
    [
      'kind 3 user event',
      () =>
        encodeUserBroadcastPush({
          joinRef: '1',
          ref: '1',
          topic: 't',
          userEvent: long,
          payload: {},
        }),
    ],
    [
      'kind 3 metadata',
      () =>
        encodeUserBroadcastPush({
          joinRef: '1',
          ref: '1',
          topic: 't',
          userEvent: 'e',
          payload: {},
          metadata: { k: long },
        }),
    ],
    ['kind 4 topic', () => encodeUserBroadcast({ topic: long, userEvent: 'e', payload: {} })],
    [
      'kind 4 metadata',
      () => encodeUserBroadcast({ topic: 't', userEvent: 'e', payload: {}, metadata: { k: long } }),
    ],
    [
      'kind 0 event',
      () =>
        encodeBinaryPush(
          { joinRef: '1', ref: '1', topic: 't', event: long, data: bytes() },
          'client',
        ),
    ],
    [
      'kind 1 status',
      () => encodeBinaryReply({ joinRef: '1', ref: '1', topic: 't', status: long, data: bytes() }),
    ],
    ['kind 2 topic', () => encodeBinaryBroadcast({ topic: long, event: 'e', data: bytes() })],
  ])('%s', (_name, encode) => {
    expect(encode).toThrow(FrameError);
    expect(encode).toThrow('longer than 255 bytes');
  });
});

describe('agreement with the realtime-js serializer (devDependency)', () => {
  type RtSerializer = {
    encode(msg: unknown, cb: (r: ArrayBuffer | string) => unknown): unknown;
    decode(raw: ArrayBuffer | string, cb: (r: unknown) => unknown): unknown;
  };
  async function realtimeJs(): Promise<RtSerializer> {
    // A CommonJS module: the class is `default`, possibly wrapped once more by the interop.
    const mod = (await import('@supabase/realtime-js/dist/main/lib/serializer.js')) as {
      default: unknown;
    };
    const d = mod.default as { default?: unknown };
    const Ctor = (typeof d === 'function' ? d : d.default) as new () => RtSerializer;
    return new Ctor();
  }
  const toArrayBuffer = (u: Uint8Array) => u.slice().buffer;

  it('realtime-js sends the same kind-3 bytes rtcap sends', async () => {
    const s = await realtimeJs();
    const theirs = s.encode(
      {
        join_ref: '1',
        ref: '2',
        topic: 'realtime:r',
        event: 'broadcast',
        payload: { type: 'broadcast', event: 'bench', payload: { id: 1, s: 2, t: 3.5 } },
      },
      (r) => r,
    ) as ArrayBuffer;
    const ours = encodeUserBroadcastPush({
      joinRef: '1',
      ref: '2',
      topic: 'realtime:r',
      userEvent: 'bench',
      payload: { id: 1, s: 2, t: 3.5 },
    });
    expect(new Uint8Array(theirs)).toEqual(ours);
  });

  it('realtime-js decodes rtcap-encoded kind 4 to the Frame rtcap decodes', async () => {
    const s = await realtimeJs();
    for (const metadata of [null, { replayed: true, id: 'u1' }]) {
      const buf = encodeUserBroadcast({
        topic: 'realtime:r',
        userEvent: 'bench',
        metadata,
        payload: { id: 1 },
      });
      const theirs = s.decode(toArrayBuffer(buf), (r) => r) as {
        join_ref: null;
        ref: null;
        topic: string;
        event: string;
        payload: unknown;
      };
      const ours = decodeFrame(buf, true, VSN_2, 'server');
      expect({
        joinRef: theirs.join_ref,
        ref: theirs.ref,
        topic: theirs.topic,
        event: theirs.event,
        payload: theirs.payload,
      }).toEqual(ours);
    }
  });
});

// ------------------------------------------------------------------------- round trips

/** mulberry32: a tiny seeded PRNG so every run generates the same frames. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ALPHABET = ['a', 'z', '0', ':', '_', '-', ' ', '"', '\\', '\n', 'é', '中', '😀', '{', ']'];

function gen(seed: number) {
  const r = rng(seed);
  const int = (n: number) => Math.floor(r() * n);
  const str = (max: number) =>
    Array.from({ length: int(max + 1) }, () => ALPHABET[int(ALPHABET.length)]).join('');
  const ref = () => (r() < 0.3 ? null : String(int(100_000)));
  const json = (depth: number): unknown => {
    const k = int(depth > 2 ? 4 : 6);
    if (k === 0) return int(2_000_000) - 1_000_000;
    if (k === 1) return str(12);
    if (k === 2) return r() < 0.5;
    if (k === 3) return null;
    if (k === 4) return Array.from({ length: int(4) }, () => json(depth + 1));
    const o: Record<string, unknown> = {};
    for (let i = int(4); i > 0; i--) o[str(6)] = json(depth + 1);
    return o;
  };
  const obj = () => {
    const o: Record<string, unknown> = {};
    for (let i = int(4); i > 0; i--) o[str(6)] = json(1);
    return o;
  };
  const raw = () => Uint8Array.from({ length: int(40) }, () => int(256));
  return { r, int, str, ref, json, obj, raw };
}

const N = 300;

describe('round trips over generated frames', () => {
  it(`v1 and v2 text: ${N} frames decode to what was encoded`, () => {
    const g = gen(1);
    for (let i = 0; i < N; i++) {
      const f: Frame = {
        joinRef: g.ref(),
        ref: g.ref(),
        topic: g.str(20),
        event: g.str(10),
        payload: g.json(0),
      };
      expect(decodeFrame(encodeFrame(f, VSN_2, 'client'), false, VSN_2, 'server')).toEqual(f);
      expect(decodeFrame(encodeFrame(f, VSN_1, 'client'), false, VSN_1, 'server')).toEqual(f);
      // Server-side v1 drops join_ref (§2.1).
      expect(decodeFrame(encodeFrame(f, VSN_1, 'server'), false, VSN_1, 'client')).toEqual({
        ...f,
        joinRef: null,
      });
    }
  });

  it(`binary kinds 0–4: ${N} frames each decode to what was encoded`, () => {
    const g = gen(2);
    for (let i = 0; i < N; i++) {
      const joinRef = g.str(8);
      const ref = g.str(8);
      const topic = g.str(40);
      const event = g.str(12);
      const data = g.raw();

      const push = encodeBinaryPush({ joinRef, ref, topic, event, data }, 'client');
      expect(decodeBinary(push, 'client')).toEqual({
        kind: 0,
        from: 'client',
        joinRef,
        ref,
        topic,
        event,
        data,
      });
      const serverPush = encodeBinaryPush({ joinRef, topic, event, data }, 'server');
      expect(decodeBinary(serverPush, 'server')).toEqual({
        kind: 0,
        from: 'server',
        joinRef,
        topic,
        event,
        data,
      });
      const reply = encodeBinaryReply({ joinRef, ref, topic, status: event, data });
      expect(decodeBinary(reply, 'server')).toEqual({
        kind: 1,
        joinRef,
        ref,
        topic,
        status: event,
        data,
      });
      expect(decodeBinary(encodeBinaryBroadcast({ topic, event, data }), 'server')).toEqual({
        kind: 2,
        topic,
        event,
        data,
      });

      const metadata = g.r() < 0.5 ? null : { id: g.str(10), replayed: g.r() < 0.5 };
      const binaryPayload = g.r() < 0.3;
      const value = g.obj();
      const payload = binaryPayload ? data : value;
      const expectedBytes = binaryPayload ? data : utf8(JSON.stringify(value));
      const encoding = binaryPayload ? 0 : 1;

      const k3 = encodeUserBroadcastPush({
        joinRef,
        ref,
        topic,
        userEvent: event,
        metadata,
        payload,
      });
      const d3 = decodeBinary(k3, 'client') as Extract<BinaryFrame, { kind: 3 }>;
      expect(d3).toEqual({
        kind: 3,
        joinRef,
        ref,
        topic,
        userEvent: event,
        metadata,
        encoding,
        payload: expectedBytes,
      });

      const k4 = encodeUserBroadcast({ topic, userEvent: event, metadata, payload });
      const d4 = decodeBinary(k4, 'server') as Extract<BinaryFrame, { kind: 4 }>;
      expect(d4).toEqual({
        kind: 4,
        topic,
        userEvent: event,
        metadata,
        encoding,
        payload: expectedBytes,
      });
      const frame = binaryToFrame(d4);
      expect(frame.payload).toEqual({
        type: 'broadcast',
        event,
        payload: binaryPayload ? data : value,
        ...(metadata ? { meta: metadata } : {}),
      });
    }
  });
});
