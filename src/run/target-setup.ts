/**
 * The coordinator's first stage: the target it loads. The built-in server when the profile names
 * no URL, then what every later stage needs to reach and watch it — the socket URL and headers,
 * tokens and TLS, the server's sampler and the basis of its CPU and memory figures.
 */
import type { TlsOptions } from '../client/socket-open.js';
import type { TokenConfig } from '../client/auth.js';
import {
  basisWarning,
  declaredBasis,
  readServerBasis,
  type ServerBasis,
} from '../monitor/server-basis.js';
import type { ResourceSampler } from '../monitor/types.js';
import type { RunResult } from '../result/result.js';
import { errorLine, redactText } from '../redact/redact.js';
import { Abort, interruptAbort, type AbortFunnel } from './abort.js';
import type { RunWriter } from './output.js';
import type { Profile } from '../profile/schema.js';
import type { TargetPart } from './run-options.js';
import { localServerOf, serverSamplerFor } from './samplers.js';
import { testFault } from './test-fault.js';
import { StartCancelled, startBuiltinServer, type BuiltinServer } from './target.js';
import {
  builtinConfigOf,
  checkMinting,
  socketOf,
  tlsOf,
  tokenConfigOf,
} from './target-connection.js';

/** The target as the rest of the run reaches and samples it. */
export interface TargetSetup {
  /** The built-in server rtcap started; null for a target given by URL. */
  server: BuiltinServer | null;
  targetUrl: string;
  sampler: ResourceSampler | null;
  basis: ServerBasis;
  tokens: TokenConfig;
  tls: TlsOptions | undefined;
  socketUrl: string;
  headers: Record<string, string>;
}

/** What the target's set-up reads: the profile, the target part, the log and the run's signal. */
export interface TargetArgs {
  profile: Profile;
  target: TargetPart;
  log: (line: string) => void;
  /** The run's interrupt: it cancels the built-in server's start. */
  signal?: AbortSignal;
  writer: RunWriter;
  funnel: AbortFunnel;
  result: RunResult;
  onServer: (server: BuiltinServer) => void;
}

/**
 * Starts the target if it is rtcap's own, and reads how to reach and sample it. `onServer` is
 * called as soon as a built-in server runs, so that a later failure here still stops it.
 */
export async function setUpTarget(args: TargetArgs): Promise<TargetSetup> {
  const { profile, log, result } = args;
  const server = await startTarget(args);
  if (server) args.onServer(server);
  testFault('target');
  const targetUrl = server?.url ?? (args.target.url ?? profile.target.url)!;
  result.target.url = redactText(targetUrl);
  const local = localServerOf(profile, server?.pid ?? null, targetUrl);
  const sampler = serverSamplerFor(profile, local);
  result.target.server_sampling = sampler?.source ?? null;
  const localPid = local?.pid ?? null;
  const basis = localPid
    ? readServerBasis(localPid, profile.target.instance)
    : declaredBasis(profile.target.instance);
  const basisWarned = basisWarning(basis, profile.target.instance);
  if (basisWarned) log(`warning: ${basisWarned}`);
  const tokens = tokenConfigOf(profile, server !== null);
  await checkMinting(tokens);
  const tls = tlsOf(profile);
  const { socketUrl, headers } = socketOf(profile, targetUrl);
  return { server, targetUrl, sampler, basis, tokens, tls, socketUrl, headers };
}

/**
 * The built-in server when the profile names no URL (null otherwise); a server that dies aborts the
 * run.
 */
async function startTarget(args: TargetArgs): Promise<BuiltinServer | null> {
  const { profile, log, writer, funnel, signal } = args;
  if (args.target.url ?? profile.target.url) return null;
  log('starting the built-in server (rtcap serve)…');
  // Not raced against the abort: a start that is cancelled stops what it started (server,
  // Postgres, their files) before it rejects; the run's signal cancels it.
  const server = await startBuiltinServer({
    workers: profile.target.server.workers,
    accept: profile.target.server.accept,
    config: await builtinConfigOf(profile),
    database: profile.target.server.database,
    cpus: args.target.serverCpus ?? null,
    logPath: writer.path('server.log'),
    signal,
  }).catch((e: unknown) => {
    if (e instanceof StartCancelled) throw interruptAbort(signal);
    throw new Abort('aborted', errorLine(e));
  });
  // exited only resolves (with why the server ended); it never rejects.
  void server.exited.then((why) => funnel.abort('aborted', why));
  log(
    `built-in server: ${server.url} (pid ${server.pid}, ${server.workers} worker${server.workers === 1 ? '' : 's'}${server.database ? `, database ${server.database}` : ''})`,
  );
  return server;
}
