/**
 * The generator processes of a run: forked with the target's settings (load/pool), their
 * per-second lines fed to the timeline, and — for one segment of a run split over machines — the
 * shard that records them, with the wait for the segments' common start.
 */
import type { SecondStats } from '../generator/ipc.js';
import type { GeneratorPlan } from '../generator/limits.js';
import { WorkerPool } from '../load/pool.js';
import { SpawnFailed } from '../load/spawn-failed.js';
import { youngGenerationArgs } from '../load/young-generation.js';
import type { LinkSetup } from '../link/link-setup.js';
import { nowMs } from '../measure/clock.js';
import type { RunResult } from '../result/result.js';
import type { StepPlan } from '../scenarios/types.js';
import { profileHash, ShardRecorder } from '../shard/record.js';
import { Abort, type AbortFunnel } from './abort.js';
import type { Profile } from '../profile/schema.js';
import type { LoadPart, ProfilePart } from './run-options.js';
import type { TargetSetup } from './target-setup.js';
import type { Timeline } from '../figures/timeline.js';

/** Forks the generator processes and waits until every one has connected its settings. */
export async function startPool(args: {
  profile: Profile;
  load: LoadPart;
  /** The steps are decided as the run goes (a search). */
  searching: boolean;
  log: (line: string) => void;
  plans: StepPlan[];
  gen: GeneratorPlan;
  target: TargetSetup;
  timeline: Timeline;
  /** The segment's shard (openShard), or null when the run is not split. */
  shard: ShardRecorder | null;
  funnel: AbortFunnel;
  /** An emulated client link (generator.link): each process dials its relay, in its launcher. */
  link: LinkSetup | null;
  /** Called with the pool as soon as it exists, so that a failed start still stops it. */
  onPool: (pool: WorkerPool) => void;
}): Promise<WorkerPool> {
  const { gen, target, funnel, log } = args;
  const v8Args = youngGenerationArgs(args.plans, args.searching);
  if (v8Args.length)
    log(
      `generator: every step only holds connections (no traffic): young generation capped (${v8Args.join(' ')})`,
    );
  const { link } = args;
  const pool = new WorkerPool(
    gen.workers,
    args.load.generatorCpus ?? null,
    v8Args,
    link?.launcher ?? [],
  );
  args.onPool(pool);
  // The timeline and the shard take the same lines, from a process's first one on (before every
  // process is ready): a line only the timeline took made a run's 60 s sliding means differ from
  // rtcap merge's of its shard.
  const { timeline, shard } = args;
  pool.on('second', (s: SecondStats) => {
    timeline.add(s);
    shard?.second(s);
  });
  pool.on('fatal', (m: string) =>
    funnel.abort('aborted', `generator process failed: ${m.split('\n')[0]}`),
  );
  const seg = args.load.segment;
  const starting = pool.start((w) => ({
    type: 'init',
    workerIndex: w,
    workers: gen.workers,
    ...(seg ? { segment: { index: seg.index, count: seg.count } } : {}),
    profile: args.profile,
    url: target.socketUrl,
    headers: target.headers,
    sourceAddresses: link && !link.keepSourceAddresses ? [] : gen.sourceAddresses,
    tokens: target.tokens,
    tls: target.tls,
    ...(link ? { via: link.via[w] } : {}),
  }));
  try {
    await funnel.race(starting);
  } catch (e) {
    if (!(e instanceof SpawnFailed)) throw e;
    // The processes that did start are gone already (killed and reaped by the pool); the run
    // stops the rest of what it started and ends on this line.
    const n = e.stoppedPids.length;
    log(
      `generator: stopped the ${n} process${n === 1 ? '' : 'es'} already started${n ? ` (pids ${e.stoppedPids.join(', ')})` : ''}`,
    );
    throw new Abort('aborted', e.message);
  }
  return pool;
}

/**
 * One segment's shard, made before the generator processes start (startPool feeds it every line
 * the timeline takes). Null for a run that is not split.
 */
export function openShard(args: {
  profile: ProfilePart;
  segment: LoadPart['segment'];
  workers: number;
  builtin: boolean;
  result: RunResult;
}): ShardRecorder | null {
  const { profile, profilePath, redactedProfile } = args.profile;
  const seg = args.segment;
  if (!seg) return null;
  const shard = new ShardRecorder({
    identity: {
      run: seg.run,
      profileName: profile.name,
      profileHash: profileHash(redactedProfile),
      segment: seg.index,
      segments: seg.count,
    },
    workers: args.workers,
    run: {
      profile: redactedProfile,
      profilePath,
      builtin: args.builtin,
      targetUrl: args.result.target.url,
      status: 'running',
      abortReason: null,
      finishedAt: null,
      ...(args.result.generator.link ? { link: args.result.generator.link } : {}),
    },
  });
  return shard;
}

/**
 * A segment of a split run waits for the segments' common start time; a search sweep cannot be
 * split. Nothing for a run that is not split.
 */
export async function segmentStart(args: {
  segment: LoadPart['segment'];
  /** The steps are decided as the run goes (a search), which a split run cannot do. */
  searching: boolean;
  log: (line: string) => void;
  funnel: AbortFunnel;
}): Promise<void> {
  const seg = args.segment;
  if (!seg) return;
  if (seg.startAtMs !== null) await waitForStart(seg.startAtMs, args.funnel, args.log);
  if (args.searching)
    throw new Abort(
      'aborted',
      'a search sweep cannot be split into segments: its next step depends on the last result; give explicit steps',
    );
}

/** A segment waits for the common start time; one that is already past it says by how much. */
async function waitForStart(
  startAtMs: number,
  funnel: AbortFunnel,
  log: (line: string) => void,
): Promise<void> {
  const waitMs = startAtMs - nowMs();
  if (waitMs > 0) {
    log(
      `waiting ${(waitMs / 1000).toFixed(1)} s for --start-at ${new Date(startAtMs).toISOString()}`,
    );
    await funnel.sleep(waitMs);
  } else {
    log(
      `warning: this segment starts ${(-waitMs / 1000).toFixed(1)} s after --start-at ${new Date(startAtMs).toISOString()}`,
    );
  }
}
