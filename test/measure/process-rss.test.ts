import { describe, expect, it } from 'vitest';
import { rssMb } from '../../src/measure/process-rss.js';

describe('rssMb', () => {
  it('reads resident memory in MiB, and keeps the last value when the read throws (EMFILE)', () => {
    expect(rssMb(() => 64 * 1048576)).toBe(64);
    const emfile = () => {
      throw Object.assign(new Error('EMFILE: too many open files, uv_resident_set_memory'), {
        code: 'EMFILE',
      });
    };
    expect(rssMb(emfile)).toBe(64);
    expect(rssMb(() => 65 * 1048576)).toBe(65);
    expect(rssMb()).toBeGreaterThan(1);
  });
});
