/**
 * Phoenix channels / Supabase Realtime protocol vocabulary. Every event name, topic
 * prefix, timeout and exact error string used by rtcap lives here (docs/ARCHITECTURE.md "Code
 * rules"). Section numbers are those of docs/PROTOCOL.md.
 */

export const VSN_1 = '1.0.0';
export const VSN_2 = '2.0.0';
export type Vsn = typeof VSN_1 | typeof VSN_2;
export const VSNS: readonly Vsn[] = [VSN_1, VSN_2];

/** Phoenix control events (docs/PROTOCOL.md §2.5) and Supabase channel events (§3–§7). */
export const EV = {
  join: 'phx_join',
  leave: 'phx_leave',
  reply: 'phx_reply',
  close: 'phx_close',
  error: 'phx_error',
  heartbeat: 'heartbeat',
  broadcast: 'broadcast',
  presence: 'presence',
  presenceState: 'presence_state',
  presenceDiff: 'presence_diff',
  postgresChanges: 'postgres_changes',
  system: 'system',
  accessToken: 'access_token',
} as const;

/**
 * The user event of a sweep's recovery probe broadcasts (recovery/paths): rtcap's own
 * traffic on the bench topic, which the step's receivers leave out of every figure.
 */
export const PROBE_EVENT = 'rtcap-probe';

export const PHOENIX_TOPIC = 'phoenix';
export const REALTIME_TOPIC_PREFIX = 'realtime:';

/** Socket paths (docs/PROTOCOL.md §1.1). */
export const SOCKET_PATH = '/socket/websocket';
export const GATEWAY_SOCKET_PATH = '/realtime/v1/websocket';

/** Timeouts (docs/PROTOCOL.md §2.4, §1.2, §3.2). */
export const HEARTBEAT_INTERVAL_MS = 25_000; // realtime-js CONNECTION_TIMEOUTS.HEARTBEAT_INTERVAL
export const SERVER_IDLE_TIMEOUT_MS = 60_000; // Phoenix transport idle timeout
export const JOIN_TIMEOUT_MS = 10_000; // client push timeout
export const CONNECT_ERROR_BACKOFF_MS = 2_000;
export const CHANNEL_ERROR_BACKOFF_MS = 5_000;
export const MAX_FRAME_BYTES = 5_000_000;

/** v2 binary frame kinds (docs/PROTOCOL.md §2.3). */
export const KIND = {
  push: 0,
  reply: 1,
  broadcast: 2,
  userBroadcastPush: 3,
  userBroadcast: 4,
} as const;

/** Payload encodings of kinds 3 and 4. */
export const ENCODING = { binary: 0, json: 1 } as const;

/** WebSocket close codes seen in this protocol. */
export const CLOSE = {
  normal: 1000,
  goingAway: 1001,
  abnormal: 1006,
  serviceRestart: 1012,
} as const;

/** Exact reason strings (docs/PROTOCOL.md §1.5, §3.2, §3.5, §8.2). */
export const REASON = {
  unmatchedTopic: 'unmatched topic',
  topicNameRequired: 'TopicNameRequired: You must provide a topic name',
  channelCrash: 'channel_crash',
  heartbeatTimeout: 'heartbeat timeout',
  payloadSizeExceeded: 'payload_size_exceeded',
  // connect refusals (HTTP body {"error": ...})
  apiKeyMissing: 'API key is missing',
  tokenExpired: 'Token has expired',
  claimsRequired: 'Fields `role` and `exp` are required in JWT',
  invalidJwt: 'The token provided is not a valid JWT',
  badSignature: 'Failed to validate JWT signature',
  noSigner: 'Failed to generate JWT signer, check your JWT secret or JWKS configuration',
  tenantSuspended: 'Realtime was disabled for this tenant',
  tenantNotFound: 'Tenant not found',
  tooManyConnectedUsers: 'Too many connected users',
  tooManyJoins: 'Too many joins per second',
  connectError: 'Error connecting to Realtime',
  // join refusals (phx_reply error reason)
  joinTokenExpired: (secondsAgo: number) =>
    `InvalidJWTToken: Token has expired ${secondsAgo} seconds ago`,
  joinClaimsRequired: 'InvalidJWTToken: Fields `role` and `exp` are required in JWT',
  joinExpInvalid: 'InvalidJWTToken: Token expiration time is invalid',
  joinMalformedJwt: 'MalformedJWT: The token provided is not a valid JWT',
  joinBadSignature: 'JwtSignatureError: Failed to validate JWT signature',
  joinNoSigner:
    'JwtSignerError: Failed to generate JWT signer, check your JWT secret or JWKS configuration',
  joinUnauthorized: (subtopic: string) =>
    `Unauthorized: You do not have permissions to read from this Channel topic: ${subtopic}`,
  joinTooManyConnectedUsers: 'ConnectionRateLimitReached: Too many connected users',
  joinTooManyJoins: 'ClientJoinRateLimitReached: Too many joins per second',
  joinTooManyChannels: 'ChannelRateLimitReached: Too many channels',
  increaseConnectionPool: 'IncreaseConnectionPool: Please increase your connection pool size',
  privateOnly: 'PrivateOnly: This project only allows private channels',
  replayPublic: 'UnableToReplayMessages: Replay is not allowed for public channels',
  replayUnavailable: 'UnableToReplayMessages: Realtime was unable to replay messages',
  unknownChannelError: 'Unknown Error on Channel',
  joinTenantNotFound: 'TenantNotFound: Tenant with the given ID does not exist',
  joinTenantSuspended: 'RealtimeDisabledForTenant: Realtime disabled for this tenant',
  joinDbUnavailable:
    'UnableToConnectToProject: Realtime was unable to connect to the project database',
  joinDbInitializing: 'InitializingProjectConnection: Connecting to the project database',
  joinRestarting: 'RealtimeRestarting: Realtime is restarting, please standby',
  /** The error reply of a failed presence push (docs/PROTOCOL.md §5.1). */
  presencePayloadNotMap: 'Presence track payload must be a map',
  // channel shutdown messages (docs/PROTOCOL.md §3.5) beyond the rate limits below
  noLongerPermitted: (subtopic: string) =>
    `You no longer have permission to read from this Channel topic: ${subtopic}`,
  dbUnavailable: 'Realtime was unable to connect to the project database',
  // system shutdown messages (docs/PROTOCOL.md §3.5)
  tooManyMessages: 'Too many messages per second',
  tooManyPresenceMessages: 'Too many presence messages per second',
  clientPresenceRateLimit: 'Client presence rate limit exceeded',
  trackSizeExceeded: 'Track message size exceeded',
  tokenExpiredAgo: (secondsAgo: number) => `Token has expired ${secondsAgo} seconds ago`,
  subscribedToPostgres: 'Subscribed to PostgreSQL',
  replicationReady: 'Replication connection established',
  serverRequestedDisconnect: 'Server requested disconnect',
} as const;

/**
 * WebSocket framing (RFC 6455 §5.2), for rtcap's own frame reader of both ends
 * (ws-frame-reader.ts): the opcodes and header bits it reads.
 */
export const WS_OPCODE = {
  continuation: 0x0,
  text: 0x1,
  binary: 0x2,
  close: 0x8,
  ping: 0x9,
  pong: 0xa,
} as const;
export const WS_FIN = 0x80;
/** RSV1–3: set only by extensions (permessage-deflate), which rtcap's client never negotiates. */
export const WS_RSV = 0x70;
export const WS_MASK = 0x80;
/** Payload length markers of the second header byte: a 16-bit or a 64-bit length follows. */
export const WS_LEN16 = 126;
export const WS_LEN64 = 127;
