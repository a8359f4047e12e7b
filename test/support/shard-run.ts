import type { Shard } from '../../src/shard/format.js';

/** A shard's run record for tests: a finished run of an empty profile. */
export function shardRun(): Shard['run'] {
  return {
    profile: {},
    profilePath: null,
    builtin: false,
    targetUrl: '',
    status: 'completed',
    abortReason: null,
    finishedAt: null,
  };
}
