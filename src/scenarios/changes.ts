/**
 * Postgres Changes pieces shared by postgres-changes and mixed: the subscribers' binding,
 * membership key and token claims, and the rows the coordinator inserts (docs/PROTOCOL.md §7).
 */
import type { Profile } from '../profile/schema.js';
import { countAt } from './common.js';
import type { InsertTraffic } from './types.js';

/**
 * Unfiltered rows spread over this many streams: rows of one stream are inserted one after another
 * (inserts.ts).
 */
export const INSERT_LANES = 4;

/** The loader's default INSERT: the built-in server's bench tables have these columns. */
export function defaultInsertSql(profile: Profile): string {
  const q = (id: string) => `"${id.replace(/"/g, '""')}"`;
  return `insert into ${q(profile.changes.schema)}.${q(profile.changes.table)} (room_id, body, sent_at) values ($1, $2, $3)`;
}

/**
 * The binding a subscriber joins with (docs/PROTOCOL.md §7.2): with `filtered`,
 * `<filter_column>=eq.<room>`.
 */
export function changesBinding(
  profile: Profile,
  room: number,
  filtered: boolean,
): { event: string; schema: string; table: string; filter?: string } {
  const c = profile.changes;
  return {
    event: c.event,
    schema: c.schema,
    table: c.table,
    ...(filtered ? { filter: `${c.filter_column}=eq.${room}` } : {}),
  };
}

/** Membership key of a subscriber (StepPlan.changesKeyOf): one per room when filtered. */
export function changesKey(room: number, filtered: boolean): string {
  return filtered ? `changes:room-${room}` : 'changes:all';
}

/** Claims of a subscriber's own token, so the table's RLS shows it the rows (changes.claims). */
export function subscriberClaims(profile: Profile, conn: number): Record<string, unknown> {
  return { sub: `subscriber-${conn}`, ...profile.changes.claims };
}

/** Changes in one round: one row every subscriber sees, or one row per room when filtered. */
export function changesPerRound(rooms: number, filtered: boolean): number {
  return filtered ? rooms : 1;
}

/**
 * The rows of a step (docs/METHOD.md §6 delivers four rounds): whole rounds at `ratePerS` over the
 * steady state. Filtered: room r's rows are stream r; unfiltered: rows take INSERT_LANES streams in
 * turn. `roomId` ($1) is the row's room either way.
 */
export function changeRows(
  profile: Profile,
  opts: {
    ratePerS: number;
    durationMs: number;
    rooms: number;
    filtered: boolean;
    streamOf: (n: number) => number;
  },
): InsertTraffic | null {
  const perRound = changesPerRound(opts.rooms, opts.filtered);
  const count = Math.floor(countAt(opts.ratePerS, opts.durationMs) / perRound) * perRound;
  if (opts.ratePerS <= 0 || count === 0) return null;
  const lanes = opts.filtered ? opts.rooms : INSERT_LANES;
  return {
    ratePerS: opts.ratePerS,
    count,
    sql: profile.changes.insert_sql ?? defaultInsertSql(profile),
    rowOf: (k) => ({
      stream: opts.streamOf(k % lanes),
      seq: Math.floor(k / lanes),
      roomId: k % opts.rooms,
    }),
  };
}
