/**
 * The whole table from the seed's own figures (test/fixtures/seed-002-*.json): every row inside
 * the bracket the seed's data allows — never at or above its first step that was not stable —
 * and the §1.2 CPU 70 % line at about 27,000/s.
 */
import { describe, expect, it } from 'vitest';
import { applyPresenceQuota, buildCapacityFile } from '../../src/capacity/table.js';
import { SEED_002_RUNS, loadRun, makeRun, makeStep } from '../fixtures/index.js';
import { firstValueGeneratorBoundSearch } from '../support/generator-bound-steps.js';

const seedSources = () => SEED_002_RUNS.map((n) => ({ dir: `runs/${n}`, result: loadRun(n) }));

/**
 * First step the seed reports as not stable, per row (its own units); null where the seed has no
 * data.
 */
const SEED_FIRST_NOT_STABLE: Record<string, number | null> = {
  public_connections: 25_000, // §1.1 unusable
  private_connections: 24_000, // §2.2 lost 2.13 %
  public_deliveries: 40_000, // §1.2 degraded
  private_sends: 10_000, // §2.1 medium rate, overloaded
  private_deliveries: 24_700, // §2.1 high rate, overloaded
  write_only_sends: null, // §7 row 6: no table in the seed
  join_rate: 130, // §4 tripped
  message_size: 102_400, // §3 100 KB unusable
  cdc_subscribers: 18_000, // §6 tripped
  cdc_changes: null, // §6: one rate, no sweep
  presence_members: 10_000, // §5 single hot topic
  presence_deliveries: 23_497, // §5 25 % update: p50 796 ms
};

describe('capacity table from the seed 002 figures', () => {
  const f = buildCapacityFile(seedSources(), { now: new Date(0) });

  it('has the 12 §7 rows in order and the 4 §8 rows, each with a value and evidence or a reason', () => {
    expect(f.schema).toBe('rtcap.capacity/v1');
    expect(f.rows.map((r) => r.no)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(f.config.map((c) => c.key)).toEqual([
      'db_pool',
      'subs_pool_size',
      'max_events_per_second',
      'max_presence_events_per_second',
    ]);
    for (const r of f.rows) {
      if (r.value === null) {
        expect(r.reason, r.id).toMatch(/\w/);
        expect(r.evidence).toBeNull();
      } else {
        expect(r.evidence, r.id).not.toBeNull();
        expect(r.evidence!.chart).toMatch(/^runs\/seed-002-.*\/report\.html#charts$/);
        expect(r.rule).not.toBe('none');
        expect(r.reason).toBeNull();
      }
    }
    for (const c of f.config) expect(c.value !== null || c.missing !== null, c.key).toBe(true);
    expect(Object.keys(f.values)).toEqual(f.rows.map((r) => r.id));
  });

  it('holds every row below the first step the seed found not stable', () => {
    for (const r of f.rows) {
      const top = SEED_FIRST_NOT_STABLE[r.id];
      if (top === null) {
        expect(r.value, r.id).toBeNull();
        continue;
      }
      expect(r.value, r.id).not.toBeNull();
      expect(r.value!, r.id).toBeGreaterThan(0);
      expect(r.value!, r.id).toBeLessThan(top);
    }
  });

  it('the §1.2 CPU 70 % line comes out at about 27,000/s, from the deliveries sweep (not the connection sweep)', () => {
    const row = f.rows.find((r) => r.id === 'public_deliveries')!;
    expect(row.value!).toBeGreaterThan(26_000);
    expect(row.value!).toBeLessThan(28_000);
    expect(row).toMatchObject({
      display: '≤ 26,700/s',
      limiting_factor: 'CPU',
      rule: 'safe-line fit',
    });
    expect(row.evidence!.run_id).toBe('seed-002-s1.2');
    expect(row.evidence!.fit).toMatch(/^CPU ≈ 5\.5 % \+ 2\.41 pp × deliveries\/s ÷ 1,000/);
    expect(row.notes.join(' ')).toContain(
      'seed-002-s1.1 gave ≤ 23,900/s (server memory safe line: 100.0% ≥ 85%) with public_connections rising too: not used',
    );
    expect(f.config.find((c) => c.key === 'max_events_per_second')).toMatchObject({
      value: 26_000,
    });
  });

  it('private connections by the memory line of §2.2, below the 88.3 % step', () => {
    const row = f.rows.find((r) => r.id === 'private_connections')!;
    expect(row.limiting_factor).toBe('memory');
    expect(row.value!).toBeGreaterThan(16_000);
    expect(row.value!).toBeLessThan(20_000);
  });

  it('presence members: the quota arithmetic and the measured knee both shown, the lower kept', () => {
    const row = f.rows.find((r) => r.id === 'presence_members')!;
    expect(row.value).toBe(8);
    expect(row.notes.join(' ')).toContain('1,000/s ÷ 5 topic updates/s = 200 members');
    const swapped = applyPresenceQuota({ ...row, notes: [] }, 1000, 200);
    expect(swapped).toMatchObject({
      value: 5,
      display: '≤ 5',
      limiting_factor: 'presence quota',
      rule: 'presence quota',
    });
    expect(swapped.notes.join(' ')).toContain('measured knee: ≤ 8');
  });

  it('private broadcast states why there is no joint fit (the seed gives no CPU for §2.1)', () => {
    const sends = f.rows.find((r) => r.id === 'private_sends')!;
    expect(sends.notes.join(' ')).toContain('joint fit of CPU on sends/s and deliveries/s');
  });

  it('rows without data say why', () => {
    expect(f.rows.find((r) => r.id === 'write_only_sends')!.reason).toContain(
      'no write-only run among the sources',
    );
    expect(f.rows.find((r) => r.id === 'cdc_changes')!.reason).toContain(
      'cdc_changes_per_s took fewer than two values',
    );
  });
});

describe('capacity table rules across runs', () => {
  const sends = (rates: number[], verdicts: string[], cpu: (r: number) => number) =>
    rates.map((rate, i) =>
      makeStep(i + 1, {
        params: { send_rate: rate },
        rates: { sent_per_s: rate, acked_per_s: rate },
        verdict: verdicts[i] as never,
        server: { cpu_pct: cpu(rate) },
      }),
    );

  it('a limit never reached is a lower bound: ≥ …, no limit reached', () => {
    const run = makeRun(
      'write-only',
      sends([10_000, 20_000, 28_600], ['stable', 'stable', 'stable'], () => 30),
    );
    const f = buildCapacityFile([{ dir: 'w', result: run }]);
    const row = f.rows.find((r) => r.id === 'write_only_sends')!;
    expect(row).toMatchObject({
      value: 28_600,
      display: '≥ 28,600/s, no limit reached',
      bound: 'lower',
      limiting_factor: 'not reached',
    });
  });

  it("the lowest run wins, and a run that failed below another run's stable step leaves the row without a value", () => {
    const a = makeRun(
      'write-only',
      sends([1000, 2000, 3000], ['stable', 'stable', 'broken'], () => 20),
      { run_id: 'a' },
    );
    const b = makeRun(
      'write-only',
      sends([1000, 1500], ['stable', 'broken'], () => 20),
      { run_id: 'b' },
    );
    const lowest = buildCapacityFile([
      { dir: 'a', result: a },
      { dir: 'b', result: b },
    ]).rows.find((r) => r.id === 'write_only_sends')!;
    expect(lowest.value).toBe(1000);
    expect(lowest.evidence!.run_id).toBe('b');
    const c = makeRun(
      'write-only',
      sends([500, 1000], ['stable', 'stable'], () => 20),
      { run_id: 'c' },
    );
    const d = makeRun(
      'write-only',
      sends([100, 400], ['stable', 'broken'], () => 20),
      { run_id: 'd' },
    );
    const disagree = buildCapacityFile([
      { dir: 'c', result: c },
      { dir: 'd', result: d },
    ]).rows.find((r) => r.id === 'write_only_sends')!;
    expect(disagree.value).toBe(100);
    const e = makeRun(
      'write-only',
      sends([500, 1000, 1100], ['stable', 'stable', 'stable'], () => 20),
      { run_id: 'e' },
    );
    const f = makeRun(
      'write-only',
      sends([100, 900], ['broken', 'broken'], () => 20),
      { run_id: 'f' },
    );
    const none = buildCapacityFile([
      { dir: 'e', result: e },
      { dir: 'f', result: f },
    ]).rows.find((r) => r.id === 'write_only_sends')!;
    expect(none.value).toBeNull();
    expect(none.rule).toBe('runs disagree');
    expect(none.reason).toContain('e was stable at 1,100/s but f step 1 was broken at 100/s');
  });

  it('a fit with R² below 0.5 reads "no linear relation" in the table, a falling one "fit refused"', () => {
    const cpuAt = (ys: number[]) =>
      sends(
        [1000, 2000, 3000, 4000],
        ['stable', 'stable', 'stable', 'stable'],
        (r) => ys[r / 1000 - 1],
      );
    const scatter = buildCapacityFile([
      { dir: 'w', result: makeRun('write-only', cpuAt([10, 30, 9, 28])) },
    ]);
    const row = scatter.rows.find((r) => r.id === 'write_only_sends')!;
    expect(row.notes).toContainEqual(
      expect.stringMatching(
        /^fit: CPU vs sends\/s: no linear relation \(R² 0\.\d\d < 0\.5, 4 steps\)$/,
      ),
    );
    const falling = buildCapacityFile([
      { dir: 'w', result: makeRun('write-only', cpuAt([40, 34, 31, 25])) },
    ]);
    const row2 = falling.rows.find((r) => r.id === 'write_only_sends')!;
    expect(row2.notes).toContainEqual(
      expect.stringMatching(
        /^fit: CPU vs sends\/s: fit refused — wrong sign: CPU falls as sends\/s rises/,
      ),
    );
    expect(row2.evidence!.fit).toBeNull();
  });

  it('private broadcast: CPU fitted on sends/s and deliveries/s together, joint bound stated', () => {
    const cpu = (s: number, d: number) => 5 + (3 * s) / 1000 + (2 * d) / 1000;
    const shape = [
      [2500, 17_200],
      [5000, 4900],
      [1000, 8000],
      [4000, 12_000],
    ];
    const steps = shape.map(([s, d], i) =>
      makeStep(i + 1, {
        params: { send_rate: s, connections: 4000 },
        rates: { sent_per_s: s, delivered_per_s: d },
        messages: { expected: d * 20 },
        server: { cpu_pct: cpu(s, d) },
      }),
    );
    const f = buildCapacityFile([{ dir: 'p', result: makeRun('broadcast-private', steps) }]);
    const row = f.rows.find((r) => r.id === 'private_deliveries')!;
    expect(row.notes.join(' ')).toContain(
      'joint bound at 70%: 3.00 × sends/s + 2.00 × deliveries/s (per 1000) ≤ 65.0',
    );
  });

  it('each search speaks for its own row: another entry of the scenario neither caps nor words it', () => {
    const searched = (id: string, steps: ReturnType<typeof makeStep>[], driver: string) => ({
      ...makeRun('broadcast-private', steps),
      run_id: id,
      sweep: { mode: 'search', driver },
    });
    // Row 4's search: 100 rooms of 2, stable up to 2,000 sends/s (2,000 deliveries/s).
    const sendsRun = searched(
      'sends',
      [1000, 2000].map((r, i) =>
        makeStep(i + 1, {
          params: { send_rate: r, connections: 200, duration_s: 10 },
          rates: { sent_per_s: r, delivered_per_s: r },
          messages: { expected: r * 10 },
        }),
      ),
      'send_rate',
    );
    // Row 5's search: members grow at 250 sends/s; broken at 32 members (7,750 deliveries/s).
    const membersRun = searched(
      'members',
      [8, 16, 32].map((m, i) =>
        makeStep(i + 1, {
          params: { send_rate: 250, members: m, connections: 10 * m, duration_s: 10 },
          rates: { sent_per_s: 250, delivered_per_s: 250 * (m - 1) },
          messages: { expected: 2500 * (m - 1) },
          ...(m === 32
            ? { verdict: 'broken', verdict_reasons: ['delivery 80.00% < SLO 100%'] }
            : {}),
        }),
      ),
      'members',
    );
    const f = buildCapacityFile([
      { dir: 's', result: sendsRun },
      { dir: 'm', result: membersRun },
    ]);
    const row = (id: string) => f.rows.find((r) => r.id === id)!;
    expect(row('private_deliveries')).toMatchObject({ value: 3750, bound: 'upper' });
    expect(row('private_deliveries').evidence!.run_id).toBe('members');
    expect(row('private_sends')).toMatchObject({ value: 2000 });
    expect(row('private_sends').evidence!.run_id).toBe('sends');
    // Neither search measured connections on their own driver: that row has no candidate.
    expect(row('private_connections').value).toBeNull();
    expect(row('private_connections').reason).toBe(
      'no run searched this row (sends searched Private broadcast — sends/s; members searched Private broadcast — deliveries/s)',
    );
  });

  it('a search whose first value was generator-bound reads generator-bound with that value', () => {
    const f = buildCapacityFile([{ dir: 'w', result: firstValueGeneratorBoundSearch() }]);
    const row = f.rows.find((r) => r.id === 'write_only_sends')!;
    expect(row).toMatchObject({
      value: null,
      bound: 'lower',
      display: '— generator-bound at the first value, send_rate 2,000',
      limit: { kind: 'generator-bound', figure: 'event-loop lag p99', value: 559 },
    });
    expect(row.evidence!.run_id).toBe('test-write-only');
    expect(f.values.write_only_sends).toBeNull();
  });
});
