/**
 * What the starter profiles of `rtcap init` share (profile/starter, profile/starter-realtime):
 * the request and answer types, the header comment, the wire lines a probe chose, and the SQL
 * private channels need.
 */

export const STARTER_KINDS = ['supabase', 'realtime', 'phoenix'] as const;
export type StarterKind = (typeof STARTER_KINDS)[number];

/**
 * The Host header a self-hosted Realtime starter sends unless told another: Realtime reads the
 * tenant from its first label, and the development stack's tenant is realtime-dev.
 */
export const REALTIME_DEV_HOST = 'realtime-dev.localhost';

export interface StarterRequest {
  url: string;
  /** Which server this is; inferred from the URL when it can be (hosted Supabase, /realtime/v1). */
  kind?: StarterKind;
  /** Private channels (RLS-authorised): supabase and realtime only. */
  private?: boolean;
  /** Phoenix apps: the topic to join (Supabase kinds use realtime:bench / realtime:room-N). */
  topic?: string;
  /**
   * realtime: the Host header naming the tenant (target.host), e.g. realtime-private.localhost;
   * absent: REALTIME_DEV_HOST.
   */
  host?: string;
  /** The wire encoding the server was probed to carry; absent: vsn 2.0.0 binary, unprobed. */
  encoding?: StarterEncoding;
  /** phoenix: the event the probe saw a push relayed as, when not `broadcast`. */
  receiveEvent?: string;
  /** The probe's one line, kept as a comment in the profile. */
  probed?: string;
  /**
   * The server runs on this machine (a loopback URL): its CPU and memory are sampled from the
   * process listening on the port, so the profile needs no metrics endpoint or token.
   */
  local?: boolean;
  /**
   * realtime: the published development secret (rtcap serve's, the development stack's), given
   * when the probe's token minted with it was accepted: the set-up prints its export as a command.
   */
  devSecret?: string;
}

/** A set-up line that is a command to run as printed starts with this (the test runs them). */
export const COMMAND_PREFIX = '$ ';

/** target.vsn and target.binary_broadcast as a probe chose them. */
export interface StarterEncoding {
  vsn: '1.0.0' | '2.0.0';
  binary: boolean;
}

export interface Starter {
  kind: StarterKind;
  /** The socket URL the profile targets (normalised: ws/wss scheme, …/websocket path). */
  url: string;
  /** The profile's YAML text. */
  yaml: string;
  /** Environment variables the profile reads, with what each holds. */
  env: { name: string; holds: string }[];
  /** What the server needs before the first run, in order (printed by `rtcap init`). */
  setup: string[];
}

export class StarterError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StarterError';
  }
}

/** The RLS policies private channels need on realtime.messages (docs/PROTOCOL.md §6). */
export const PRIVATE_CHANNEL_SQL = `-- rtcap's private topics are realtime:room-<n>; its users are role authenticated.
create policy "rtcap bench read" on realtime.messages for select to authenticated
  using (realtime.messages.extension in ('broadcast', 'presence')
         and (select realtime.topic()) like 'room-%');
create policy "rtcap bench write" on realtime.messages for insert to authenticated
  with check (realtime.messages.extension in ('broadcast', 'presence')
              and (select realtime.topic()) like 'room-%');`;

export const HEADER = (title: string, url: string, probed?: string) =>
  `# ${title}
# Written by \`rtcap init ${url}\`; docs/YOUR-SERVER.md explains every field. Check it with
# \`npx rtcap validate FILE\`, run it with \`npx rtcap run FILE\`, then raise the steps.
${probed ? `# ${probed}\n` : ''}`;

/** The target's wire lines: vsn, and JSON text broadcasts when the server cannot read binary. */
export function wireLines(e: StarterEncoding | undefined): string {
  if (!e) return '  vsn: "2.0.0"\n';
  if (e.vsn === '1.0.0')
    return '  vsn: "1.0.0"             # probed: broadcasts came back only as vsn 1.0.0\n';
  return e.binary
    ? '  vsn: "2.0.0"\n'
    : '  vsn: "2.0.0"\n  binary_broadcast: false   # probed: JSON text frames; a binary broadcast push did not come back\n';
}
