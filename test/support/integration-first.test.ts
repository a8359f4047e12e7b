import { describe, expect, it } from 'vitest';
import { integrationFirst } from './integration-first.js';

describe('integrationFirst', () => {
  it('moves the integration files to the front, keeping the order within each part', () => {
    const files = [
      '/r/test/sweep/sweep.test.ts',
      '/r/test/integration/segments.test.ts',
      '/r/test/cli/flags.test.ts',
      '/r/test/integration/known-answer-search.test.ts',
    ].map((moduleId) => ({ moduleId }));
    expect(integrationFirst(files).map((f) => f.moduleId)).toEqual([
      '/r/test/integration/segments.test.ts',
      '/r/test/integration/known-answer-search.test.ts',
      '/r/test/sweep/sweep.test.ts',
      '/r/test/cli/flags.test.ts',
    ]);
  });
});
