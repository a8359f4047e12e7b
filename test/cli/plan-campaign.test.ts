/**
 * `rtcap plan --capacity <campaign directory>` on a real campaign's directory: the capacity.json
 * and campaign.json that `rtcap campaign profiles/campaigns/search-quick.yaml` wrote on the
 * 2-core machine of docs/CAPACITY.md (2026-12-01, its "search-quick as measured" table), kept in
 * test/fixtures/campaign-search-quick. Its join row is the authorisation pool at db_pool 1:
 * ceiling 9.3/s × headroom 0.5 = 4.65 joins/s per pool connection. chat.yaml asks 200 joins/s of
 * one tenant, so today no instance count carries it, and §8's db_pool is ⌈200 ÷ 4.65⌉ = 44
 * (44 × 4.65 = 204.6 ≥ 200); with it the row falls back to what the search measured beside the
 * pool (≥ 8/s per instance): 200 ÷ 8 = 25 instances, at most.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cliInProcess } from '../support/cli-in-process.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const CAMPAIGN = join(here, '..', 'fixtures', 'campaign-search-quick');
const CHAT = join(here, '..', '..', 'profiles', 'workloads', 'chat.yaml');

describe('rtcap plan on a campaign directory', () => {
  it('chat.yaml against search-quick as measured: the db_pool lever, today and with §8 applied', async () => {
    const { code, out, err } = await cliInProcess(
      'plan',
      '--workload',
      CHAT,
      '--capacity',
      CAMPAIGN,
    );
    expect(err).toBe('');
    expect(code).toBe(0);
    const lines = out.split('\n');
    expect(lines).toContain(
      "No number of 2 vCPU / 4096 MB instances carries this workload: join_rate cannot be split across instances and is over one instance's (or one tenant's) capacity.",
    );
    const lever = lines.filter((l) => l.startsWith('| db_pool |'));
    expect(lever).toHaveLength(1);
    const cells = lever[0].split(' | ').map((c) => c.replace(/^\| |\s\|$/g, ''));
    // Setting, row, today, recommended, row today, row recommended, instances today, with it.
    expect(cells.slice(0, 4)).toEqual(['db_pool', 'join_rate', '1', '44']);
    expect(cells[4]).toMatch(/^≤ 4\.7\/s at db_pool 1; measured beside it ≥ 8\/s/);
    expect(cells[5]).toMatch(/^≤ 204\/s at db_pool 44; measured beside it ≥ 8\/s/);
    expect(cells.slice(6, 8)).toEqual(['none carries it', '25']);
    expect(cells[8]).toBe(
      "docs/METHOD.md §8: db_pool = join rate ÷ headroom × check time, for this workload's 200 joins/s per tenant: ⌈200 ÷ 4.65 per connection⌉",
    );
    expect(lines).toContain(
      'Saves the most: db_pool 1 → 44: none carries it → 25 instances (at most: fewer may do).',
    );
    expect(lines).toContain(
      '25 instances of 2 vCPU / 4096 MB; binding dimension: join_rate. At most that many: the binding row is a lower bound, fewer may do.',
    );
    expect(out).toContain(
      'planned per tenant: 200 per tenant (200 ÷ 1 tenant) ≤ db_pool 44 × 4.65 = 204.6; per instance 200 ÷ 8 measured = 25 → 25 (a lower bound: fewer may do)',
    );
  });
});
