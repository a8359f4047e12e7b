/**
 * What a Phoenix frame is once decoded, whatever its encoding (docs/PROTOCOL.md §2.1–§2.3): the
 * Frame a client dispatches, the raw v2 binary kinds 0–4 as laid out on the wire, the user
 * broadcast an encoder is given, and the error every decoder and encoder throws. Types only,
 * besides the error class.
 */

export interface Frame {
  joinRef: string | null;
  ref: string | null;
  topic: string;
  event: string;
  payload: unknown;
}

export class FrameError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FrameError';
  }
}

export type BinaryFrame =
  | {
      kind: 0;
      from: 'client';
      joinRef: string;
      ref: string;
      topic: string;
      event: string;
      data: Uint8Array;
    }
  | { kind: 0; from: 'server'; joinRef: string; topic: string; event: string; data: Uint8Array }
  | { kind: 1; joinRef: string; ref: string; topic: string; status: string; data: Uint8Array }
  | { kind: 2; topic: string; event: string; data: Uint8Array }
  | {
      kind: 3;
      joinRef: string;
      ref: string;
      topic: string;
      userEvent: string;
      metadata: Record<string, unknown> | null;
      encoding: number;
      payload: Uint8Array;
    }
  | {
      kind: 4;
      topic: string;
      userEvent: string;
      metadata: Record<string, unknown> | null;
      encoding: number;
      payload: Uint8Array;
    };

export interface UserBroadcast {
  topic: string;
  userEvent: string;
  metadata?: Record<string, unknown> | null;
  /** JSON payloads are given as encoded bytes with encoding=json, or as a value (encoded here). */
  payload: Uint8Array | unknown;
  encoding?: number;
}
