/**
 * The "Notes" list: everything that makes a figure untrustworthy, said plainly. Seeds 000
 * and 001 are the warning: a report whose headline hides dropped iterations or 74 % errors
 * reads like a success. Here every such condition produces a line.
 */
import { unansweredWords } from '../result/cut-short.js';
import type { Analysis } from '../model/analysis.js';
import { fewSamplesNote } from './cells.js';
import { framesNote } from './frame-notes.js';
import { fmtInt, fmtMs, INCOMPLETE_LABEL, incompleteLabel } from '../model/format.js';
import type { RunResult, StepResult } from '../result/result.js';

function list(steps: StepResult[], all?: readonly StepResult[]): string {
  if (all && steps.length > 2 && steps.length === all.length) return `All ${steps.length} steps`;
  const ids = steps.map((s) => s.index);
  return ids.length === 1
    ? `Step ${ids[0]}`
    : `Steps ${ids.slice(0, -1).join(', ')} and ${ids[ids.length - 1]}`;
}

/** Whether the run finished, and whether any step ran at all. */
function statusNotes(result: RunResult): string[] {
  const notes: string[] = [];
  if (result.status === 'aborted') {
    notes.push(
      `The run was aborted${result.abort_reason ? `: ${result.abort_reason}` : ''}. Figures cover the steps that ran; none of them is a finished sweep.`,
    );
  } else if (result.status === 'interrupted') {
    notes.push(
      `The run was interrupted${result.abort_reason ? `: ${result.abort_reason}` : ''}. Figures cover the steps that ran.`,
    );
  } else if (result.status === 'running') {
    notes.push('The run had not finished when this was written: figures are partial.');
  }
  if (result.steps.length === 0) notes.push('No step ran: there are no measurements.');
  return notes;
}

/** A step cut short, what cut it and where, and what it kept. */
function cutShortNote(s: StepResult): string {
  const cut = s.cut_short!;
  const kept = cut.unanswered?.length
    ? unansweredWords(cut.unanswered, cut.collect_wait_ms / 1000)
    : cut.collected
      ? 'its figures cover only the part that ran (its messages: those due a second before the cut)'
      : `its generator processes did not answer the collect within ${fmtInt(cut.collect_wait_ms / 1000)} s, so it keeps only what their per-second lines said (connections, errors)`;
  return `Step ${s.index} is ${incompleteLabel(cut)}: ${kept}; no fit uses it and it is never cited as capacity.`;
}

/** Steps whose figures are not capacity: cut short, generator-bound, broken. */
function stepVerdictNotes(steps: StepResult[]): string[] {
  const notes: string[] = [];
  const cut = steps.filter((s) => s.complete === false && s.cut_short);
  for (const s of cut) notes.push(cutShortNote(s));
  const incomplete = steps.filter((s) => s.complete === false && !s.cut_short);
  if (incomplete.length)
    notes.push(
      `${list(incomplete)} ${incomplete.length === 1 ? 'is' : 'are'} ${INCOMPLETE_LABEL}: ${incomplete.length === 1 ? 'its' : 'their'} figures cover only the part that ran; no fit uses ${incomplete.length === 1 ? 'it' : 'them'} and ${incomplete.length === 1 ? 'it is' : 'they are'} never cited as capacity.`,
    );
  for (const s of steps.filter((x) => x.verdict === 'generator-bound')) {
    const why = (s.verdict_reasons ?? []).filter((r) => !r.startsWith('also:')).join('; ');
    notes.push(
      `Step ${s.index} is generator-bound${why ? ` (${why})` : ''}: the load generator fell behind, so its figures are not server capacity; no fit or capacity row uses it.`,
    );
  }
  const broken = steps.filter((s) => s.verdict === 'broken');
  if (broken.length)
    notes.push(
      `${list(broken)} ${broken.length === 1 ? 'is' : 'are'} broken: ${broken.length === 1 ? 'its' : 'their'} throughput is shown as measured but is not capacity (errors never count as throughput).`,
    );
  return notes;
}

/** What was not sampled (server, generator health) and a server sharing the generator's cores. */
function samplingNotes(result: RunResult): string[] {
  const notes: string[] = [];
  const steps = result.steps;
  // Nothing was measured, so nothing was left unsampled (the server may not even have started).
  if (steps.length === 0) return notes;
  if (!result.target.server_sampling) {
    notes.push(
      'Server CPU and memory were not sampled (no local pid, no process of this user listening on a loopback URL\'s port, no metrics endpoint or node_exporter): they show "—", and no resource fit or safe-line limit is possible.',
    );
  } else {
    const noCpu = steps.filter((s) => s.server?.cpu_pct == null);
    const noMem = steps.filter((s) => s.server?.mem_pct == null);
    if (noCpu.length) notes.push(`${list(noCpu, steps)}: server CPU not sampled (shown as "—").`);
    if (noMem.length)
      notes.push(`${list(noMem, steps)}: server memory not sampled (shown as "—").`);
  }
  const noGen = steps.filter(
    (s) =>
      s.generator?.cpu_pct == null &&
      s.generator?.event_loop_lag_p99_ms == null &&
      s.generator?.offered_ratio == null,
  );
  if (noGen.length)
    notes.push(
      `${list(noGen, steps)}: the generator's own health was not measured, so a generator-bound step could go unnoticed.`,
    );
  if (result.target.builtin && !result.target.cpus) {
    notes.push(
      "The built-in server shared this machine's cores with the generator (no server CPU pinning): the two compete for CPU, and server CPU % includes that contention.",
    );
  }
  return notes;
}

/**
 * One step's counts beside delivery: late or failed sends, reorders, duplicates, late joins, an
 * outage, frames it could not use.
 */
function messageNotes(s: StepResult): string[] {
  const m = s.messages;
  if (!m) return [];
  const notes: string[] = [];
  const bits: string[] = [];
  if (m.late > 0)
    bits.push(
      `${fmtInt(m.late)} sends later than the late threshold (latency is still counted from the scheduled time)`,
    );
  if (m.send_failed > 0)
    bits.push(`${fmtInt(m.send_failed)} sends failed to write (not counted as sent)`);
  if (m.reordered > 0)
    bits.push(
      `${fmtInt(m.reordered)} deliveries arrived after a later message of the same stream (reordered; counted as delivered)`,
    );
  if (m.duplicates > 0) bits.push(`${fmtInt(m.duplicates)} duplicate receipts`);
  if (m.unexpected > 0) bits.push(`${fmtInt(m.unexpected)} unexpected receipts`);
  if ((s.generator?.late_joins ?? 0) > 0)
    bits.push(`${fmtInt(s.generator.late_joins)} joins later than scheduled`);
  const spread = s.generator?.spread_seconds ?? 0;
  if (spread > 0)
    bits.push(
      `in ${fmtInt(spread)} second${spread === 1 ? '' : 's'} of its steady window a generator process's per-second line came more than a second late and its counts were shared evenly over the seconds it covered (spread_lines in timeseries.ndjson), so the window's rates are estimates there; its totals are exact`,
    );
  const apart =
    m.duplicates > 0 || m.unexpected > 0
      ? ' Duplicates and unexpected receipts are counted apart, never as delivered.'
      : '';
  if (bits.length) notes.push(`Step ${s.index}: ${bits.join('; ')}.${apart}`);
  if (m.expected === 0 && m.sent > 0) {
    // "No receivers joined" only when none did: a sender alone (or nobody) on the topic.
    const joined = s.connections?.joined ?? 0;
    const why =
      joined > 1
        ? `although ${fmtInt(joined)} connections joined (none of the sends fell in the part of the step that was measured)`
        : '(no receivers joined)';
    notes.push(
      `Step ${s.index}: ${fmtInt(m.sent)} messages sent but none expected ${why}: delivery is "—".`,
    );
  }
  const outage = outageNote(s);
  if (outage) notes.push(outage);
  const frames = framesNote(s);
  if (frames) notes.push(frames);
  return notes;
}

/**
 * Connections dropped and brought back by load.reconnect (a server restarted mid-step): the gap,
 * and what it cost, counted apart from lost.
 */
function outageNote(s: StepResult): string | null {
  const r = s.connections?.reconnect;
  const m = s.messages;
  if (!r) return null;
  const gap =
    r.gap_ms !== null
      ? `; the gap from the first drop to the last rejoin ${fmtMs(r.gap_ms)}, the longest one connection was down ${fmtMs(r.longest_down_ms)}`
      : '; none came back in the step';
  const cost: string[] = [];
  if (m?.not_sent_connection_down)
    cost.push(`${fmtInt(m.not_sent_connection_down)} sends not made (sender's connection down)`);
  if (m?.not_delivered_connection_down)
    cost.push(
      `${fmtInt(m.not_delivered_connection_down)} receipts not delivered (connection down: the member was dropped within a second of the send)`,
    );
  const counted = cost.length ? `; ${cost.join(', ')} — counted apart, never as lost` : '';
  return `Step ${s.index}: ${fmtInt(r.dropped)} connections dropped, ${fmtInt(r.reconnected)} reconnected (load.reconnect)${gap}${counted}.`;
}

/** Fits through two points, and stable steps above a capacity row's first failure. */
function analysisNotes(analysis: Analysis): string[] {
  const notes: string[] = [];
  for (const f of analysis.fits) {
    if (f.fit?.n === 2)
      notes.push(
        `${f.spec.y_label} vs ${f.spec.x_label} rests on two steps: a line through two points has R² 1 whatever the data; measure more steps before trusting its slope.`,
      );
  }
  for (const row of analysis.capacity) {
    if (row.knee.stable_above_knee.length) {
      notes.push(
        `${row.dimension}: step${row.knee.stable_above_knee.length === 1 ? '' : 's'} ${row.knee.stable_above_knee.map((p) => p.step).join(', ')} ran stable above the first failure at step ${row.knee.first_unsafe?.step}; the recommendation stays below that failure.`,
      );
    }
  }
  return notes;
}

export function collectNotes(
  result: RunResult,
  analysis: Analysis,
  extra: string[] = [],
): string[] {
  const few = fewSamplesNote(result.steps);
  return [
    ...statusNotes(result),
    ...(few ? [few] : []),
    ...stepVerdictNotes(result.steps),
    ...samplingNotes(result),
    ...result.steps.flatMap(messageNotes),
    ...analysisNotes(analysis),
    ...extra,
  ];
}
