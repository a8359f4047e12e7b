/**
 * A stand-in for client/connection's Connection in unit tests of the generator's parts: it
 * records what it was asked to do (closes, heartbeats, join expiries, pushes) and holds the
 * same member state the receive path writes.
 */
import type { ConnectionState } from '../../../src/client/connection.js';
import { newMemberState } from '../../../src/measure/member-state.js';

export class FakeConnection {
  state: ConnectionState = 'idle';
  readonly member = newMemberState();
  openedAtMs = 0;
  readonly closes: Array<{ code: number; reason: string }> = [];
  heartbeats = 0;
  /** Whether its last heartbeat awaits a reply (the scheduler then defers it). */
  heartbeatAwaited = false;
  readonly joinExpiries: Array<{ nowMs: number; timeoutMs: number }> = [];
  readonly pushes: Array<{ topic: string; event: string; payload: unknown }> = [];
  /** What push() answers (false: the socket cannot send). */
  canPush = true;

  constructor(readonly index: number) {}

  close(code: number, reason: string): void {
    this.closes.push({ code, reason });
    this.state = 'closed';
  }

  heartbeat(): void {
    this.heartbeats++;
  }

  expireJoins(nowMs: number, timeoutMs: number): number {
    this.joinExpiries.push({ nowMs, timeoutMs });
    return 0;
  }

  push(topic: string, event: string, payload: unknown): boolean {
    this.pushes.push({ topic, event, payload });
    return this.canPush;
  }
}
