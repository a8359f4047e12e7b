import { describe, expect, it } from 'vitest';
import { planPayloadSize } from '../../src/scenarios/payload-size.js';
import { profileFrom } from '../support/profiles.js';
import { fakeCollected, fakeContext } from '../support/step-context.js';
import {
  failureSide,
  senderSideEvidence,
  type SenderSideInput,
  payloadSizeExtra,
} from '../../src/figures/extra-payload-size.js';

describe('which side failed (§3)', () => {
  const ok: SenderSideInput = {
    expected: 495,
    received: 495,
    scheduled: 5,
    sent: 5,
    ackEnabled: true,
    acked: 5,
    ackP95Ms: 3,
    sloP95Ms: 200,
    sendBufferPeakBytes: 0,
    payloadBytes: 102_400,
  };

  it('says nothing when everything arrived', () => {
    expect(failureSide(ok)).toBeNull();
    expect(senderSideEvidence(ok)).toEqual([]);
  });

  it('receivers lost messages when the sender side kept up', () => {
    expect(failureSide({ ...ok, received: 400 })).toBe('receivers-lost');
  });

  it('the server could not send: sends not made, not acknowledged, acked late, or stuck in the socket', () => {
    expect(failureSide({ ...ok, received: 297, sent: 3 })).toBe('server-could-not-send');
    expect(senderSideEvidence({ ...ok, sent: 3 })).toEqual([
      'only 3 of 5 scheduled messages were sent',
    ]);
    expect(senderSideEvidence({ ...ok, acked: 3 })).toEqual(['only 3 of 5 sends acknowledged']);
    expect(senderSideEvidence({ ...ok, ackP95Ms: 5222 })).toEqual([
      'acks late: p95 5,222 ms > SLO 200 ms',
    ]);
    expect(senderSideEvidence({ ...ok, sendBufferPeakBytes: 307_200 })).toEqual([
      "307,200 bytes waited in the sender's socket (the server was not reading)",
    ]);
    // Less than two messages' worth is a blip, not a backlog.
    expect(senderSideEvidence({ ...ok, sendBufferPeakBytes: 150_000 })).toEqual([]);
    // Without ack, missing acks are no evidence.
    expect(senderSideEvidence({ ...ok, ackEnabled: false, acked: 0, ackP95Ms: null })).toEqual([]);
  });

  it('fills the extra from what the processes collected', () => {
    const q = profileFrom({
      name: 'ps',
      scenario: 'payload-size',
      load: {
        ack: true,
        steps: [{ connections: 100, send_rate: 5, duration: '1s', payload_bytes: 102_400 }],
      },
    });
    const collected = [
      fakeCollected({ sendStats: { scheduled: 5 }, acks: { ok: 3 }, sendBufferPeakBytes: 409_600 }),
    ];
    const e = payloadSizeExtra(
      fakeContext({
        profile: q,
        plan: planPayloadSize(q, 0),
        collected,
        figures: { sent: 5, expected: 495, received: 297 },
        ackLatencyMs: [4000, 5000, 5222],
      }),
    );
    expect(e.failure_side).toBe('server-could-not-send');
    expect(e.send_buffer_peak_bytes).toBe(409_600);
    expect((e.ack_latency_ms as { p50: number }).p50).toBeGreaterThan(3900);
    expect(e.sender_evidence).toHaveLength(3);
  });
});
