import { describe, expect, it } from 'vitest';
import { generatorCheck, partLabel } from '../../src/model/verdict-generator.js';
import { DEFAULT_GENERATOR_LIMITS } from '../../src/model/verdict-input.js';
import { healthyVerdictInput } from '../fixtures/index.js';

const check = (o: Parameters<typeof healthyVerdictInput>[0]) =>
  generatorCheck(healthyVerdictInput(o), DEFAULT_GENERATOR_LIMITS);

describe('generatorCheck', () => {
  it('a generator at ease: no reasons', () => {
    expect(check({})).toEqual({ reasons: [], ownLimits: false, refusedOutright: false });
  });

  it('offered load, lag, CPU and full pending state, in that order', () => {
    const r = check({
      generator_offered_ratio: 0.5,
      generator_offered_by_part: { broadcast: 1, changes: 0.4 },
      generator_lag_p99_ms: 80,
      generator_cpu_pct: 95,
      acks: { unacked: 0, errors: 0, untracked: 1 },
      presence_tracks: { unanswered: 0, untracked: 2 },
    });
    expect(r.reasons).toEqual([
      'offered 50.00% of the scheduled load < 99.00% (behind: changes (inserts) 40.00%)',
      'generator event-loop lag p99 80 ms > 50 ms',
      'generator CPU 95% > 90%',
      'pending-ack state full: 1 send not tracked',
      'presence pending-track state full: 2 tracks not tracked',
    ]);
    expect(r.ownLimits).toBe(false);
  });

  it('a server that refused every connection: its shortfall is not the generator’s', () => {
    const r = check({ generator_offered_ratio: 0.1, connections_joined: 0, connections_failed: 5 });
    expect(r).toEqual({ reasons: [], ownLimits: false, refusedOutright: true });
  });

  it('past its open-file limit the generator also falls behind: the limit comes first, with its number', () => {
    const r = check({
      connections_joined: 1004,
      connections_failed: 196,
      generator_offered_ratio: 0.5,
      generator_lag_p99_ms: 88,
      error_classes: { generator: 196 },
      errors: { 'generator: EMFILE (open-file limit reached: 1,024 per process)': 196 },
    });
    expect(r.reasons).toEqual([
      'generator-side errors: EMFILE ×196 (open-file limit 1,024 per process)',
      'offered 50.00% of the scheduled load < 99.00%',
      'generator event-loop lag p99 88 ms > 50 ms',
    ]);
    expect(r.ownLimits).toBe(true);
  });

  it('errno codes in the reasons are its own OS limits, counted per code', () => {
    const r = check({
      errors: { 'connect EMFILE': 3, 'bind EADDRNOTAVAIL 127.0.0.2': 2, 'EMFILE again': 1 },
    });
    expect(r).toMatchObject({
      reasons: ['generator-side errors: EMFILE ×4, EADDRNOTAVAIL ×2'],
      ownLimits: true,
    });
    const classified = check({
      error_classes: { server: 0, network: 0, generator: 1, protocol: 0 },
    });
    expect(classified).toMatchObject({ reasons: ['1 generator-side error'], ownLimits: true });
  });
});

describe('partLabel', () => {
  it('names the Postgres Changes part by what rtcap offered: inserts', () => {
    expect(partLabel('changes')).toBe('changes (inserts)');
    expect(partLabel('broadcast')).toBe('broadcast');
  });
});
