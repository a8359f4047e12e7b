/**
 * The bench stamp: scanStamp finds {id, s, t} in raw frames of every encoding without a JSON
 * parse; StampEncoder pads payloads to the profile's size.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readStamp, scanStamp, StampEncoder, type Stamp } from '../../src/protocol/stamp.js';
import { encodeFrame } from '../../src/protocol/frame.js';
import { encodeUserBroadcast } from '../../src/protocol/frame-encode.js';
import { VSN_1, VSN_2 } from '../../src/protocol/constants.js';

const scan = (data: string | Uint8Array): Stamp | false => {
  const out: Stamp = { id: -1, stream: -1, sentAtMs: -1 };
  const buf =
    typeof data === 'string'
      ? Buffer.from(data)
      : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return scanStamp(buf, out) ? { ...out } : false;
};

const T = 1724300000123.456;

describe('scanStamp on the three encodings', () => {
  const inner = { id: 7, s: 3, t: T, p: 'xxxx' };
  const envelope = { type: 'broadcast', event: 'bench', payload: inner };

  it('v1 JSON object delivery', () => {
    const text = encodeFrame(
      { joinRef: null, ref: null, topic: 'realtime:bench', event: 'broadcast', payload: envelope },
      VSN_1,
      'server',
    );
    expect(scan(text)).toEqual({ id: 7, stream: 3, sentAtMs: T });
  });

  it('v2 JSON array delivery', () => {
    const text = encodeFrame(
      { joinRef: null, ref: null, topic: 'realtime:bench', event: 'broadcast', payload: envelope },
      VSN_2,
      'server',
    );
    expect(scan(text)).toEqual({ id: 7, stream: 3, sentAtMs: T });
  });

  it('v2 binary kind 4 delivery', () => {
    expect(
      scan(encodeUserBroadcast({ topic: 'realtime:bench', userEvent: 'bench', payload: inner })),
    ).toEqual({ id: 7, stream: 3, sentAtMs: T });
  });

  it('phoenix dialect: the stamp is the whole payload', () => {
    expect(scan('[null,null,"room:lobby","new_msg",{"id":12,"s":0,"t":1000.5}]')).toEqual({
      id: 12,
      stream: 0,
      sentAtMs: 1000.5,
    });
  });

  it('kind 4 with metadata carrying its own "id" (DB-originated or replayed messages, §4.2)', () => {
    const buf = encodeUserBroadcast({
      topic: 'realtime:bench',
      userEvent: 'bench',
      metadata: { replayed: true, id: '5f0c-uuid' },
      payload: inner,
    });
    expect(scan(buf)).toEqual({ id: 7, stream: 3, sentAtMs: T });
  });

  it('v2 text with meta sorted before payload, as Jason orders keys', () => {
    const text = `[null,null,"realtime:bench","broadcast",{"event":"bench","meta":{"id":"5f0c-uuid"},"payload":{"id":9,"p":"xx","s":1,"t":2000.25},"type":"broadcast"}]`;
    expect(scan(text)).toEqual({ id: 9, stream: 1, sentAtMs: 2000.25 });
  });
});

describe('scanStamp key order and number forms', () => {
  it.each([
    ['Jason sorted keys', '{"id":5,"p":"xxx","s":2,"t":1500.125}'],
    ['insertion order', '{"id":5,"s":2,"t":1500.125,"p":"xxx"}'],
    ['reversed', '{"p":"xxx","t":1500.125,"s":2,"id":5}'],
    ['t first', '{"t":1500.125,"id":5,"s":2}'],
    ['spaces after the colons', '{"id": 5, "s": 2, "t": 1500.125}'],
  ])('%s', (_name, payload) => {
    expect(
      scan(
        `[null,null,"realtime:r","broadcast",{"type":"broadcast","event":"e","payload":${payload}}]`,
      ),
    ).toEqual({
      id: 5,
      stream: 2,
      sentAtMs: 1500.125,
    });
  });

  it('keeps sub-millisecond precision of epoch-ms times', () => {
    expect(scan(`{"id":1,"s":0,"t":${T}}`)).toEqual({ id: 1, stream: 0, sentAtMs: T });
    expect(scan('{"id":1,"s":0,"t":1724300000123}')).toEqual({
      id: 1,
      stream: 0,
      sentAtMs: 1724300000123,
    });
    expect(scan('{"id":1,"s":0,"t":0.001}')).toEqual({ id: 1, stream: 0, sentAtMs: 0.001 });
  });

  it('a negative stream is read as negative', () => {
    expect(scan('{"id":1,"s":-4,"t":10}')).toEqual({ id: 1, stream: -4, sentAtMs: 10 });
  });

  it('an absent stream is stream 0', () => {
    expect(scan('{"id":1,"t":10}')).toEqual({ id: 1, stream: 0, sentAtMs: 10 });
  });

  it('a stream that is not a number is stream 0', () => {
    expect(scan('{"id":1,"s":"a","t":10}')).toEqual({ id: 1, stream: 0, sentAtMs: 10 });
  });

  it.each([
    ['1.7e12', 1.7e12],
    ['1.7E12', 1.7e12],
    ['1.724300000123456e+12', 1724300000123.456],
    ['17243e8', 17243e8],
  ])('exponent form t=%s takes the slow path', (t, value) => {
    expect(scan(`{"id":3,"s":1,"t":${t}}`)).toEqual({ id: 3, stream: 1, sentAtMs: value });
    expect(scan(`{"id":3,"s":1,"t":${t},"p":"x"}`)).toEqual({ id: 3, stream: 1, sentAtMs: value });
    expect(scan(`[null,null,"r","e",{"id":3,"s":1,"t":${t}}]`)).toEqual({
      id: 3,
      stream: 1,
      sentAtMs: value,
    });
  });
});

describe('scanStamp on frames without a stamp', () => {
  it.each([
    ['heartbeat reply', '[null,"5","phoenix","phx_reply",{"status":"ok","response":{}}]'],
    [
      'v1 heartbeat reply',
      '{"topic":"phoenix","event":"phx_reply","payload":{"status":"ok","response":{}},"ref":"5"}',
    ],
    [
      'join reply with postgres_changes ids',
      '["1","1","realtime:room1","phx_reply",{"status":"ok","response":{"postgres_changes":[{"id":47392011,"event":"INSERT","schema":"public","table":"messages"}]}}]',
    ],
    [
      'presence_state',
      '["1",null,"realtime:room1","presence_state",{"user-42":{"metas":[{"phx_ref":"F-abc123","user":"alice","online_at":"..."}]}}]',
    ],
    [
      'presence_diff',
      '[null,null,"realtime:room1","presence_diff",{"joins":{"u":{"metas":[{"phx_ref":"F-def456","phx_ref_prev":"F-abc123"}]}},"leaves":{}}]',
    ],
    [
      'postgres_changes',
      '[null,null,"realtime:room1","postgres_changes",{"ids":[47392011],"data":{"schema":"public","table":"messages","commit_timestamp":"2026-08-01T12:00:00.123Z","type":"UPDATE","columns":[{"name":"id","type":"int8"}],"record":{"id":1,"body":"new"},"old_record":{"id":1},"errors":null}}]',
    ],
    [
      'system',
      '["1",null,"realtime:room1","system",{"extension":"system","status":"error","message":"Too many messages per second","channel":"room1"}]',
    ],
    [
      'broadcast without a stamp',
      '[null,null,"realtime:room1","broadcast",{"type":"broadcast","event":"cursor","payload":{"x":1}}]',
    ],
    ['t that is not a number', '{"id":1,"s":0,"t":"soon"}'],
    ['t null', '{"id":1,"s":0,"t":null}'],
    ['id that is not a number', '{"id":"abc","s":0,"t":10}'],
    ['t without id', '{"s":0,"t":10}'],
    ['empty', ''],
  ])('%s → false', (_name, text) => {
    expect(scan(text)).toBe(false);
  });

  it('leaves the output untouched when it returns false', () => {
    const out: Stamp = { id: 1, stream: 2, sentAtMs: 3 };
    expect(scanStamp(Buffer.from('{"id":"abc","s":9,"t":10}'), out)).toBe(false);
    expect(out).toEqual({ id: 1, stream: 2, sentAtMs: 3 });
  });
});

describe('readStamp (decoded payloads)', () => {
  it('reads a bare stamp and the Supabase envelope', () => {
    expect(readStamp({ id: 1, s: 2, t: 3 })).toEqual({ id: 1, stream: 2, sentAtMs: 3 });
    expect(readStamp({ type: 'broadcast', event: 'e', payload: { id: 1, t: 3 } })).toEqual({
      id: 1,
      stream: 0,
      sentAtMs: 3,
    });
  });
  it('null when there is none', () => {
    expect(readStamp(null)).toBeNull();
    expect(readStamp('x')).toBeNull();
    expect(readStamp({ status: 'ok', response: {} })).toBeNull();
    expect(readStamp({ id: '1', t: 3 })).toBeNull();
  });
});

describe('StampEncoder', () => {
  afterEach(() => vi.restoreAllMocks());

  const minimum = (id: number, s: number, t: number) => JSON.stringify({ id, s, t }).length;

  it('pads to exactly payloadBytes for every size from the minimum with padding upward', () => {
    const cases: Array<[number, number, number]> = [
      [0, 0, 1724300000000],
      [123456, 7, T],
      [9, 1_000_003, 1724300000123.5],
    ];
    for (const [id, s, t] of cases) {
      const withEmptyPad = minimum(id, s, t) + ',"p":""'.length;
      for (let size = withEmptyPad; size < withEmptyPad + 200; size++) {
        const p = new StampEncoder(size).payload(id, s, t);
        expect(JSON.stringify(p).length, `size ${size}`).toBe(size);
        expect(Buffer.byteLength(JSON.stringify(p)), `size ${size}`).toBe(size);
      }
    }
  });

  it.each([64, 1024, 100_000])(
    'a %i-byte payload is that many bytes of JSON and scans back',
    (size) => {
      const enc = new StampEncoder(size);
      for (const [id, t] of [
        [0, 1724300000000],
        [99, T],
        [100_000, 1724300000999.999],
      ]) {
        const p = enc.payload(id, 42, t);
        const json = JSON.stringify(p);
        expect(json.length).toBe(size);
        expect(scan(json)).toEqual({ id, stream: 42, sentAtMs: t });
        expect(
          scan(encodeUserBroadcast({ topic: 'realtime:bench', userEvent: 'bench', payload: p })),
        ).toEqual({ id, stream: 42, sentAtMs: t });
      }
    },
  );

  it('below the minimum it sends the bare stamp', () => {
    const p = new StampEncoder(1).payload(1, 2, 3);
    expect(p).toEqual({ id: 1, s: 2, t: 3 });
  });

  it('rounds the time to microseconds', () => {
    expect(new StampEncoder(1).payload(1, 0, 1724300000123.4568).t).toBe(1724300000123.457);
  });

  it('reuses its padding while the size of the other fields does not change', () => {
    const enc = new StampEncoder(1000);
    const repeat = vi.spyOn(String.prototype, 'repeat');
    for (let id = 10; id < 100; id++) enc.payload(id, 1, 1724300000000 + id);
    expect(repeat).toHaveBeenCalledTimes(1);
    // One more digit in the id: one new padding, one byte shorter.
    const a = enc.payload(99, 1, 1724300000000).p as string;
    const b = enc.payload(100, 1, 1724300000000).p as string;
    expect(repeat).toHaveBeenCalledTimes(2);
    expect(b.length).toBe(a.length - 1);
  });
});
