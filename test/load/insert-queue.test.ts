import { describe, expect, it } from 'vitest';
import { StreamOrderedInserts } from '../../src/load/insert-queue.js';
import { InsertRecord } from '../../src/load/insert-record.js';

/** A fake query whose rows commit when the test says so, logging the order they started in. */
function fakeDatabase() {
  const started: string[] = [];
  const pending = new Map<string, { ok: () => void; fail: (e: Error) => void }>();
  const query = (_sql: string, params: unknown[]) =>
    new Promise<void>((ok, fail) => {
      const body = String(params[1]);
      started.push(body);
      pending.set(body, { ok, fail });
    });
  return { started, pending, query };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('StreamOrderedInserts', () => {
  it("a stream's rows start one after the other; other streams' rows run beside them", async () => {
    const db = fakeDatabase();
    const record = new InsertRecord(1000);
    const q = new StreamOrderedInserts(db.query, 'INSERT', record, () => 5);
    q.insert({ stream: 1, seq: 0, roomId: 0 }, '1:0', 0);
    q.insert({ stream: 1, seq: 1, roomId: 0 }, '1:1', 0);
    q.insert({ stream: 2, seq: 0, roomId: 1 }, '2:0', 0);
    await tick();
    expect(db.started).toEqual(['1:0', '2:0']);
    db.pending.get('1:0')!.fail(new Error('boom'));
    await tick();
    // The row after a failed one still goes in, and in order.
    expect(db.started).toEqual(['1:0', '2:0', '1:1']);
    db.pending.get('1:1')!.ok();
    db.pending.get('2:0')!.ok();
    await q.settled();
    expect(record.stats).toMatchObject({ sent: 2, failed: 1, late: 0 });
    expect(record.stats.errors).toEqual({ 'insert failed: boom': 1 });
  });
});
