/**
 * What each scenario puts in `StepResult.extra`. The summary and HTML renderers
 * read these fields to print the seed-002 table of the scenario's section; the model reads
 * a few of them for fits and capacity rows (presence deliveries, join ceiling, CDC
 * subscriptions). Every field is optional on read: a renderer shows "—" for a field the
 * scenario did not fill, never 0.
 *
 * Conventions: rates per second over the step's steady state (docs/FIGURES.md "Rates — one
 * definition"); counts over the whole step; latency in ms.
 * Figures already in StepResult (sent/s, delivered/s, delivery_rate, latency_ms,
 * fanout_span_ms, rates.egress_mib_per_s, server.*) are not repeated here.
 */

export interface LatencySummaryMs {
  p50: number | null;
  p95: number | null;
  p99: number | null;
}

/**
 * docs/METHOD.md §2 private broadcast: rooms × members topologies, RLS-authorised joins and sends.
 */
export interface BroadcastPrivateExtra {
  /** Number of private topics. Seed: 500 or 2,000. */
  rooms: number;
  /** Members joined to each room (the senders included). Seed: 8 or 2. */
  members_per_room: number;
  /** Messages per second per room, spread across its members. Seed: 5, 10, 2.5. */
  room_send_rate_per_s: number;
  /** Joins or sends refused by RLS ("Unauthorized: ..."), not pool errors. */
  auth_denied: number | null;
  /** Latency of the authorisation check as the server reports it, if it does. */
  auth_check_ms: LatencySummaryMs | null;
  /** phx_join → ok reply of the step's joins: the RLS read check plus a round trip, client-side. */
  join_reply_ms?: LatencySummaryMs | null;
}

/**
 * docs/METHOD.md §3 payload size: one payload size per step at a fixed rate and connection count.
 */
export interface PayloadSizeExtra {
  /** Peak bytes waiting in the sender's socket (ws bufferedAmount): growth means the
   *  server is not reading, i.e. "the server could not send" (docs/METHOD.md §3). */
  send_buffer_peak_bytes: number | null;
  /** Ack round trip (load.ack), the other sign of a server that cannot keep up. */
  ack_latency_ms: LatencySummaryMs | null;
  /** Which side failed when delivery fell short (docs/METHOD.md §3: the sender failing
   *  to send, not receivers losing messages):
   *  sends not leaving / buffers growing / acks late, versus receivers losing messages. */
  failure_side: 'server-could-not-send' | 'receivers-lost' | null;
  /** The sender-side signs behind failure_side, one line each (empty: the sender kept up). */
  sender_evidence?: string[];
}

/**
 * docs/METHOD.md §4 connection and authorisation rate: private joins at a fixed join rate per step.
 */
export interface JoinRateExtra {
  /** First attempts plus reconnects: succeeded + rejected + failed_other + pending. */
  join_attempts: number;
  join_succeeded: number;
  /** Refused by the server (error join reply or refused upgrade). */
  join_rejected: number;
  /** Failed without a refusal: join timeouts, network errors, closes. */
  join_failed_other?: number;
  /** Attempts still unanswered when the step ended (reconnects in flight). */
  join_pending_at_end?: number;
  /** Rejections by verbatim reason, e.g. "IncreaseConnectionPool: Please increase ...". */
  rejections_by_reason: Record<string, number>;
  /** Seconds from the first rejection to the first full second with a successful join and
   *  without a rejection (docs/METHOD.md §4: 30 s window). */
  first_rejection_to_recovery_s: number | null;
  /** null: nothing was rejected; false: rejections and no recovery before the step ended. */
  recovered?: boolean | null;
  /** The server's authorisation pool (db_pool), when known. */
  db_pool: number | null;
  /** Median time of one authorisation check in ms (seed: 80 ms). */
  auth_check_ms_p50: number | null;
  /** db_pool ÷ check time, the ceiling docs/METHOD.md §4 predicts (10 ÷ 80 ms ≈ 125/s). */
  predicted_ceiling_per_s: number | null;
  /** Highest successful joins/s held for a full second in this step. */
  measured_ceiling_per_s: number | null;
  /** Reconnect attempts made after rejections (with backoff and jitter). */
  reconnects: number | null;
  /** phx_join → ok reply of the step's successful joins (check time only while not queueing). */
  join_reply_ms?: LatencySummaryMs | null;
}

/** docs/METHOD.md §5 presence: members per topic × share of members updating per second. */
export interface PresenceExtra {
  members_per_topic: number;
  topics: number;
  /** Share of members sending a presence update each second: 0.1 = docs/METHOD.md §5's 10 %. */
  update_share_per_s: number;
  /** track() calls per second, all topics together. */
  presence_updates_per_s: number | null;
  /**
   * presence_diff messages delivered per second, all members together (docs/METHOD.md §5
   * "12,670/s").
   */
  presence_deliveries_per_s: number | null;
  /** Update to receipt at the other members. */
  presence_latency_ms: LatencySummaryMs | null;
  /**
   * Bytes of the presence_state snapshot per member (docs/METHOD.md §5: 174 KB per member at
   * 10,000).
   */
  snapshot_bytes_per_member: number | null;
  /** Presence-specific errors (rate limited, too many clients per channel). */
  presence_errors: number | null;
  /** The tenant's max_presence_events_per_second, for the docs/METHOD.md §5 quota arithmetic. */
  presence_quota_per_s: number | null;
  /**
   * Σ over topics of members² × per-member update rate: what the quota must cover
   * (docs/METHOD.md §5).
   */
  presence_quota_needed_per_s?: number | null;
  /** Updates per second in one topic (members × update share). */
  topic_updates_per_s?: number | null;
  /**
   * quota ÷ members: the update rate one topic may have at the whole quota (docs/METHOD.md §5
   * table).
   */
  allowed_topic_updates_per_s?: number | null;
  /** Mean bytes of the presence_state snapshots received at join, and per presence entry. */
  snapshot_bytes_mean?: number | null;
  snapshot_bytes_per_entry?: number | null;
  /** presence_state snapshots received at join, all members together. */
  snapshots_received?: number;
  /** Tracks the server answered ok. */
  presence_track_replies?: number;
}

/** docs/METHOD.md §6 Postgres Changes: N subscribers, rows inserted in rounds. */
export interface PostgresChangesExtra {
  subscribers: number;
  /** Subscriptions the server confirmed ("Subscribed to PostgreSQL" system messages). */
  subscribed: number | null;
  rounds: number;
  changes_per_round: number;
  deliveries_expected: number;
  deliveries_received: number;
  deliveries_missing: number;
  /** Longest poll of the server's change poller, when the server exposes it (docs/METHOD.md §6:
   *  the poller peak). */
  poll_ms_max: number | null;
  /** Largest lag of the change poller behind the database, when the server exposes it. */
  poller_lag_ms_max?: number | null;
  /** Changes inserted per second over the steady state. */
  changes_per_s: number | null;
  /** Rows the coordinator's inserts failed to commit (never counted as sent). */
  inserts_failed?: number;
  /** Receipt minus the row's insert time (client clock). */
  latency_from_insert_ms: LatencySummaryMs | null;
  /** Receipt minus commit_timestamp (server clock). */
  latency_from_commit_ms: LatencySummaryMs | null;
  subs_pool_size: number | null;
  filtered: boolean | null;
}

/** docs/METHOD.md §7 row 6 write-only: sends with no receivers. */
export interface WriteOnlyExtra {
  /** Acks received per second (load.ack). */
  acked_per_s: number | null;
  /** Why sends stopped rising, verbatim (e.g. "socket buffer over 16 MiB"), or null. */
  stop_reason: string | null;
  /** Connections sending, each alone on its topic. */
  senders?: number;
}

/** Mixed load: broadcast + presence + Postgres Changes at once, against their solo runs. */
export interface MixedComponent {
  name: 'broadcast' | 'presence' | 'postgres-changes';
  latency_ms: LatencySummaryMs;
  /** The same component's latency measured alone (from a solo run or step), if known. */
  solo_latency_ms: LatencySummaryMs | null;
  delivery_rate: number | null;
  delivered_per_s: number | null;
  /** The component's ledger: sent (or inserted), expected, received, lost = expected − received. */
  sent?: number;
  expected?: number;
  received?: number;
  lost?: number;
}
export interface MixedExtra {
  components: MixedComponent[];
}

/** Which extra each scenario writes. broadcast-public writes none (all in StepResult). */
export interface ScenarioExtraMap {
  'broadcast-public': Record<string, never>;
  'broadcast-private': BroadcastPrivateExtra;
  'payload-size': PayloadSizeExtra;
  'join-rate': JoinRateExtra;
  presence: PresenceExtra;
  'postgres-changes': PostgresChangesExtra;
  'write-only': WriteOnlyExtra;
  mixed: MixedExtra;
}

/** The extra of a step, typed by scenario, every field optional (a scenario may fill part). */
export function extraOf<S extends keyof ScenarioExtraMap>(
  step: { extra: Record<string, unknown> },
  _scenario: S,
): Partial<ScenarioExtraMap[S]> {
  return (step.extra ?? {}) as Partial<ScenarioExtraMap[S]>;
}
