import { describe, expect, it } from 'vitest';
import type { Connection } from '../../src/client/connection.js';
import { StepSends } from '../../src/generator/step-sends.js';
import { newStepCounters } from '../../src/generator/step-counters.js';
import { profileFrom } from '../support/profiles.js';
import { FakeConnection } from './support/fake-connection.js';

const profile = (target: Record<string, unknown>) =>
  profileFrom({
    name: 'step-sends-test',
    scenario: 'broadcast-public',
    target: { url: 'ws://127.0.0.1:4000/socket/websocket', ...target },
    load: { steps: [{ connections: 2, duration: 1 }] },
  });

function sendsOf(target: Record<string, unknown>) {
  const s = new StepSends(5_000, () => undefined);
  s.beginStep(profile(target), 64, newStepCounters());
  return s;
}

const closed = { class: 'server' as const, reason: 'closed by server: 1011' };
const named = 'closed by server: 1011 right after its first binary broadcast push';

describe('StepSends.nameClose: a server that cannot read binary broadcast frames', () => {
  it("names a close within a second of the connection's first binary push", () => {
    const s = sendsOf({ vsn: '2.0.0', dialect: 'supabase' });
    const c = new FakeConnection(0) as unknown as Connection;
    const quiet = new FakeConnection(1) as unknown as Connection;
    expect(s.send(c, 'realtime:bench', 0, 'broadcast', 0, 0, 0)).toBe(true);
    const sentAt = s.firstBinaryPushOf(c)!;
    expect(s.nameClose(c, closed, sentAt + 5).reason).toBe(named);
    expect(s.nameClose(c, closed, sentAt + 2_000)).toBe(closed);
    expect(s.nameClose(quiet, closed, sentAt + 5)).toBe(closed);
    const reset = { class: 'network' as const, reason: 'ECONNRESET' };
    expect(s.nameClose(c, reset, sentAt + 5)).toBe(reset);
  });

  it('leaves closes alone when broadcasts go as JSON text frames', () => {
    for (const target of [
      { vsn: '2.0.0', dialect: 'supabase', binary_broadcast: false },
      { vsn: '1.0.0', dialect: 'supabase' },
    ]) {
      const s = sendsOf(target);
      const c = new FakeConnection(0) as unknown as Connection;
      expect(s.send(c, 'realtime:bench', 0, 'broadcast', 0, 0, 0)).toBe(true);
      expect(s.firstBinaryPushOf(c)).toBeUndefined();
    }
  });

  it('a push that could not be made is no first push', () => {
    const s = sendsOf({ vsn: '2.0.0', dialect: 'supabase' });
    const f = new FakeConnection(0);
    f.canPush = false;
    const c = f as unknown as Connection;
    expect(s.send(c, 'realtime:bench', 0, 'broadcast', 0, 0, 0)).toBe(false);
    expect(s.firstBinaryPushOf(c)).toBeUndefined();
  });
});
