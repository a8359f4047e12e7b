import { describe, expect, it } from 'vitest';
import { SERVER_WENT_AWAY, brokenReasons, wentAwayReason } from '../../src/model/verdict-broken.js';
import type { VerdictSlo } from '../../src/model/verdict-input.js';
import { healthyVerdictInput } from '../fixtures/index.js';

const slo: VerdictSlo = { p95_ms: 200, delivery_rate: 1 };
const broken = (o: Parameters<typeof healthyVerdictInput>[0], s = slo) =>
  brokenReasons(healthyVerdictInput(o), s);

describe('brokenReasons', () => {
  it('a step that delivered everything: none', () => {
    expect(broken({})).toEqual([]);
  });

  it('messages, sends, tracks, joins, sockets and server-side errors, in that order', () => {
    expect(
      broken({
        delivery_rate: 0.9,
        messages_lost: 10,
        acks: { unacked: 1, errors: 2, untracked: 0 },
        presence_tracks: { unanswered: 1, untracked: 0 },
        connections_failed: 3,
        connections_disconnected: 4,
        error_classes: { server: 1, network: 2, generator: 0, protocol: 0 },
      }),
    ).toEqual([
      'delivery 90.00% < SLO 100% (10 lost)',
      '1 send never acknowledged',
      '2 sends refused (ack error)',
      '1 presence track never answered',
      '3 connections failed or were rejected',
      '4 connections disconnected',
      '1 server-class error',
      '2 network-class errors',
    ]);
  });

  it('failed joins within the SLO share pass; below it they break', () => {
    const s = { ...slo, join_success: 0.9 };
    expect(broken({ connections_failed: 5, connections_target: 100 }, s)).toEqual([]);
    expect(broken({ connections_failed: 20, connections_target: 100 }, s)).toEqual([
      'joins 80.00% succeeded < SLO 90.00% (20 failed or rejected)',
    ]);
  });

  it('senders closed right after their first binary push come first, with what to set', () => {
    const closed = 'closed by server: 1011 right after its first binary broadcast push';
    const advice = 'set target.binary_broadcast: false or target.vsn: "1.0.0"';
    const input = {
      delivery_rate: 0,
      messages_lost: 9,
      connections_disconnected: 1,
      error_classes: { server: 1, network: 0, generator: 0, protocol: 0 },
      errors: { [closed]: 1 },
    };
    expect(broken(input)).toEqual([
      `the server closed a sender right after its first binary broadcast push (it cannot read binary frames): ${advice}`,
      'delivery 0.00% < SLO 100% (9 lost)',
      '1 connections disconnected',
      '1 server-class error',
    ]);
    expect(broken({ ...input, errors: { [closed]: 2, 'closed by server: 1011': 1 } })[0]).toBe(
      `the server closed 2 senders right after their first binary broadcast push (it cannot read binary frames): ${advice}`,
    );
    expect(broken({ ...input, errors: { 'closed by server: 1011': 1 } })[0]).toBe(
      'delivery 0.00% < SLO 100% (9 lost)',
    );
  });

  it('lost messages break only when every message must arrive', () => {
    expect(broken({ messages_lost: 2 })).toEqual(['2 messages lost']);
    expect(broken({ messages_lost: 2 }, { ...slo, delivery_rate: 0.99 })).toEqual([]);
  });
});

describe('wentAwayReason', () => {
  const drop = 'connection dropped without a close frame (1006): the server went away';
  it('half the joined connections dropped without a close frame: the server went away', () => {
    const input = healthyVerdictInput({
      connections_joined: 10,
      connections_disconnected: 5,
      errors: { [drop]: 5 },
    });
    expect(wentAwayReason(input)).toBe(
      `${SERVER_WENT_AWAY}: 5 of 10 connections dropped without a close frame (1006)`,
    );
    expect(wentAwayReason({ ...input, errors: { [drop]: 4 } })).toBeNull();
    expect(wentAwayReason({ ...input, connections_disconnected: 0 })).toBeNull();
  });
});
