/**
 * Quota checks against the built-in server in this process, its rate counter ticking every
 * 100 ms (a 1.2 s window) and error replies not delayed, so a check takes seconds.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { TokenSource } from '../../src/client/auth.js';
import { buildSocketUrl } from '../../src/client/url.js';
import { quotasSchema } from '../../src/profile/schema/quotas.js';
import type { QuotaTarget } from '../../src/client/qconn.js';
import { payloadOfSize } from '../../src/quotas/drivers/payload.js';
import { checkQuotas, type CheckQuotasOptions } from '../../src/quotas/orchestrate.js';
import type { QuotaRow } from '../../src/result/quotas.js';
import { QUOTA_REASONS } from '../../src/quotas/vocabulary.js';
import { renderQuotasMarkdown } from '../../src/report/quotas.js';
import { DEV_JWT_SECRET, type ServerConfigFile } from '../../src/builtin/config.js';
import type { RunningServer } from '../../src/server/server.js';
import { serve } from '../server/helpers.js';

const TICK_MS = 100;
let server: RunningServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function check(
  serverConfig: ServerConfigFile,
  declared: Record<string, number>,
  wrapDriver?: CheckQuotasOptions['wrapDriver'],
): Promise<QuotaRow[]> {
  server = await serve({ config: serverConfig, timings: { rateTickMs: TICK_MS } });
  const target: QuotaTarget = {
    socketUrl: buildSocketUrl(server.url, { vsn: '1.0.0' }),
    headers: {},
    vsn: '1.0.0',
    tokens: new TokenSource({ jwtSecret: DEV_JWT_SECRET, role: 'anon', ttlMs: 60_000 }),
    apikeyIn: 'query',
    replyTimeoutMs: 5000,
  };
  const quotas = quotasSchema.parse({ ...declared, rate_tick: `${TICK_MS}ms`, error_backoff: 0 });
  return checkQuotas({ target, quotas, log: () => undefined, wrapDriver });
}

describe('payloadOfSize', () => {
  it('gives a broadcast payload whose JSON is exactly that many bytes', () => {
    for (const n of [60, 1000, 50_500, 50_501])
      expect(JSON.stringify(payloadOfSize(n)).length).toBe(n);
  });
});

describe('count quotas', () => {
  it('pass as declared: payload size, channels per client, concurrent users — with the onset at the limit', async () => {
    const q = { max_payload_size_in_kb: 20, max_channels_per_client: 10, max_concurrent_users: 15 };
    const rows = await check(q, q);
    expect(rows.map((r) => [r.quota, r.pass, r.failures])).toEqual([
      ['max_payload_size_in_kb', true, []],
      ['max_channels_per_client', true, []],
      ['max_concurrent_users', true, []],
    ]);
    const [payload, channels, users] = rows;
    // The target refuses a JSON payload over kb × 1000 + 500 bytes: the smallest refused is found
    // within 0.05 %.
    expect(payload.onset!).toBeGreaterThan(20_500);
    expect(payload.onset!).toBeLessThanOrEqual(20_500 + 11);
    expect(payload.above.reasons).toEqual({
      [QUOTA_REASONS.max_payload_size_in_kb]: expect.any(Number),
    });
    expect(channels.onset).toBe(10);
    expect(channels.above.reasons).toEqual({ 'ChannelRateLimitReached: Too many channels': 2 });
    expect(users.onset).toBe(15);
    expect(users.below).toMatchObject({ accepted: 12, rejections: 0 });
    expect(users.recovery.recovered_after_ms).not.toBeNull();
  });

  it('fails, naming the quota, when the server allows more users than declared', async () => {
    const rows = await check({ max_concurrent_users: 30 }, { max_concurrent_users: 15 });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ quota: 'max_concurrent_users', pass: false, onset: null });
    expect(rows[0].failures).toContain('no rejection above the declared value (up to 19 users)');
  });
});

describe('rate quotas', () => {
  it('max_joins_per_second: none refused at 80 %, refused at 125 % with the onset at the limit, recovered back below', async () => {
    const [row] = await check({ max_joins_per_second: 40 }, { max_joins_per_second: 40 });
    expect(row.failures).toEqual([]);
    expect(row.inconclusive).toEqual([]);
    expect(row.pass).toBe(true);
    expect(row.result).toBe('pass');
    // The offered rate is measured and shown beside the target: 32/s below, 50/s above.
    expect(row.below.target).toBe(32);
    expect(row.below.offered!).toBeGreaterThanOrEqual(0.95 * 32);
    expect(row.below.skipped).toBe(0);
    expect(row.above.target).toBe(50);
    expect(row.below.rejections).toBe(0);
    expect(row.below.accepted).toBeGreaterThan(30); // 32/s for 1.4 s
    expect(
      Object.keys(row.above.reasons).every((r) => r.includes('Too many joins per second')),
    ).toBe(true);
    expect(row.onset!).toBeGreaterThanOrEqual(36);
    expect(row.onset!).toBeLessThanOrEqual(44);
    expect(row.recovery.recovered_after_ms!).toBeLessThanOrEqual(row.recovery.window_ms);
  });

  it('max_events_per_second fails when the server enforces a lower limit: refused below, onset where the server trips', async () => {
    const [row] = await check({ max_events_per_second: 100 }, { max_events_per_second: 200 });
    expect(row.pass).toBe(false);
    expect(row.quota).toBe('max_events_per_second');
    expect(row.below.rejections).toBeGreaterThan(0);
    expect(Object.keys(row.below.reasons)).toEqual(['Too many messages per second']);
    expect(row.failures[0]).toMatch(/^rejected below the declared value/);
    // The onset is the server's own limit, 100/s, not the declared 200/s.
    expect(row.onset!).toBeGreaterThan(85);
    expect(row.onset!).toBeLessThan(125);
  });

  it('max_presence_events_per_second passes as declared', async () => {
    const [row] = await check(
      { max_presence_events_per_second: 100 },
      { max_presence_events_per_second: 100 },
    );
    expect(row.failures).toEqual([]);
    expect(row.above.reasons).toEqual({
      'Too many presence messages per second': expect.any(Number),
    });
  });
});

describe('a phase that did not offer its load', () => {
  it('is inconclusive, never pass: a driver that can make only every other join offers 40 % of the quota where 80 % was due', async () => {
    let calls = 0;
    const starved: CheckQuotasOptions['wrapDriver'] = (d) => ({
      ...d,
      act: (k) => (calls++ % 2 === 0 ? d.act(k) : false),
    });
    const [row] = await check({ max_joins_per_second: 40 }, { max_joins_per_second: 40 }, starved);
    expect(row.quota).toBe('max_joins_per_second');
    expect(row.result).toBe('inconclusive');
    expect(row.pass).toBe(false);
    expect(row.below.rejections).toBe(0);
    // Every other act was skipped and counted: half the acts of the phase, to within one.
    expect(row.below.skipped).toBeGreaterThan(20);
    expect(row.below.offered!).toBeLessThan(0.6 * 32);
    expect(row.inconclusive[0]).toMatch(
      /^below: offered [\d.]+ of 32 joins\/s \([\d.]+ %, under 95 %\); \d+ actions skipped — no evidence that 32 joins\/s for /,
    );
    const md = renderQuotasMarkdown({
      schema: 'rtcap.quotas/v1',
      run_id: 'x',
      profile: { name: 'starved', path: null },
      target: { url: 'ws://x', builtin: false, server_config: null },
      started_at: '',
      finished_at: '',
      abort_reason: null,
      settings: quotasSchema.parse({}),
      result: 'inconclusive',
      pass: false,
      rows: [row],
    });
    expect(md).toContain('**INCONCLUSIVE** — 0 of 1 quotas as declared, 1 inconclusive.');
    expect(md).toMatch(
      /\| max_joins_per_second \| 40 \| inconclusive \| [\d.]+ of 32 joins\/s \(\d+ skipped\) \|/,
    );
  });
});
