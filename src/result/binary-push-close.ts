/**
 * A server that cannot read binary broadcast frames (docs/PROTOCOL.md §2.3: kind 3, what current
 * realtime-js sends under vsn 2.0.0) closes the sender right after its first one: Supabase
 * Realtime v2.28 crashes that connection with 1011. The generator adds these words to such a
 * close's reason, and the verdict finds them there to say what to set instead.
 */
export const AFTER_FIRST_BINARY_PUSH = 'right after its first binary broadcast push';

/** How soon after a connection's first binary push a close by the server counts as its answer. */
export const BINARY_PUSH_CLOSE_WITHIN_MS = 1000;

/** What a profile sets for such a server: JSON text frames, or the vsn 1.0.0 serializer. */
export const BINARY_PUSH_ADVICE = 'set target.binary_broadcast: false or target.vsn: "1.0.0"';
