import { describe, expect, it } from 'vitest';
import { mergeErrors } from '../../../src/run/figures/errors.js';

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
});
