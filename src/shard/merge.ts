/**
 * Merging shards: the segments of one run become what one coordinator with all their
 * generator processes would have collected — per step the StepCollected of every process,
 * and every per-second line — which figures/step-result.ts and figures/timeline.ts then
 * merge as they merge local processes. Shards of different runs, profiles or segment counts are
 * refused, and missing or repeated segments are named.
 */
import type { SecondStats, StepCollected } from '../generator/ipc.js';
import type { StepWindow } from '../figures/window.js';
import type { InsertStats } from '../load/insert-record.js';
import {
  ShardError,
  type Shard,
  type ShardIdentity,
  type ShardResources,
  type ShardStep,
} from './format.js';

export interface MergedShards {
  identity: Omit<ShardIdentity, 'segment'>;
  /**
   * Generator processes over all segments (their `worker` numbers are renumbered 0 … workers − 1).
   */
  workers: number;
  hosts: string[];
  steps: ShardStep[];
  seconds: SecondStats[];
  /** Each segment's, in segment order (shards without them are left out). */
  resources: ShardResources[];
}

function describe(id: ShardIdentity): string {
  return `run "${id.run}", profile ${id.profileName} (${id.profileHash.slice(0, 12)}), segment ${id.segment}/${id.segments}`;
}

/** Throws a ShardError naming what does not fit; returns the shards ordered by segment. */
export function checkShards(shards: readonly Shard[], sources: readonly string[] = []): Shard[] {
  if (shards.length === 0) throw new ShardError('no shard to merge');
  const name = (i: number) => sources[i] ?? `shard ${i + 1}`;
  const first = shards[0].identity;
  shards.forEach((s, i) => {
    const id = s.identity;
    if (id.run !== first.run)
      throw new ShardError(
        `${name(i)} is of another run: ${describe(id)}; ${name(0)} is ${describe(first)}`,
      );
    if (id.profileHash !== first.profileHash)
      throw new ShardError(
        `${name(i)} is of another profile: ${describe(id)}; ${name(0)} is ${describe(first)}`,
      );
    if (id.segments !== first.segments)
      throw new ShardError(
        `${name(i)} splits the run into ${id.segments} segments, ${name(0)} into ${first.segments}`,
      );
  });
  const bySegment = new Map<number, number>();
  shards.forEach((s, i) => {
    const seen = bySegment.get(s.identity.segment);
    if (seen !== undefined)
      throw new ShardError(
        `segment ${s.identity.segment}/${first.segments} twice: ${name(seen)} and ${name(i)}`,
      );
    bySegment.set(s.identity.segment, i);
  });
  const missing = Array.from({ length: first.segments }, (_, k) => k).filter(
    (k) => !bySegment.has(k),
  );
  if (missing.length)
    throw new ShardError(
      `missing segment${missing.length > 1 ? 's' : ''} ${missing.join(', ')} of ${first.segments} (run "${first.run}"): every segment's shard is needed for exact totals`,
    );
  return [...shards].sort((a, b) => a.identity.segment - b.identity.segment);
}

function unionWindow(ws: readonly StepWindow[]): StepWindow {
  const min = (f: (w: StepWindow) => number) => Math.min(...ws.map(f));
  const max = (f: (w: StepWindow) => number) => Math.max(...ws.map(f));
  // The ramp and drain span every segment's; the steady window starts once every segment is
  // measuring (members are counted then) and ends with the last one's sends.
  return {
    rampStart: min((w) => w.rampStart),
    rampEnd: max((w) => w.rampEnd),
    steadyStart: max((w) => w.steadyStart),
    steadyEnd: max((w) => w.steadyEnd),
    drainEnd: max((w) => w.drainEnd),
  };
}

/**
 * The segments' inserts of a step added up (each segment inserts its own streams' rows); null when
 * none inserted.
 */
export function sumInsertStats(parts: ReadonlyArray<InsertStats | null>): InsertStats | null {
  const some = parts.filter((p): p is InsertStats => p !== null);
  if (some.length === 0) return null;
  const out: InsertStats = { scheduled: 0, sent: 0, failed: 0, late: 0, errors: {} };
  for (const p of some) {
    out.scheduled += p.scheduled;
    out.sent += p.sent;
    out.failed += p.failed;
    out.late += p.late;
    for (const [reason, n] of Object.entries(p.errors))
      out.errors[reason] = (out.errors[reason] ?? 0) + n;
  }
  return out;
}

/**
 * What cut a merged step short: the first segment's cut, its collect unanswered when any segment's
 * was (nothing then to merge but the per-second lines of those).
 */
function cutOf(parts: readonly ShardStep[]): Pick<ShardStep, 'cut'> {
  const cuts = parts.flatMap((p) => (p.cut ? [p.cut] : []));
  if (cuts.length === 0) return {};
  return { cut: { ...cuts[0], collected: cuts.every((c) => c.collected) } };
}

/**
 * A step present in every shard is merged; a step some segment did not reach is kept as incomplete.
 */
export function mergeShards(
  input: readonly Shard[],
  sources: readonly string[] = [],
): MergedShards {
  const shards = checkShards(input, sources);
  const offsets: number[] = [];
  let workers = 0;
  for (const s of shards) {
    offsets.push(workers);
    workers += s.host.workers;
  }
  const stepIndexes = [...new Set(shards.flatMap((s) => s.steps.map((x) => x.step)))].sort(
    (a, b) => a - b,
  );
  const steps: ShardStep[] = stepIndexes.map((step) => {
    const parts = shards.map((s, k) => ({ k, part: s.steps.find((x) => x.step === step) }));
    const present = parts.filter((p): p is { k: number; part: ShardStep } => p.part !== undefined);
    const collected: StepCollected[] = present.flatMap((p) =>
      p.part.collected.map((c) => ({
        ...c,
        worker: c.worker + offsets[p.k],
        segment: shards[p.k].identity.segment,
      })),
    );
    return {
      step,
      window: unionWindow(present.map((p) => p.part.window)),
      complete: present.length === shards.length && present.every((p) => p.part.complete),
      ...cutOf(present.map((p) => p.part)),
      collected,
      inserts: present.flatMap((p) => p.part.inserts ?? []),
      insertStats: sumInsertStats(present.map((p) => p.part.insertStats ?? null)),
    };
  });
  const seconds = shards
    .flatMap((s, k) => s.seconds.map((x) => ({ ...x, worker: x.worker + offsets[k] })))
    .sort((a, b) => a.t - b.t);
  const { segment: _segment, ...identity } = shards[0].identity;
  return {
    identity,
    workers,
    hosts: shards.map((s) => s.host.hostname),
    steps,
    seconds,
    resources: shards.flatMap((s) => (s.resources ? [s.resources] : [])),
  };
}
