import { describe, expect, it } from 'vitest';
import { encodeFrame } from '../../src/protocol/frame.js';
import { frameEventIs, quotedEvent } from '../../src/protocol/frame-event.js';
import { VSN_1, VSN_2, type Vsn } from '../../src/protocol/constants.js';

const stamp = { id: 3, s: 7, t: 1700000000000.5, p: 'xx' };
const frame = (
  vsn: Vsn,
  event: string,
  payload: unknown,
  topic = 'room:bench',
  ref: string | null = null,
) => Buffer.from(encodeFrame({ joinRef: null, ref, topic, event, payload }, vsn, 'server'));

describe('frameEventIs', () => {
  for (const vsn of [VSN_1, VSN_2] as Vsn[]) {
    it(`reads the envelope's event of a ${vsn} frame, not a word of its payload`, () => {
      const q = quotedEvent('new_msg');
      expect(frameEventIs(frame(vsn, 'new_msg', stamp), vsn, q)).toBe(true);
      expect(frameEventIs(frame(vsn, 'broadcast', stamp), vsn, q)).toBe(false);
      // A push's reply handing the stamped payload back.
      const reply = frame(vsn, 'phx_reply', { status: 'ok', response: stamp }, 'room:bench', '5');
      expect(frameEventIs(reply, vsn, q)).toBe(false);
      expect(frameEventIs(reply, vsn, quotedEvent('phx_reply'))).toBe(true);
      // A topic with quotes and commas in it, and an event that is a prefix of another.
      const odd = frame(vsn, 'new_msg_2', stamp, 'room:"a,b"', '12');
      expect(frameEventIs(odd, vsn, q)).toBe(false);
      expect(frameEventIs(odd, vsn, quotedEvent('new_msg_2'))).toBe(true);
    });
  }

  it('reads hand-written frames whatever their spacing, and refuses what is not an envelope', () => {
    const q = quotedEvent('broadcast');
    expect(frameEventIs(Buffer.from('[ null , "1" , "t" , "broadcast" , {}]'), VSN_2, q)).toBe(
      true,
    );
    expect(
      frameEventIs(Buffer.from('{"topic":"t", "event" : "broadcast","payload":{}}'), VSN_1, q),
    ).toBe(true);
    expect(frameEventIs(Buffer.from('{"payload":{},"topic":"t"}'), VSN_1, q)).toBe(false);
    expect(frameEventIs(Buffer.from('[null,"1",{"x":1},"broadcast",{}]'), VSN_2, q)).toBe(false);
    expect(frameEventIs(Buffer.from('[null,"1","t"'), VSN_2, q)).toBe(false);
  });
});
