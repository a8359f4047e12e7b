/**
 * The index of a folder of finished runs for `rtcap dashboard DIR`: every run and sweep
 * (a directory with result.json, or a result .json file), every campaign (a directory with
 * campaign.json, its entries and its capacity.json), two levels deep — or the folder itself
 * when it is a campaign's. Each run carries its
 * date, profile, target, status, verdicts and headline figures — the terminal's own capacity
 * sentence and the knee's safe step it cites. Reads only; results are cached by mtime.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { CapacityFile } from '../capacity/types.js';
import { findKnee } from '../model/knee.js';
import { driverOf, headline } from '../report/headline.js';
import type { RunResult, Verdict } from '../result/result.js';
import { readCampaignState } from '../campaign/state.js';
import { readResultFile } from '../run/output.js';
import type { SweepResult } from '../sweep/record.js';

export interface BrowseRun {
  /** The path under the folder: the key of its links. */
  id: string;
  kind: 'run' | 'sweep';
  name: string;
  started_at: string;
  profile: string;
  scenario: string;
  target: string;
  status: string;
  verdicts: Partial<Record<Verdict, number>>;
  /** The knee's safe step: the highest stable step below the first one that was not. */
  best: {
    step: number;
    joined: number;
    delivered_per_s: number | null;
    p95_ms: number | null;
  } | null;
  headline: string;
  files: { report: string; summary: string; result: string };
}

export interface BrowseCampaign {
  id: string;
  name: string;
  started_at: string;
  status: string;
  target: string | null;
  verdicts: Partial<Record<Verdict, number>>;
  entries: BrowseRun[];
  capacity: {
    rows: Array<{
      id: string;
      no: number;
      dimension: string;
      display: string;
      value: number | null;
      limiting_factor: string | null;
    }>;
  } | null;
  files: { report: string | null };
}

export interface BrowseIndex {
  dir: string;
  runs: BrowseRun[];
  campaigns: BrowseCampaign[];
  /** Files that look like runs but could not be read, one line each. */
  problems: string[];
}

const cache = new Map<string, { mtimeMs: number; run: BrowseRun }>();

/**
 * A file's address under the dashboard: the folder's own layout (each part of the id encoded,
 * its slashes kept), so a relative link inside a served page — a campaign report's link to an
 * entry's report — lands on the file it names.
 */
export const fileLink = (id: string, name: string) =>
  id === '' ? `runs/${name}` : `runs/${id.split('/').map(encodeURIComponent).join('/')}/${name}`;

function verdictsOf(steps: RunResult['steps']): Partial<Record<Verdict, number>> {
  const out: Partial<Record<Verdict, number>> = {};
  for (const s of steps) out[s.verdict] = (out[s.verdict] ?? 0) + 1;
  return out;
}

function summarize(r: SweepResult, id: string): BrowseRun {
  let sentence: string;
  let best: BrowseRun['best'] = null;
  try {
    sentence = headline(r);
    const safe = r.steps.length ? findKnee(r.steps, driverOf(r.steps)).safe : null;
    const s = safe ? r.steps.find((x) => x.index === safe.step) : undefined;
    if (s)
      best = {
        step: s.index,
        joined: s.connections.joined,
        delivered_per_s: s.rates.delivered_per_s,
        p95_ms: s.latency_ms.p95,
      };
  } catch (e) {
    sentence = `no headline: ${(e as Error).message}`;
  }
  return {
    id,
    kind: r.sweep ? 'sweep' : 'run',
    name: r.run_id,
    started_at: r.started_at,
    profile: r.profile.name,
    scenario: r.profile.scenario,
    target: r.target.url,
    status: r.status,
    verdicts: verdictsOf(r.steps),
    best,
    headline: sentence,
    files: {
      report: fileLink(id, 'report.html'),
      summary: fileLink(id, 'summary.md'),
      result: fileLink(id, 'result.json'),
    },
  };
}

/** One run (a directory or a .json file), from the cache when its result has not changed. */
function runAt(root: string, source: string, problems: string[]): BrowseRun | null {
  const file = source.endsWith('.json') ? source : join(source, 'result.json');
  const mtimeMs = statSync(file).mtimeMs;
  const hit = cache.get(file);
  if (hit && hit.mtimeMs === mtimeMs) return hit.run;
  const r = readResultFile<SweepResult>(source);
  if (typeof r === 'string') {
    // A .json that is not a result (a capacity or quotas file, a fixture's other data) is not a
    // problem.
    if (!source.endsWith('.json')) problems.push(r);
    return null;
  }
  const run = summarize(r, relative(root, source));
  cache.set(file, { mtimeMs, run });
  return run;
}

function capacityOf(dir: string): BrowseCampaign['capacity'] {
  const path = join(dir, 'capacity.json');
  if (!existsSync(path)) return null;
  try {
    const f = JSON.parse(readFileSync(path, 'utf8')) as CapacityFile;
    return {
      rows: f.rows.map((r) => ({
        id: r.id,
        no: r.no,
        dimension: r.dimension,
        display: r.display,
        value: r.value,
        limiting_factor: r.limiting_factor,
      })),
    };
  } catch {
    return null;
  }
}

function campaignAt(
  root: string,
  dir: string,
  problems: string[],
  sources: Map<string, string>,
): BrowseCampaign | null {
  const state = readCampaignState(dir);
  if (typeof state === 'string') {
    problems.push(state);
    return null;
  }
  const entries: BrowseRun[] = [];
  for (const e of state.entries) {
    const d = join(dir, e.dir);
    if (!existsSync(join(d, 'result.json'))) continue;
    const run = runAt(root, d, problems);
    if (run) {
      entries.push(run);
      sources.set(run.id, d);
    }
  }
  const verdicts: Partial<Record<Verdict, number>> = {};
  for (const e of entries)
    for (const [v, n] of Object.entries(e.verdicts))
      verdicts[v as Verdict] = (verdicts[v as Verdict] ?? 0) + (n ?? 0);
  const id = relative(root, dir);
  const hasReport = existsSync(join(dir, 'report.html'));
  if (hasReport) sources.set(id, dir);
  return {
    id,
    name: state.name,
    started_at: state.started_at,
    status: state.status,
    target: entries[0]?.target ?? null,
    verdicts,
    entries,
    capacity: capacityOf(dir),
    files: { report: hasReport ? fileLink(id, 'report.html') : null },
  };
}

/**
 * The index of `root`, and where each id's files are (`sources`: id → run directory, result
 * file or campaign directory). Newest first.
 */
export function indexFolder(
  root: string,
  depth = 2,
): { index: BrowseIndex; sources: Map<string, string> } {
  const runs: BrowseRun[] = [];
  const campaigns: BrowseCampaign[] = [];
  const problems: string[] = [];
  const sources = new Map<string, string>();
  const walk = (dir: string, level: number) => {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch (e) {
      problems.push(`${dir}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      return;
    }
    for (const name of names) {
      const path = join(dir, name);
      let isDir: boolean;
      try {
        isDir = statSync(path).isDirectory();
      } catch {
        continue; // vanished, or a dangling link
      }
      if (!isDir) {
        if (!name.endsWith('.json')) continue;
        const run = runAt(root, path, problems);
        if (run) {
          runs.push(run);
          sources.set(run.id, path);
        }
        continue;
      }
      if (existsSync(join(path, 'campaign.json'))) {
        const c = campaignAt(root, path, problems, sources);
        if (c) campaigns.push(c);
      } else if (existsSync(join(path, 'result.json'))) {
        const run = runAt(root, path, problems);
        if (run) {
          runs.push(run);
          sources.set(run.id, path);
        }
      } else if (level < depth) {
        walk(path, level + 1);
      }
    }
  };
  // The folder is a campaign itself (`rtcap dashboard reports/<campaign>`): its id is '' and its
  // entries' ids their directories.
  if (existsSync(join(root, 'campaign.json'))) {
    const c = campaignAt(root, root, problems, sources);
    if (c) campaigns.push(c);
  } else walk(root, 1);
  const newest = (a: { started_at: string }, b: { started_at: string }) =>
    (b.started_at ?? '').localeCompare(a.started_at ?? '');
  runs.sort(newest);
  campaigns.sort(newest);
  return { index: { dir: root, runs, campaigns, problems }, sources };
}
