import { describe, expect, it } from 'vitest';
import { toJsonValue } from '../../../src/server/db/values.js';

describe('column values as to_jsonb gives them (docs/PROTOCOL.md §7.3)', () => {
  it('numbers, booleans, json', () => {
    expect(toJsonValue('int8', '42')).toBe(42);
    expect(toJsonValue('float8', '1.25')).toBe(1.25);
    expect(toJsonValue('float8', 'Infinity')).toBe('Infinity');
    expect(toJsonValue('numeric', 'NaN')).toBe('NaN');
    expect(toJsonValue('bool', 't')).toBe(true);
    expect(toJsonValue('jsonb', '{"a": [1, 2]}')).toEqual({ a: [1, 2] });
    expect(toJsonValue('text', null)).toBeNull();
  });

  it('timestamps in ISO form', () => {
    expect(toJsonValue('timestamptz', '2026-08-01 12:00:00.123456+00')).toBe(
      '2026-08-01T12:00:00.123456+00:00',
    );
    expect(toJsonValue('timestamptz', '2026-08-01 12:00:00+05:30')).toBe(
      '2026-08-01T12:00:00+05:30',
    );
    expect(toJsonValue('timestamp', '2026-08-01 12:00:00')).toBe('2026-08-01T12:00:00');
    expect(toJsonValue('date', '2026-08-01')).toBe('2026-08-01');
  });

  it('arrays of their element type', () => {
    expect(toJsonValue('_int4', '{1,2,NULL}')).toEqual([1, 2, null]);
    expect(toJsonValue('_text', '{a,"b,c"}')).toEqual(['a', 'b,c']);
    expect(toJsonValue('_int4', '{{1,2},{3,4}}')).toEqual([
      [1, 2],
      [3, 4],
    ]);
  });

  it('other types keep their text', () => {
    expect(toJsonValue('uuid', '6f1c0c5e-0000-4000-8000-000000000000')).toBe(
      '6f1c0c5e-0000-4000-8000-000000000000',
    );
    expect(toJsonValue('interval', '01:00:00')).toBe('01:00:00');
  });
});
