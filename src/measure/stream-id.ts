/**
 * Stream ids of the delivery ledger: step-scoped (stream = step × STREAM_STRIDE + local stream),
 * so a straggler from an earlier step is never counted in the current one, and each local stream
 * carries its traffic kind (kind × KIND_STRIDE + n).
 */

export const STREAM_STRIDE = 1_000_000;
/**
 * Local stream ids carry their traffic kind: kind × KIND_STRIDE + n (broadcast 0, presence 1,
 * changes 2).
 */
export const KIND_STRIDE = 100_000;
export const KIND_COUNT = 3;

export function streamId(step: number, localStream: number): number {
  return step * STREAM_STRIDE + localStream;
}
