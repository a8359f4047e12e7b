/**
 * The frames a step's receiving connections got and could not use (result.json `steps[].frames`,
 * docs/FIGURES.md "Frames rtcap could not use"), summed over every generator process and
 * segment. None of them is ever a delivery; what they mean for the verdict is said there.
 */
export interface FrameFigures {
  /** Phoenix frames that parsed but carried nothing rtcap uses, by why. */
  unrecognised: {
    /**
     * A broadcast, postgres_changes or presence_diff whose payload is null (a broadcast: or its
     * Supabase envelope's payload).
     */
    null_payload: number;
    /** A broadcast, or a postgres_changes row, without rtcap's stamp. */
    no_stamp: number;
    /** An event rtcap does not handle. */
    unknown_event: number;
  };
  /**
   * Frames that are not Phoenix frames (not JSON, not an object or an array of 5, an unknown
   * binary kind) or not valid WebSocket frames: each is a protocol-class error too.
   */
  malformed: number;
  /**
   * Messages over the client's limit (client/socket-open MAX_PAYLOAD_BYTES, 100 MiB), refused:
   * the connection closed with 1009. Each is a protocol-class error too.
   */
  oversized: number;
}
