import { describe, expect, it } from 'vitest';
import { writeOnlyProfile as p } from '../support/scenario-profiles.js';
import { planWriteOnly } from '../../src/scenarios/write-only.js';
import type { TimeseriesPoint } from '../../src/result/timeseries-point.js';
import { profileFrom } from '../support/profiles.js';
import { fakeCollected, fakeContext } from '../support/step-context.js';
import { stopReason, type StopInput, writeOnlyExtra } from '../../src/figures/extra-write-only.js';

describe('where sends stop', () => {
  const ok: StopInput = {
    scheduled: 300,
    sent: 300,
    sendFailed: 0,
    unsent: 0,
    ackEnabled: true,
    acked: 300,
    unacked: 0,
    ackErrors: 0,
    topAckError: null,
    topOtherError: null,
    ackP95Ms: 2,
    sloP95Ms: 200,
    sendBufferPeakBytes: 0,
    payloadBytes: 64,
  };
  it('is null while every send is made and acknowledged in time', () => {
    expect(stopReason(ok)).toBeNull();
  });
  it('names the first sign that applies', () => {
    expect(stopReason({ ...ok, unsent: 12 })).toBe(
      'the generator fell a whole window behind and gave up on 12 of 300 sends',
    );
    expect(stopReason({ ...ok, sendFailed: 3, topOtherError: 'closed by server: 1006' })).toBe(
      '3 sends failed (socket not open): closed by server: 1006',
    );
    expect(
      stopReason({ ...ok, ackErrors: 4, topAckError: 'ack error: payload_size_exceeded' }),
    ).toBe('4 sends refused: ack error: payload_size_exceeded');
    expect(stopReason({ ...ok, acked: 250, unacked: 50 })).toBe(
      '50 of 300 sends never acknowledged',
    );
    expect(stopReason({ ...ok, sendBufferPeakBytes: 2_000_000 })).toBe(
      'sender socket buffer peaked at 2,000,000 bytes: the server was not reading',
    );
    expect(stopReason({ ...ok, ackP95Ms: 812.4 })).toBe('acks late: p95 812.4 ms > SLO 200 ms');
  });

  it('fills acked/s over the steady window and the stop reason', () => {
    const plan = planWriteOnly(p, 1);
    const collected = [
      fakeCollected({ sendStats: { scheduled: 300 }, acks: { ok: 240, unacked: 60 }, errors: {} }),
    ];
    // Acks by ack time in the three steady seconds.
    const steadySeconds = [70, 80, 90].map((acked, i) => ({
      point: { t: i, acked_per_s: acked } as TimeseriesPoint,
      workers: [],
      server: null,
    }));
    const e = writeOnlyExtra(
      fakeContext({
        profile: p,
        plan,
        collected,
        figures: { sent: 300 },
        ackLatencyMs: [1, 2, 3],
        steadySeconds,
      }),
    );
    expect(e).toEqual({
      senders: 6,
      acked_per_s: 80,
      stop_reason: '60 of 300 sends never acknowledged',
    });
    const noAck = profileFrom({
      name: 'w',
      scenario: 'write-only',
      load: { steps: [{ connections: 1, send_rate: 1, duration: 1 }] },
    });
    expect(
      writeOnlyExtra(
        fakeContext({ profile: noAck, plan: planWriteOnly(noAck, 0), figures: { sent: 1 } }),
      ).acked_per_s,
    ).toBeNull();
  });
});
