import { describe, expect, it } from 'vitest';
import { mergeErrors, stepErrors } from '../../src/figures/errors.js';

describe('mergeErrors', () => {
  it('sums reasons and classes over processes; insert errors are the server class', () => {
    const a = {
      errors: { 'join error: x': 2 },
      errorClasses: { server: 2, network: 0, generator: 0, protocol: 0 },
    };
    const b = {
      errors: { 'join error: x': 1, ECONNRESET: 3 },
      errorClasses: { server: 1, network: 3, generator: 0, protocol: 0 },
    };
    expect(mergeErrors([a, b], { 'insert: timeout': 4 })).toEqual({
      errors: { 'join error: x': 3, ECONNRESET: 3, 'insert: timeout': 4 },
      errorClasses: { server: 7, network: 3, generator: 0, protocol: 0 },
    });
    expect(mergeErrors([])).toEqual({
      errors: {},
      errorClasses: { server: 0, network: 0, generator: 0, protocol: 0 },
    });
  });

  it('groups reasons that differ only in quoted values across processes and inserts: one verbatim example with the count', () => {
    const none = { server: 0, network: 0, generator: 0, protocol: 0 };
    const merged = mergeErrors(
      [
        { errors: { 'ack error: "k-1"': 2 }, errorClasses: none },
        { errors: { 'ack error: "k-2"': 3 }, errorClasses: none },
      ],
      {
        'insert failed: invalid input syntax for type bigint: "1796231642660.4536"': 1,
        'insert failed: invalid input syntax for type bigint: "1796231642712.0917"': 1,
      },
    );
    expect(merged.errors).toEqual({
      'ack error: "k-1"': 5,
      'insert failed: invalid input syntax for type bigint: "1796231642660.4536"': 2,
    });
  });

  it('keeps reasons in the order first seen', () => {
    const none = { server: 0, network: 0, generator: 0, protocol: 0 };
    const merged = mergeErrors(
      [
        { errors: { b: 1, a: 1 }, errorClasses: none },
        { errors: { c: 1, b: 1 }, errorClasses: none },
      ],
      { d: 1 },
    );
    expect(Object.keys(merged.errors)).toEqual(['b', 'a', 'c', 'd']);
  });
});

describe('stepErrors', () => {
  it('sums reasons over processes, in the order first seen', () => {
    const m = stepErrors([{ errors: { x: 2, y: 1 } }, { errors: { y: 4, z: 1 } }]);
    expect([...m]).toEqual([
      ['x', 2],
      ['y', 5],
      ['z', 1],
    ]);
    expect(stepErrors([]).size).toBe(0);
  });
});
