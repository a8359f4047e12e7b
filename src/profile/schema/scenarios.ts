/**
 * The scenario names and the sections only some scenarios read: `private` (private channels'
 * topics and per-user tokens) and `changes` (the Postgres Changes table, binding and loader).
 */
import { z } from 'zod';
import { positiveInt } from './fields.js';

export const SCENARIOS = [
  'broadcast-public',
  'broadcast-private',
  'payload-size',
  'join-rate',
  'presence',
  'postgres-changes',
  'write-only',
  'mixed',
] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

export const privateSchema = z
  .object({
    topic_prefix: z
      .string()
      .default('room-')
      .describe(
        'private topics are realtime:<prefix><n> (the built-in server allows room-*, bench*, slow-*)',
      ),
    role: z.string().default('authenticated').describe('`role` claim of the per-user tokens'),
    sub_prefix: z.string().default('user-').describe('`sub` claim of connection i is <prefix><i>'),
    user_token_file: z
      .string()
      .optional()
      .describe(
        'per-user tokens, one per line, instead of minting them with target.auth.jwt_secret',
      ),
    db_pool: positiveInt
      .optional()
      .describe(
        "the server's authorisation pool size (db_pool), for join-rate's predicted ceiling db_pool ÷ check time; default: target.server.config.db_pool (1) when rtcap starts the built-in server, unknown otherwise",
      ),
  })
  .strict();

/** The publication Supabase Realtime reads changes from (the built-in server's too). */
export const DEFAULT_CHANGES_PUBLICATION = 'supabase_realtime';

export const changesSchema = z
  .object({
    schema: z.string().default('public').describe('schema of the table subscribers listen to'),
    table: z
      .string()
      .default('bench_messages')
      .describe('table subscribers listen to and the loader inserts into'),
    event: z
      .enum(['*', 'INSERT', 'UPDATE', 'DELETE'])
      .default('INSERT')
      .describe('postgres_changes event of the binding'),
    filter_column: z
      .string()
      .default('room_id')
      .describe('column of the filter when a step is `filtered` (room_id=eq.<room>)'),
    insert_sql: z
      .string()
      .optional()
      .describe(
        'the loader\'s INSERT: $1 room id, $2 body ("stream:seq"), $3 scheduled time (epoch ms); default inserts (room_id, body, sent_at) into the table',
      ),
    publication: z
      .string()
      .regex(
        /^[a-z_][a-z0-9_$]{0,62}$/,
        'a PostgreSQL publication name: lower-case letters, digits, _ and $, not starting with a digit, at most 63 characters',
      )
      .default(DEFAULT_CHANGES_PUBLICATION)
      .describe(
        "the publication the server reads changes from (Supabase Realtime's is supabase_realtime): a run against a server rtcap did not start checks the table is in it. The built-in server always publishes in supabase_realtime",
      ),
    claims: z
      .record(z.string(), z.unknown())
      .default({ rooms: '*' })
      .describe(
        'extra claims of the subscribers\' tokens (the built-in bench table shows rooms listed in `rooms`, "*" for all)',
      ),
  })
  .strict();
