import { describe, expect, it } from 'vitest';
import { InsertRecord } from '../../src/load/insert-record.js';

describe('InsertRecord', () => {
  it('a committed row is sent (late past the threshold); a refused one failed, its reason kept', () => {
    const r = new InsertRecord(100);
    r.committed(3, 0, 1000, 1050);
    r.committed(3, 1, 1100, 1300);
    r.failed(3, 2, 1200, new Error('duplicate key'));
    expect(r.stats).toMatchObject({ sent: 2, late: 1, failed: 1 });
    expect(r.stats.errors).toEqual({ 'insert failed: duplicate key': 1 });
    const [sends] = r.sends();
    expect(sends.stream).toBe(3);
    expect([...sends.sched]).toEqual([1000, 1100, 1200]);
    expect([...sends.actual]).toEqual([1050, 1300, NaN]);
  });

  it('rows refused for their own value are one reason, its first text verbatim, with the count', () => {
    const r = new InsertRecord(100);
    for (let i = 0; i < 160; i++)
      r.failed(
        1,
        i,
        1000 + i,
        new Error(`invalid input syntax for type bigint: "${1796231642660 + i}.4536"`),
      );
    expect(r.stats.failed).toBe(160);
    expect(r.stats.errors).toEqual({
      'insert failed: invalid input syntax for type bigint: "1796231642660.4536"': 160,
    });
  });

  it('a seq never inserted (another loader’s share) is 0 scheduled and NaN sent', () => {
    const r = new InsertRecord(100);
    r.committed(1, 2, 500, 510);
    const [sends] = r.sends();
    expect([...sends.sched]).toEqual([0, 0, 500]);
    expect([...sends.actual]).toEqual([NaN, NaN, 510]);
  });

  it('keeps a password out of the reason', () => {
    const r = new InsertRecord(100);
    r.failed(0, 0, 0, new Error('connect postgres://bench:hunter2@127.0.0.1/db refused'));
    expect(Object.keys(r.stats.errors).join()).not.toContain('hunter2');
  });
});
