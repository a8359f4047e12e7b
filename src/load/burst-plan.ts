/**
 * Bursts of one broadcast. A broadcast to a topic arrives at every member at
 * once: a generator process holding M members of the topic reads M frames in one event-loop
 * turn, and M ≈ 15,000 blocked a process for hundreds of ms (docs/PERFORMANCE.md), far past the
 * 50 ms lag limit of a healthy generator, so its latency figures became rtcap's own queueing.
 *
 * The plan knows every connection's topic and which process owns it (connection c in segment
 * c mod N, then local process ⌊(c mod N·W) ÷ N⌋: generator/segment), so the largest burst per
 * process is counted exactly, not assumed even. With `workers: auto` the coordinator adds
 * processes until no process holds BURST_MEMBERS_PER_PROCESS members of one broadcast topic,
 * up to one process per generator core (more processes than cores share a core and absorb
 * nothing faster); where the cores do not allow it, the step says so before it starts.
 * Pure: plans in, numbers and sentences out.
 */
import type { StepPlan } from '../scenarios/types.js';
import { WHOLE, type Segment } from '../generator/segment.js';

/**
 * Members of one broadcast topic per generator process from which a burst is too large to absorb
 * within the lag limit.
 */
export const BURST_MEMBERS_PER_PROCESS = 10_000;

export interface TopicBurst {
  topic: string;
  /** Members of the topic in the process holding the most of them. */
  membersPerProcess: number;
  /** Members of the topic in this segment, all processes. */
  members: number;
}

/** Whether the step sends broadcasts (only those fan out as one burst per message). */
function broadcasts(plan: StepPlan): boolean {
  return plan.broadcasts !== null && plan.broadcasts.ratePerS > 0 && plan.broadcasts.count > 0;
}

/**
 * The largest burst per process of each broadcast topic of a step, largest first; [] for a step
 * without broadcasts.
 */
export function burstsOf(plan: StepPlan, workers: number, segment: Segment = WHOLE): TopicBurst[] {
  if (!broadcasts(plan)) return [];
  const owners = segment.count * workers;
  const perTopic = new Map<string, number[]>();
  for (let c = segment.index; c < plan.connections; c += segment.count) {
    const topic = plan.topicOf(c);
    let counts = perTopic.get(topic);
    if (!counts) perTopic.set(topic, (counts = new Array<number>(workers).fill(0)));
    counts[Math.floor((c % owners) / segment.count)]++;
  }
  const out: TopicBurst[] = [];
  for (const [topic, counts] of perTopic) {
    out.push({
      topic,
      membersPerProcess: Math.max(...counts),
      members: counts.reduce((a, b) => a + b, 0),
    });
  }
  return out.sort((a, b) => b.membersPerProcess - a.membersPerProcess);
}

/** The largest burst per process over all the steps. */
function worstBurst(plans: StepPlan[], workers: number, segment: Segment): TopicBurst | null {
  let worst: TopicBurst | null = null;
  for (const p of plans) {
    const b = burstsOf(p, workers, segment)[0];
    if (b && (!worst || b.membersPerProcess > worst.membersPerProcess)) worst = b;
  }
  return worst;
}

export interface BurstPlan {
  workers: number;
  /** Why the count was raised, for the run's log; null when it was not. */
  note: string | null;
}

/**
 * Generator processes for `workers: auto`: from the count the connections need (`workers`)
 * up to one per core, the fewest that keep every broadcast's burst per process under the
 * threshold; if none does, the count within the cores with the smallest burst.
 */
export function planBurstWorkers(opts: {
  plans: StepPlan[];
  workers: number;
  cores: number;
  segment?: Segment;
  threshold?: number;
}): BurstPlan {
  const segment = opts.segment ?? WHOLE;
  const threshold = opts.threshold ?? BURST_MEMBERS_PER_PROCESS;
  const first = worstBurst(opts.plans, opts.workers, segment);
  if (!first || first.membersPerProcess < threshold) return { workers: opts.workers, note: null };
  let best = { workers: opts.workers, burst: first };
  for (let w = opts.workers + 1; w <= Math.max(opts.workers, opts.cores); w++) {
    const b = worstBurst(opts.plans, w, segment);
    if (!b) break;
    if (b.membersPerProcess < best.burst.membersPerProcess) best = { workers: w, burst: b };
    if (b.membersPerProcess < threshold) break;
  }
  if (best.workers === opts.workers) return { workers: opts.workers, note: null };
  return {
    workers: best.workers,
    note:
      `${best.workers} generator processes instead of ${opts.workers}: one broadcast on ${first.topic} reaches ${first.membersPerProcess.toLocaleString('en-US')} members ` +
      `of one process with ${opts.workers}, ${best.burst.membersPerProcess.toLocaleString('en-US')} with ${best.workers} (a burst is absorbed within the lag limit below ${threshold.toLocaleString('en-US')})`,
  };
}

/**
 * The warning a step gives before it starts when one broadcast reaches BURST_MEMBERS_PER_PROCESS
 * or more members of one process with the processes and cores the run has; null when none does.
 */
export function burstWarning(
  plan: StepPlan,
  workers: number,
  cores: number,
  segment: Segment = WHOLE,
): string | null {
  const threshold = BURST_MEMBERS_PER_PROCESS;
  const b = burstsOf(plan, workers, segment)[0];
  if (!b || b.membersPerProcess < threshold) return null;
  const need = Math.ceil(b.members / (threshold - 1));
  const fix =
    workers < cores
      ? `use more generator processes (--workers ${Math.min(cores, need)})`
      : `spreading it needs about ${need} generator processes on as many cores, this host gives the generator ${cores} (a second machine: --segment)`;
  return (
    `one broadcast on ${b.topic} reaches ${b.membersPerProcess.toLocaleString('en-US')} members of one generator process ` +
    `(${workers} process${workers === 1 ? '' : 'es'} on ${cores} core${cores === 1 ? '' : 's'}): a burst that large blocks the process's event loop past the lag limit, ` +
    `so receipt latency will include rtcap's own queueing; ${fix}`
  );
}

/** CPUs in a taskset list ("0", "0-1", "0,2-3"); null when it cannot be read. */
export function countCpuList(list: string): number | null {
  let n = 0;
  for (const part of list.split(',')) {
    const m = /^\s*(\d+)(?:-(\d+))?\s*$/.exec(part);
    if (!m) return null;
    n += m[2] === undefined ? 1 : Number(m[2]) - Number(m[1]) + 1;
  }
  return n > 0 ? n : null;
}
