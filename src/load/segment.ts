/**
 * Segments: one run's plan split over N generator machines (`--segment i/N`). Connections are
 * owned by global index: connection c belongs to segment c mod N, and within the segment to
 * its local process — process w of segment i owns c with c mod (N × W) = i + N × w. So the
 * union of the segments is exactly the single-machine plan (same connections, join schedule,
 * senders and their streams and seqs), with no overlap and no gap.
 */
export interface Segment {
  /** 0 … count − 1 (a Kubernetes Indexed Job's completion index). */
  index: number;
  count: number;
}

export const WHOLE: Segment = { index: 0, count: 1 };

/** "i/N" → segment, or a one-line reason. */
export function parseSegment(text: string): Segment | string {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  if (!m) return `--segment ${text}: give i/N, e.g. 0/3 (segment i of N, counted from 0)`;
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (count < 1 || index >= count) return `--segment ${text}: i must be 0 … N−1 and N at least 1`;
  return { index, count };
}

/** The owner number and stride of a local process: it owns connection c when c mod owners = owner. */
export function ownershipOf(segment: Segment, workerIndex: number, workers: number): { owner: number; owners: number } {
  return { owner: segment.index + segment.count * workerIndex, owners: segment.count * workers };
}
