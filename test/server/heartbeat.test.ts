/**
 * heartbeatReply: the heartbeats it answers itself get, byte for byte, the frame the general
 * path writes (wire.ts replyFrame); every other form is left to the general path (null).
 */
import { describe, expect, it } from 'vitest';
import { heartbeatReply } from '../../src/server/heartbeat.js';
import { replyFrame } from '../../src/server/wire.js';

const general = (ref: string) =>
  replyFrame({ v2: true, joinRef: null, topic: 'phoenix' }, ref, 'ok', {});
const hb = (ref: string) => Buffer.from(JSON.stringify([null, ref, 'phoenix', 'heartbeat', {}]));

describe('heartbeatReply', () => {
  it('answers what phoenix.js and rtcap send exactly as the general path does', () => {
    for (const ref of [
      '5',
      '12345678',
      'hb',
      '',
      'a-b_c.d~!#$%&()*+,/:;<=>?@[]^`{|}',
      'x'.repeat(60),
    ]) {
      const fast = heartbeatReply(hb(ref));
      expect(fast, ref).not.toBeNull();
      expect(Buffer.compare(fast!, general(ref)), ref).toBe(0);
    }
    expect(heartbeatReply(hb('5'))!.subarray(2).toString()).toBe(
      '[null,"5","phoenix","phx_reply",{"status":"ok","response":{}}]',
    );
  });

  it('leaves every other form to the general path', () => {
    const others = [
      '["1","5","phoenix","heartbeat",{}]', // a join_ref
      '[null,"5","phoenix","heartbeat",{"a":1}]', // a payload
      '[null, "5", "phoenix", "heartbeat", {}]', // whitespace
      '[null,"a\\"b","phoenix","heartbeat",{}]', // an escaped quote
      '[null,"a\\\\b","phoenix","heartbeat",{}]', // an escaped backslash
      '[null,"é","phoenix","heartbeat",{}]', // not ASCII
      '[null,"\\u0041","phoenix","heartbeat",{}]', // an escape JSON would not write
      '[null,null,"phoenix","heartbeat",{}]', // no ref
      '[null,"5","realtime:x","heartbeat",{}]', // another topic
      '[null,"5","phoenix","phx_leave",{}]', // another event
      '{"topic":"phoenix","event":"heartbeat","payload":{},"ref":"5"}', // v1
      '[null,"","phoenix","heartbeat",{}', // truncated
      '',
      `[null,"${'x'.repeat(70)}","phoenix","heartbeat",{}]`, // a reply above 125 bytes
    ];
    for (const text of others) expect(heartbeatReply(Buffer.from(text)), text).toBeNull();
  });

  it('reads only its bytes: a view into a larger buffer', () => {
    const big = Buffer.concat([Buffer.from('junk'), hb('7'), Buffer.from('more')]);
    const view = big.subarray(4, big.length - 4);
    expect(Buffer.compare(heartbeatReply(view)!, general('7'))).toBe(0);
  });
});
