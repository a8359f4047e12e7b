/**
 * What a connection keeps for the delivery ledger (ledger.ts): since when it is a member, and
 * which seqs it has received per stream in the ledger's current step.
 */
import type { SeqWindow } from './seq-window.js';

/** Per-connection receive state, kept on the connection object. */
export interface MemberState {
  /** Epoch ms the join was confirmed; 0 while not joined. */
  joinedAtMs: number;
  /** Epoch ms the server confirmed the Postgres Changes subscription; 0 while not subscribed. */
  subscribedAtMs: number;
  /**
   * Which seqs this connection has received, per stream (seq-window.ts). Valid only in the
   * ledger step `epoch`: a new step forgets them without the worker touching every member.
   */
  epoch: number;
  /** The first stream heard in the epoch and its window: the common case, no Map lookup. */
  stream: number;
  window: SeqWindow;
  /** Further streams, for connections that hear several senders. */
  windows: Map<number, SeqWindow> | null;
}

export function newMemberState(): MemberState {
  return { joinedAtMs: 0, subscribedAtMs: 0, epoch: -1, stream: -1, window: -1, windows: null };
}
