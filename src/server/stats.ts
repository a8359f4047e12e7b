/** Plain counters read by /metrics at scrape time; nothing on the hot path touches prom-client. */
export class Stats {
  connectionsOpened = 0;
  connectionsRefused = 0;
  joinsOk = 0;
  joinsError = 0;
  /** Inbound client broadcasts accepted (WebSocket and REST). */
  broadcastsIn = 0;
  /** Broadcast frames written to sockets. */
  deliveries = 0;
  presenceEvents = 0;
  changesDelivered = 0;
  malformedFrames = 0;
  channelShutdowns = 0;
  /** `access_token` pushes that carried a new token and were verified (docs/PROTOCOL.md §3.4). */
  tokenRefreshes = 0;
  slowConsumersKilled = 0;
  /**
   * Frames handed to sockets, and socket flushes (one writev each): their ratio is the write
   * coalescing.
   */
  framesWritten = 0;
  socketFlushes = 0;
}
