import { describe, expect, it } from 'vitest';
import { errorGroupOf, groupErrors } from '../../src/util/error-groups.js';

describe('errors grouped by reason', () => {
  it('texts that differ only in quoted values or long numbers are one group', () => {
    const a = 'insert failed: invalid input syntax for type bigint: "1796231642660.4536"';
    const b = 'insert failed: invalid input syntax for type bigint: "1796231642712.0917"';
    expect(errorGroupOf(a)).toBe(errorGroupOf(b));
    expect(errorGroupOf("duplicate key value 'k-17'")).toBe(
      errorGroupOf("duplicate key value 'k-18'"),
    );
    expect(errorGroupOf('row 1796231642660 refused')).toBe(
      errorGroupOf('row 1796231642712 refused'),
    );
    expect(errorGroupOf('took 12.5 ms')).toBe(errorGroupOf('took 9.25 ms'));
  });

  it('status and close codes stay apart: they name different reasons', () => {
    expect(errorGroupOf('upgrade refused: HTTP 401')).not.toBe(
      errorGroupOf('upgrade refused: HTTP 429'),
    );
    expect(errorGroupOf('closed by server: 1006')).not.toBe(errorGroupOf('closed by server: 1011'));
  });

  it('160 refused numbers: one reason, its first text verbatim, ×160; others stay apart', () => {
    const counts: Record<string, number> = {};
    for (let i = 0; i < 160; i++)
      counts[`insert failed: invalid input syntax for type bigint: "${1796231642660 + i}.4536"`] =
        1;
    const grouped = groupErrors(counts, { 'join timeout: no reply within 10000 ms': 2 });
    expect([...grouped]).toEqual([
      ['insert failed: invalid input syntax for type bigint: "1796231642660.4536"', 160],
      ['join timeout: no reply within 10000 ms', 2],
    ]);
  });
});
