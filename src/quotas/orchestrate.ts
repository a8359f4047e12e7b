/**
 * `rtcap quotas`: for each tenant quota the profile declares
 * (docs/PROTOCOL.md §8.2), load just below it (no rejection allowed), just above it (rejections
 * with the documented reason required, their onset within a tolerance of the declared value), then
 * back below (the target must recover within its rate window). One row per quota: pass, fail,
 * or inconclusive when a phase did not offer the load it claims (judge.ts).
 *
 * Connections are driven directly (client.ts), not through the run engine: a check needs a few
 * connections in phases whose every refusal is seen with its time and reason — one socket
 * joining N channels, acked payloads of an exact size, joins and leaves on an open-model
 * schedule — which the step model of runBenchmark does not express.
 *
 * How the onset is measured:
 * - counts (users, channels): the count admitted when the first refusal came;
 * - payload size: the smallest refused payload, by bisection between a size accepted below
 *   and one refused above (the target refuses a JSON payload over kb × 1000 + 500 bytes);
 * - rates (joins, events, presence events): the target averages its counter over a window
 *   (Supabase: 12 ticks of 5 s) and trips at a tick once the average reaches the limit, so the
 *   onset is the rate of the events the target counted over the window before the first
 *   refusal, from the client's own count of them.
 */
import { TokenSource } from '../client/auth.js';
import { redactText } from '../redact/redact.js';
import type { Profile, Quotas } from '../profile/schema.js';
import { CONNECT_ERROR_BACKOFF_MS, REASON } from '../protocol/constants.js';
import { renderQuotasMarkdown } from '../report/quotas.js';
import { makeRunId, RunWriter } from '../run/output.js';
import { startBuiltinServer, type BuiltinServer } from '../run/target.js';
import {
  builtinConfigOf,
  checkMinting,
  socketOf,
  tlsOf,
  tokenConfigOf,
} from '../run/target-connection.js';
import type { QuotaTarget } from '../client/qconn.js';
import { checkChannels } from './drivers/channels.js';
import { eventsDriver } from './drivers/events.js';
import { joinsDriver } from './drivers/joins.js';
import { checkPayload } from './drivers/payload.js';
import { presenceDriver } from './drivers/presence.js';
import { checkRate } from './drivers/rate.js';
import type { QuotaCheckOptions, RateDriver } from './drivers/types.js';
import { checkUsers } from './drivers/users.js';
import { Pool, QuotaAbort } from './pool.js';
import { sleep } from '../util/sleep.js';
import {
  QUOTA_NAMES,
  type QuotaName,
  type QuotaRow,
  type QuotaSettings,
  type QuotasReport,
} from '../result/quotas.js';
import { declaredQuotas, num, reportOutcome } from './vocabulary.js';

export interface CheckQuotasOptions extends QuotaCheckOptions {
  /**
   * A seam for tests: wraps each rate driver (e.g. one that cannot keep up), to show what is judged
   * of it.
   */
  wrapDriver?: (d: RateDriver) => RateDriver;
}

/**
 * Checks every declared quota in turn (counts first, then rates); a check that cannot run at all
 * throws QuotaAbort.
 */
export async function checkQuotas(opts: CheckQuotasOptions): Promise<QuotaRow[]> {
  const rows: QuotaRow[] = [];
  // Joins the target counted: every attempt it did not refuse for the join rate
  // (docs/PROTOCOL.md §8.2: counted when it passes that check).
  const joinTimes: number[] = [];
  let rateWindowFilled = false;
  const o: QuotaCheckOptions = {
    ...opts,
    target: {
      ...opts.target,
      onJoin: (j) => {
        if (j.ok || !j.reason.includes(REASON.tooManyJoins)) joinTimes.push(j.sentAtMs);
        opts.target.onJoin?.(j);
      },
    },
  };
  for (const [name, declared] of declaredQuotas(o.quotas)) {
    if (o.signal?.aborted) break;
    o.log(`quota ${name} = ${num(declared)}: checking below, above and back below…`);
    let row: QuotaRow;
    if (name === 'max_payload_size_in_kb') row = await checkPayload(o, declared);
    else if (name === 'max_channels_per_client') row = await checkChannels(o, declared);
    else if (name === 'max_concurrent_users') row = await checkUsers(o, declared);
    else {
      if (!rateWindowFilled) {
        // A fresh tenant's counter averages over the ticks it has seen (docs/PROTOCOL.md §8.1): a
        // few events in its first tick read as a high rate. One quiet window first fills it with
        // idle ticks.
        const windowMs = o.quotas.rate_tick * (o.quotas.rate_buckets + 1);
        o.log(
          `waiting ${num(windowMs / 1000)} s (one rate window) so the target's counters average over a full window…`,
        );
        await sleep(windowMs);
        rateWindowFilled = true;
      }
      const pool = new Pool(o.target);
      try {
        const made =
          name === 'max_joins_per_second'
            ? joinsDriver(pool, o.quotas)
            : name === 'max_events_per_second'
              ? eventsDriver(pool, o.quotas)
              : presenceDriver(pool, o.quotas);
        const driver = opts.wrapDriver ? opts.wrapDriver(made) : made;
        row = await checkRate(
          o,
          declared,
          driver,
          name === 'max_joins_per_second' ? joinTimes : undefined,
        );
      } finally {
        await pool.closeAll();
      }
    }
    o.log(
      `quota ${name}: ${row.result === 'fail' ? 'FAIL' : row.result} — ${row.evidence}${[...row.failures, ...row.inconclusive].length ? ` — ${[...row.failures, ...row.inconclusive].join('; ')}` : ''}`,
    );
    rows.push(row);
  }
  return rows;
}

export interface QuotasRunOptions {
  profile: Profile;
  profilePath: string | null;
  url?: string;
  outDir?: string;
  reportsDir?: string;
  serverCpus?: string | null;
  log: (line: string) => void;
  signal?: AbortSignal;
}

/**
 * The tenant config the built-in server gets: the declared quotas, unless target.server.config sets
 * them otherwise.
 */
export function builtinQuotaConfig(profile: Profile): Record<string, unknown> {
  const declared = Object.fromEntries(declaredQuotas(profile.quotas!));
  return { ...declared, ...profile.target.server.config };
}

export async function runQuotas(
  o: QuotasRunOptions,
): Promise<{ report: QuotasReport; dir: string }> {
  const { profile, log } = o;
  const q = quotasOrRefuse(profile);
  const startedAt = new Date();
  const runId = `${makeRunId(profile.name, startedAt)}-quotas`;
  const writer = RunWriter.forRun(o.outDir, o.reportsDir ?? 'reports', runId);
  let server: BuiltinServer | null = null;
  const report = emptyReport(o, q, runId, startedAt);
  try {
    let url = o.url ?? profile.target.url;
    if (!url) {
      const config = await builtinConfigOf(profile, builtinQuotaConfig(profile));
      server = await startQuotaServer(o, q, config, writer);
      url = server.url;
      report.target.server_config = config;
      report.target.builtin = true;
    }
    report.target.url = redactText(url);
    const target = await quotaTargetOf(profile, q, url, server !== null);
    log(
      `target: ${report.target.url}${server ? ` (built-in, rate tick ${q.rate_tick} ms × 12)` : ''}; below ${Math.round(q.below * 100)} %, above ${Math.round(q.above * 100)} %, onset tolerance ${Math.round(q.tolerance * 100)} %`,
    );
    report.rows = await checkQuotas({ target, quotas: q, log, signal: o.signal });
    if (o.signal?.aborted) report.abort_reason = 'interrupted by the user (SIGINT/SIGTERM)';
  } catch (e) {
    if (!(e instanceof QuotaAbort) && !(e instanceof Error)) throw e;
    report.abort_reason = redactText((e as Error).message);
  } finally {
    if (server) await server.stop();
    report.finished_at = new Date().toISOString();
    report.result = reportOutcome(report);
    report.pass = report.result === 'pass';
    writer.writeText('quotas.json', JSON.stringify(report, null, 2) + '\n');
    writer.writeText('quotas.md', renderQuotasMarkdown(report));
  }
  return { report, dir: writer.dir };
}

/** The profile's quotas section; refused when it declares none or the target is not Supabase. */
function quotasOrRefuse(profile: Profile): Quotas {
  const q = profile.quotas;
  if (!q || declaredQuotas(q).length === 0)
    throw new QuotaAbort(
      'the profile declares no quota (a `quotas:` section with max_joins_per_second, max_events_per_second, ...)',
    );
  if (profile.target.dialect !== 'supabase')
    throw new QuotaAbort(
      'quotas are Supabase Realtime tenant limits: target.dialect must be supabase',
    );
  return q;
}

/** quotas.json before any check: no rows, inconclusive; its settings are the non-quota fields. */
function emptyReport(o: QuotasRunOptions, q: Quotas, runId: string, startedAt: Date): QuotasReport {
  const settings = Object.fromEntries(
    Object.entries(q).filter(([k]) => !(QUOTA_NAMES as readonly string[]).includes(k)),
  ) as Omit<Quotas, QuotaName> satisfies QuotaSettings;
  return {
    schema: 'rtcap.quotas/v1',
    run_id: runId,
    profile: { name: o.profile.name, path: o.profilePath },
    target: { url: '', builtin: false, server_config: null },
    started_at: startedAt.toISOString(),
    finished_at: startedAt.toISOString(),
    abort_reason: null,
    settings,
    result: 'inconclusive',
    pass: false,
    rows: [],
  };
}

/** The built-in server with the declared quotas and the profile's rate tick and error backoff. */
async function startQuotaServer(
  o: QuotasRunOptions,
  q: Quotas,
  config: Record<string, unknown>,
  writer: RunWriter,
): Promise<BuiltinServer> {
  const { profile, log } = o;
  if (q.rate_buckets !== 12)
    log(
      `warning: the built-in server's rate window has 12 buckets; quotas.rate_buckets is ${q.rate_buckets}`,
    );
  log('starting the built-in server (rtcap serve) with the declared quotas…');
  return startBuiltinServer({
    workers: profile.target.server.workers,
    config,
    database: false,
    cpus: o.serverCpus ?? null,
    logPath: writer.path('server.log'),
    signal: o.signal,
    extraArgs: [
      '--rate-tick-ms',
      String(q.rate_tick),
      '--channel-error-backoff-ms',
      String(q.error_backoff),
      '--connect-error-backoff-ms',
      String(Math.min(q.error_backoff, CONNECT_ERROR_BACKOFF_MS)),
    ],
  });
}

/**
 * How the checks reach the target: the same socket URL, headers, tokens (a secret, a token file or
 * a private key: HS256, ES256, RS256) and TLS settings as a run's (run/target-connection).
 */
async function quotaTargetOf(
  profile: Profile,
  q: Quotas,
  url: string,
  builtin: boolean,
): Promise<QuotaTarget> {
  const tokens = tokenConfigOf(profile, builtin);
  await checkMinting(tokens);
  const { socketUrl, headers } = socketOf(profile, url);
  return {
    socketUrl,
    headers,
    vsn: profile.target.vsn,
    tokens: new TokenSource(tokens),
    apikeyIn: tokens.apikeyIn,
    replyTimeoutMs: q.error_backoff + profile.target.join_timeout,
    tls: tlsOf(profile),
  };
}
