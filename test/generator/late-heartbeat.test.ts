import { describe, expect, it } from 'vitest';
import { classifyClose, DROPPED_1006 } from '../../src/client/classify.js';
import { LATE_HEARTBEAT, nameLateHeartbeatClose } from '../../src/generator/late-heartbeat.js';
import { isServerSaid } from '../../src/model/step-limit.js';

describe("a server's close while the generator owed it a heartbeat", () => {
  const idle = classifyClose(1000, '');

  it("is the generator's when a gap between heartbeats passed 1.5 intervals", () => {
    const named = nameLateHeartbeatClose(idle, 37_501, 25_000);
    expect(named).toEqual({
      class: 'generator',
      reason: `${LATE_HEARTBEAT} (due every 25 s; this generator's event loop held it): closed by server: 1000`,
    });
    // Never quoted as the server's rejection.
    expect(isServerSaid(named.reason)).toBe(false);
    expect(isServerSaid(idle.reason)).toBe(true);
  });

  it("stays the server's while heartbeats kept their interval", () => {
    expect(nameLateHeartbeatClose(idle, 37_500, 25_000)).toBe(idle);
    expect(nameLateHeartbeatClose(idle, 0, 25_000)).toBe(idle);
  });

  it('names only closes: no other error, and no dropped connection without a close frame', () => {
    const refused = { class: 'server' as const, reason: 'phx_error: boom' };
    expect(nameLateHeartbeatClose(refused, 90_000, 25_000)).toBe(refused);
    const dropped = classifyClose(1006, '');
    expect(dropped.reason).toBe(DROPPED_1006);
    expect(nameLateHeartbeatClose(dropped, 90_000, 25_000)).toBe(dropped);
  });

  it('keeps the reason the same for every connection of a run, whatever its own gap', () => {
    const a = nameLateHeartbeatClose(classifyClose(1000, 'idle'), 40_000, 25_000);
    const b = nameLateHeartbeatClose(classifyClose(1000, 'idle'), 90_000, 25_000);
    expect(a.reason).toBe(b.reason);
    expect(a.reason).toMatch(/: closed by server: 1000 idle$/);
    expect(nameLateHeartbeatClose(idle, 3_001, 2_000).reason).toContain('due every 2 s');
  });
});
