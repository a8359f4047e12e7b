/**
 * What a step counts of its messages (StepResult.messages): scheduled, sent, received, lost,
 * duplicated, reordered and acknowledged, each kept apart, so a failed send is never counted as
 * sent nor a duplicate as a delivery.
 */

/** StepResult.messages. */
export interface StepMessageCounts {
  scheduled: number;
  sent: number;
  /** Sends that could not be written (socket closed, send error). Never counted as sent. */
  send_failed: number;
  /**
   * Of send_failed: not made because the sender's connection was down (dropped, its reconnect
   * not joined yet). Never sent, so never expected nor lost. Absent when none.
   */
  not_sent_connection_down?: number;
  /** Sends later than load.late_threshold after their scheduled time. */
  late: number;
  expected: number;
  received: number;
  /**
   * Of the receipts: deliveries that arrived after a later message of the same stream on the
   * same connection (one sender's; in a split run, relay senders on several machines share a
   * stream, so their messages may also cross). A delivery, never a duplicate or a loss.
   */
  reordered: number;
  /** The same connection receiving the same (stream, seq) again. */
  duplicates: number;
  /** expected - (received - received outside membership), never negative. */
  lost: number;
  /**
   * Expected receipts missing at members the server or the network dropped within a second
   * after the message was sent (measure/aggregate DOWN_GRACE_MS): not delivered because the
   * connection went down, in neither `expected` nor `lost`. Absent when none.
   */
  not_delivered_connection_down?: number;
  /** Received for ids this run did not send, or by a connection outside its membership. */
  unexpected: number;
  /**
   * Acked sends (load.ack): acknowledged within load.ack_timeout. A send counts as taken only
   * once acknowledged.
   */
  acked: number;
  /**
   * Acked sends with no reply within load.ack_timeout or by the end of the step (absent in older
   * results).
   */
  unacked?: number;
  /**
   * Acked sends the server refused (an error reply; its reason is in errors as "ack error: …").
   */
  ack_errors?: number;
  /** Sends made while the generator's pending-ack state was full: never matched to a reply. */
  ack_untracked?: number;
}
