import { describe, expect, it } from 'vitest';
import {
  giveUpAtMs,
  runTraffic,
  type TrafficRun,
  type TrafficTag,
} from '../../src/generator/traffic-driver.js';
import type { ConnectionTraffic } from '../../src/scenarios/types.js';
import { FakePacer } from '../support/fake-pacer.js';

const traffic = (count: number, ratePerS: number, conns: number): ConnectionTraffic => ({
  count,
  ratePerS,
  senderOf: (k) => ({ conn: k % conns, stream: k % conns, seq: Math.floor(k / conns) }),
});

function run(p: FakePacer, over: Partial<TrafficRun> = {}) {
  const sent: Array<[TrafficTag, number, number, number, number]> = [];
  let done = 0;
  const stats = { scheduled: 0, unsent: 0 };
  runTraffic(p, {
    startMs: 0,
    durationMs: 1000,
    loops: [{ traffic: traffic(10, 10, 2), tag: 'broadcast' }],
    mine: () => true,
    send: (tag, conn, stream, seq, due) => {
      sent.push([tag, conn, stream, seq, due]);
      return true;
    },
    stats,
    cancelled: () => false,
    done: () => done++,
    ...over,
  });
  p.run();
  return { sent, stats, done: () => done };
}

describe('runTraffic', () => {
  it('sends each message of its own senders at its due time and is done once', () => {
    const p = new FakePacer(0);
    const r = run(p, { mine: (c) => c === 1 });
    expect(r.sent.map((s) => s[4])).toEqual([100, 300, 500, 700, 900]);
    expect(r.sent.every((s) => s[1] === 1 && s[0] === 'broadcast')).toBe(true);
    expect(r.stats).toEqual({ scheduled: 5, unsent: 0 });
    expect(r.done()).toBe(1);
  });

  it('runs broadcasts and presence together and is done when both are', () => {
    const p = new FakePacer(0);
    const r = run(p, {
      loops: [
        { traffic: traffic(4, 10, 1), tag: 'broadcast' },
        { traffic: traffic(2, 5, 1), tag: 'presence' },
      ],
    });
    expect(r.sent.filter((s) => s[0] === 'broadcast')).toHaveLength(4);
    expect(r.sent.filter((s) => s[0] === 'presence')).toHaveLength(2);
    expect(r.done()).toBe(1);
  });

  it('with no traffic it is done at once', () => {
    const p = new FakePacer(0);
    const r = run(p, { loops: [{ traffic: traffic(0, 10, 1), tag: 'broadcast' }] });
    expect(r.sent).toEqual([]);
    expect(r.done()).toBe(1);
  });

  it('a process hopelessly behind gives up and counts the rest of its own as unsent', () => {
    const p = new FakePacer(0);
    const dues: number[] = [];
    const r = run(p, {
      loops: [{ traffic: traffic(10, 1, 1), tag: 'broadcast' }],
      send: (_tag, _conn, _stream, _seq, due) => {
        dues.push(due);
        p.t += 1500; // each send blocks for 1.5 s
        return true;
      },
    });
    expect(giveUpAtMs(0, 1000)).toBe(3000);
    // Sends 0..2 (due 0..2000) went out late; the third ended at 4500 ms, past the give-up time,
    // so the loop stopped there and 3..9 are unsent.
    expect(dues).toEqual([0, 1000, 2000]);
    expect(r.stats).toEqual({ scheduled: 10, unsent: 7 });
    expect(r.done()).toBe(1);
  });

  it('stops without being done when the step is over', () => {
    const p = new FakePacer(0);
    let n = 0;
    const r = run(p, { send: () => ++n > 0, cancelled: () => n >= 3 });
    expect(n).toBe(3);
    expect(r.done()).toBe(0);
  });
});
