/**
 * What stopped a step, a search or a capacity row, as data (a discriminated union on `kind`)
 * and in words. Every renderer that says what limited the server — the terminal headline,
 * summary.md, report.html, capacity.md — words a Limit with `limitWords`, so one cause reads
 * the same everywhere. A Limit is plain JSON: result.json and capacity.json carry it as is.
 *
 * Kinds that are the server's own limit make a row an upper bound (its value is a limit);
 * kinds that stopped the measurement before the server did (this machine's limits, the load
 * generator, the time budget, the end of the range) make it a lower bound: the server carries
 * at least that much (`isLowerBound`).
 *
 * Pure: numbers formatted by ./format only; nothing of run/ or report/.
 */
import { fmtBytes, fmtInt, fmtMs, fmtPct, fmtRate, fmtRatioPct } from './format.js';

/**
 * Whose process met an environment limit: the server's, or rtcap's own (coordinator, generators).
 */
export type LimitProcess = 'server' | 'generator' | 'coordinator';

/** An operating-system resource that ran out. */
export type EnvironmentResource = 'open files' | 'ephemeral ports' | 'memory cgroup';

/** Which of the generator's own figures tripped (docs/VERDICTS.md, generator-bound). */
export type GeneratorFigure =
  'offered' | 'event-loop lag p99' | 'CPU' | 'OS limit' | 'pending state';

export type Limit =
  /** Server CPU % reached its safe line (measured, or where the fitted line crosses it). */
  | { kind: 'server-cpu'; cpu_pct: number | null; safe_pct: number }
  /** Server memory % reached its safe line. */
  | { kind: 'server-memory'; mem_pct: number | null; safe_pct: number }
  /** Everything delivered, but first-receipt latency over the SLO. */
  | {
      kind: 'latency-slo';
      p95_ms: number | null;
      slo_p95_ms: number | null;
      detail?: string | null;
    }
  /** Messages or acknowledgements the server did not deliver. */
  | { kind: 'delivery'; detail: string | null }
  /** Joins too slow, too few, or answered below the rate offered. */
  | { kind: 'join-slo'; detail: string | null }
  /** The server said no: an error reply or a close reason, quoted as it came. */
  | { kind: 'server-rejection'; reason: string; count: number }
  /** Connections the server dropped without saying why. */
  | { kind: 'disconnects'; count: number }
  /** The authorisation pool's predicted ceiling (db_pool ÷ check time) with headroom. */
  | { kind: 'auth-pool'; ceiling_per_s: number; headroom: number }
  /** The sender could not get large messages out (egress). */
  | { kind: 'bandwidth' }
  /** The documented presence quota (events/s per tenant) is lower than what was measured. */
  | { kind: 'presence-quota'; quota_per_s: number | null }
  /**
   * An operating-system limit of a process on this machine: `limit` is the number (open-file
   * limit, ports per source address, cgroup bytes). `builtin`: the server is rtcap's own.
   */
  | {
      kind: 'environment';
      resource: EnvironmentResource;
      process: LimitProcess;
      limit: number;
      pid?: number | null;
      builtin?: boolean;
      /** Ephemeral ports: how many source addresses the generator connected from (≥ 1). */
      addresses?: number;
    }
  /** The load generator fell behind: the figure that tripped, its value and its limit. */
  | {
      kind: 'generator-bound';
      figure: GeneratorFigure;
      value: number | null;
      limit: number | null;
      detail?: string | null;
    }
  /**
   * The path a search loads (the change pipeline, presence, broadcast) did not come back within
   * the recovery probe's wait after a step: the server's own limit, at the last stable step.
   * `path`: the path in words; `after`: the driver and value of the step it did not recover from.
   */
  | { kind: 'no-recovery'; path: string; after: string; wait_s: number }
  /** The search or campaign entry spent its time budget before finding a limit. */
  | { kind: 'budget-spent'; budget_s: number | null }
  /** The steps asked for ended before any limit was reached. */
  | { kind: 'range-end'; highest?: string | null }
  /** Not one step was stable, so nothing can be said of where the limit is. */
  | { kind: 'no-stable-step' }
  /**
   * The server went away (killed, crashed) in `step`: no limit of its load was measured, so what
   * was carried before is a lower bound.
   */
  | { kind: 'server-gone'; step: number };

export type LimitKind = Limit['kind'];

/** The paths a search's recovery probe exercises, in words ("change pipeline did not recover"). */
export const RECOVERY_PATH_WORDS: Readonly<Record<string, string>> = {
  broadcast: 'broadcast path',
  join: 'join path',
  presence: 'presence path',
  'postgres-changes': 'change pipeline',
};

const LOWER_BOUND_KINDS: ReadonlySet<LimitKind> = new Set<LimitKind>([
  'environment',
  'generator-bound',
  'budget-spent',
  'range-end',
  'server-gone',
]);

/** True when the limit stopped the measurement, not the server: the value is "at least". */
export function isLowerBound(limit: Limit): boolean {
  return LOWER_BOUND_KINDS.has(limit.kind);
}

/** The limit's name alone, for a narrow column ("environment limit", "server rejection"). */
export const LIMIT_KIND_NAME: Record<LimitKind, string> = {
  'server-cpu': 'server CPU safe line',
  'server-memory': 'server memory safe line',
  'latency-slo': 'latency SLO',
  delivery: 'delivery',
  'join-slo': 'join SLO',
  'server-rejection': 'server rejection',
  disconnects: 'dropped connections',
  'auth-pool': 'authorisation pool',
  bandwidth: 'bandwidth',
  'presence-quota': 'presence quota',
  'no-recovery': 'did not recover',
  environment: 'environment limit',
  'generator-bound': 'generator-bound',
  'budget-spent': 'budget spent',
  'range-end': 'range end',
  'no-stable-step': 'no stable step',
  'server-gone': 'server went away',
};

const PROCESS_WORDS: Record<LimitProcess, string> = {
  server: 'server process',
  generator: "rtcap's generator process",
  coordinator: "rtcap's coordinator process",
};

type EnvironmentLimit = Extract<Limit, { kind: 'environment' }>;

/**
 * "server process open-file limit 20,000" — the resource, whose process, the number (the pid stays
 * in the data).
 */
export function environmentText(l: EnvironmentLimit): string {
  const who = PROCESS_WORDS[l.process];
  switch (l.resource) {
    case 'open files':
      return `${who} open-file limit ${fmtInt(l.limit)}`;
    case 'ephemeral ports': {
      const per = `${who} ephemeral ports: ${fmtInt(l.limit)} per source address`;
      if (!l.addresses) return per;
      const n = l.addresses;
      return `${per} × ${fmtInt(n)} source address${n === 1 ? '' : 'es'} = ${fmtInt(l.limit * n)} connections to one server address`;
    }
    case 'memory cgroup':
      return `${who} memory cgroup limit ${fmtBytes(l.limit)}`;
  }
}

/** What to do about an environment limit, in one clause. */
export function environmentRemedy(l: EnvironmentLimit): string {
  if (l.resource === 'open files') {
    if (l.process !== 'server')
      return 'raise `ulimit -n` for rtcap, or spread the load over more generator processes or machines';
    return l.builtin
      ? 'raise `ulimit -n` before the run, or run more server processes (target.server.workers, `rtcap serve --workers`)'
      : "raise the server's open-file limit (`ulimit -n`, LimitNOFILE= in its unit)";
  }
  if (l.resource === 'ephemeral ports') {
    return 'add source addresses (load.source_addresses) or widen net.ipv4.ip_local_port_range';
  }
  return l.process === 'server'
    ? "raise the memory limit of the server's cgroup (memory.max, memory.limit_in_bytes), or run it outside one: the instance's own memory was not reached"
    : "raise the memory limit of rtcap's cgroup (memory.max), or spread the load over more machines";
}

/**
 * A table row's limit in words: its Limit when it has one, else the short tag a file written
 * before limits were recorded carries ("—" when neither).
 */
export function rowLimitWords(
  row: { limit?: Limit | null; limiting_factor?: string | null },
  opts: { remedy?: boolean } = {},
): string {
  if (row.limit) return limitWords(row.limit, opts);
  return row.limiting_factor ?? '—';
}

/** What to do about a limit that stopped the measurement, or null when there is nothing to say. */
export function limitRemedy(limit: Limit): string | null {
  return limit.kind === 'environment' ? environmentRemedy(limit) : null;
}

function generatorText(l: Extract<Limit, { kind: 'generator-bound' }>): string {
  // The verdict's own words for the figure, when the limit carries them.
  if (l.detail && l.figure !== 'OS limit') return l.detail;
  const over = (v: string, lim: string, cmp: string) =>
    l.limit === null ? v : `${v} ${cmp} ${lim}`;
  switch (l.figure) {
    case 'offered':
      return `offered ${over(fmtRatioPct(l.value), fmtRatioPct(l.limit), '<')} of the scheduled load`;
    case 'event-loop lag p99':
      return `generator event-loop lag p99 ${over(fmtMs(l.value), fmtMs(l.limit), '>')}`;
    case 'CPU':
      return `generator CPU ${over(fmtPct(l.value, 0), fmtPct(l.limit, 0), '>')}`;
    case 'OS limit':
      return `generator OS limit${l.detail ? ` (${l.detail})` : ''}`;
    case 'pending state':
      return `generator pending state full${l.detail ? ` (${l.detail})` : ''}`;
  }
}

/** "join SLO (joins 40/s < …)"; a detail that already starts with the name stands alone. */
function withDetail(name: string, detail: string | null | undefined): string {
  if (!detail) return name;
  return detail.startsWith(name) ? detail : `${name} (${detail})`;
}

/**
 * The limit in words, for every renderer: "server rejection: “too many connections” ×20",
 * "environment limit: server process open-file limit 20,000 — raise `ulimit -n` …".
 * `remedy: false` leaves out what to do (for a narrow cell beside a remedy column).
 */
export function limitWords(limit: Limit, opts: { remedy?: boolean } = {}): string {
  const remedy = opts.remedy ?? true;
  switch (limit.kind) {
    case 'server-cpu':
      return limit.cpu_pct === null
        ? `server CPU safe line (${fmtPct(limit.safe_pct, 0)})`
        : `server CPU safe line: ${fmtPct(limit.cpu_pct, 1)} ≥ ${fmtPct(limit.safe_pct, 0)}`;
    case 'server-memory':
      return limit.mem_pct === null
        ? `server memory safe line (${fmtPct(limit.safe_pct, 0)})`
        : `server memory safe line: ${fmtPct(limit.mem_pct, 1)} ≥ ${fmtPct(limit.safe_pct, 0)}`;
    case 'latency-slo':
      if (limit.detail) return withDetail('latency SLO', limit.detail);
      return limit.p95_ms !== null && limit.slo_p95_ms !== null
        ? `latency SLO: p95 ${fmtMs(limit.p95_ms)} > ${fmtMs(limit.slo_p95_ms)}`
        : 'latency SLO';
    case 'delivery':
      return withDetail('delivery', limit.detail);
    case 'join-slo':
      return withDetail('join SLO', limit.detail);
    case 'server-rejection':
      return `server rejection: “${limit.reason}” ×${fmtInt(limit.count)}`;
    case 'disconnects':
      return `dropped connections: ${fmtInt(limit.count)} closed without a reason`;
    case 'auth-pool':
      return `authorisation pool: ceiling ${fmtRate(limit.ceiling_per_s)} × headroom ${limit.headroom}`;
    case 'bandwidth':
      return 'bandwidth: the server could not send the messages out';
    case 'presence-quota':
      return limit.quota_per_s === null
        ? 'presence quota'
        : `presence quota ${fmtRate(limit.quota_per_s)}`;
    case 'no-recovery':
      return `${limit.path} did not recover after ${limit.after} (within ${fmtInt(limit.wait_s)} s)`;
    case 'environment': {
      const text = `environment limit: ${environmentText(limit)}`;
      return remedy ? `${text} — ${environmentRemedy(limit)}` : text;
    }
    case 'generator-bound':
      return `generator-bound: ${generatorText(limit)}`;
    case 'budget-spent':
      return limit.budget_s === null
        ? 'budget spent'
        : `budget spent (${fmtInt(limit.budget_s)} s)`;
    case 'range-end':
      return limit.highest
        ? `range end: no limit reached up to ${limit.highest}`
        : 'range end: no limit reached';
    case 'no-stable-step':
      return 'no stable step';
    case 'server-gone':
      return `the server went away in step ${limit.step}: no limit of its load was measured`;
  }
}
