/**
 * The real-server suite's side (test/real): which real servers the environment names, the one
 * line a skipped suite prints, how a run's output is logged, the result.json a run wrote, and the
 * table Postgres Changes runs write into on a Realtime rtcap did not start. rtcap's own command
 * line runs through rtcap-process.ts's rtcapCli, as every suite's does.
 *
 * Nothing here fakes a server: the servers are real (Supabase Realtime, a Phoenix app) and
 * started by hand; docs/DEVELOPMENT.md says how.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import WebSocket from 'ws';
import { TokenSource } from '../../src/client/auth.js';
import type { RunResult, StepResult } from '../../src/result/result.js';
import { benchTableSetupSql } from '../../src/builtin/bench-table.js';
import { sleep } from '../../src/util/sleep.js';
import type { CliRun } from './rtcap-process.js';

/** A Supabase Realtime started by hand, as the RTCAP_REALTIME_* variables name it. */
export interface RealtimeEnv {
  /** Its socket URL, e.g. ws://127.0.0.1:4100/socket/websocket. */
  url: string;
  /** The tenant's JWT secret (rtcap mints one token per connection with it). */
  jwtSecret: string;
  /** The Host header naming the tenant (its first label). */
  host: string;
  /** The tenant database's URL, where the Postgres Changes loader inserts. */
  dbUrl: string;
}

/** A Phoenix channels app started by hand: its socket URL and the topic to join. */
export interface PhoenixEnv {
  url: string;
  topic: string;
}

export const REALTIME_VARS =
  'RTCAP_REALTIME_URL (with RTCAP_REALTIME_JWT_SECRET, RTCAP_REALTIME_DB_URL, optional RTCAP_REALTIME_HOST)';
export const PHOENIX_VARS = 'RTCAP_PHOENIX_URL (optional RTCAP_PHOENIX_TOPIC)';

/**
 * The Realtime the environment names, or null when RTCAP_REALTIME_URL is unset. Set but
 * incomplete is an error naming what is missing: a half-configured suite must not pass by
 * skipping.
 */
export function realtimeEnv(env = process.env): RealtimeEnv | null {
  const url = env.RTCAP_REALTIME_URL;
  if (!url) return null;
  const missing = ['RTCAP_REALTIME_JWT_SECRET', 'RTCAP_REALTIME_DB_URL'].filter((v) => !env[v]);
  if (missing.length > 0)
    throw new Error(`RTCAP_REALTIME_URL is set but ${missing.join(' and ')} not: set them too`);
  return {
    url,
    jwtSecret: env.RTCAP_REALTIME_JWT_SECRET!,
    host: env.RTCAP_REALTIME_HOST || 'realtime-dev.localhost',
    dbUrl: env.RTCAP_REALTIME_DB_URL!,
  };
}

export function phoenixEnv(env = process.env): PhoenixEnv | null {
  const url = env.RTCAP_PHOENIX_URL;
  if (!url) return null;
  return { url, topic: env.RTCAP_PHOENIX_TOPIC || 'room:bench' };
}

/** The one line a run without real servers prints, naming what to set; null when both are set. */
export function skipLine(
  file: string,
  realtime: RealtimeEnv | null,
  phoenix: PhoenixEnv | null,
): string | null {
  const unset = [realtime ? null : REALTIME_VARS, phoenix ? null : PHOENIX_VARS].filter(Boolean);
  if (unset.length === 0) return null;
  const what = realtime || phoenix ? 'its other half' : 'it';
  return `${file}: SKIPPED — no real server named: set ${unset.join(' or ')} to run ${what} against a server you started (docs/DEVELOPMENT.md)\n`;
}

/** Writes the command and what it printed to the suite's output, the record of the run. */
export function logCli(what: string, args: string[], run: CliRun): void {
  const secs = (run.ms / 1000).toFixed(0);
  const tail = run.code === 0 ? '' : `\n--- stderr (last 40 lines)\n${lastLines(run.stderr, 40)}`;
  console.log(
    `\n=== ${what}\n$ rtcap ${args.join(' ')}\n(exit ${run.code}, ${secs} s)\n${run.stdout}${tail}`,
  );
}

export function lastLines(text: string, n: number): string {
  return text.trimEnd().split('\n').slice(-n).join('\n');
}

export function readResult(dir: string): RunResult {
  return JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as RunResult;
}

/** One line per step: verdict, delivery, first-receipt p50/p95, deliveries/s, server CPU. */
export function stepLine(s: StepResult): string {
  const cpu = s.server?.cpu_pct;
  const errors = Object.entries(s.errors ?? {});
  const errs = errors.length ? `; errors: ${errors.map(([k, n]) => `${n}× ${k}`).join('; ')}` : '';
  return (
    `step ${s.index} ${s.verdict}: joined ${s.connections.joined}/${s.connections.target}, ` +
    `delivered ${s.messages.received}/${s.messages.expected}, ` +
    `p50 ${s.latency_ms?.p50 ?? '—'} ms, p95 ${s.latency_ms?.p95 ?? '—'} ms, ` +
    `${s.rates?.delivered_per_s ?? '—'} deliveries/s, server CPU ${cpu ?? '—'} %${errs}`
  );
}

/**
 * The table rtcap's Postgres Changes loader writes by default (changes.table `bench_messages`:
 * room_id, body "stream:seq", sent_at in epoch ms), created in a Realtime's database when it is
 * missing, readable by the subscribers' roles and in Realtime's publication. This is the set-up
 * docs/YOUR-SERVER.md asks of a self-hosted Realtime; safe to run again.
 */
export const BENCH_TABLE_SQL = benchTableSetupSql();

export async function ensureBenchTable(dbUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  try {
    await client.query(BENCH_TABLE_SQL);
  } finally {
    await client.end();
  }
}

/** How long the tenant may take to connect to its database when woken (bounded retries). */
const WAKE_TRIES = 30;

/**
 * One connection joined to the tenant for the whole suite. Realtime stops a tenant's database
 * connection once it has had no clients for a while, and refuses the joins that arrive while it
 * reconnects ("UnableToConnectToProject"): the first burst of a run after a pause would be
 * refused. The reference recipe's start script warms each tenant up with one join for the same
 * reason; this keeps it warm between the suite's runs. Returns what closes it.
 */
export async function holdTenant(env: RealtimeEnv): Promise<() => void> {
  const tokens = new TokenSource({ jwtSecret: env.jwtSecret, role: 'anon', ttlMs: 3_600_000 });
  const token = (await tokens.tokenFor(0))!;
  const url = `${env.url}?apikey=${encodeURIComponent(token)}&vsn=1.0.0`;
  const ws = new WebSocket(url, { headers: { host: env.host } });
  await new Promise<void>((ok, fail) => {
    ws.once('open', () => ok());
    ws.once('error', fail);
  });
  let ref = 0;
  const send = (topic: string, event: string, payload: unknown) =>
    ws.send(JSON.stringify({ topic, event, payload, ref: String(++ref), join_ref: '1' }));
  const config = { broadcast: { self: false }, presence: { key: '' }, postgres_changes: [] };
  for (let i = 0; i < WAKE_TRIES; i++) {
    const reply = new Promise<string>((ok) => ws.once('message', (d: Buffer) => ok(d.toString())));
    send('realtime:rtcap-suite-hold', 'phx_join', { config, access_token: token });
    if ((await reply).includes('"status":"ok"')) break;
    if (i === WAKE_TRIES - 1)
      throw new Error(`the tenant refused the suite's join: ${await reply}`);
    await sleep(1000);
  }
  const beat = setInterval(() => send('phoenix', 'heartbeat', {}), 20_000);
  return () => {
    clearInterval(beat);
    ws.close();
  };
}
