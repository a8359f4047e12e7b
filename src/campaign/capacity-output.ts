/**
 * The files of a capacity table: finding the runs under the directories given (a run
 * directory, or a campaign directory holding run directories), and writing capacity.json,
 * capacity.md and report.html with every run's link relative to where they are written.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { Source } from '../capacity/like-for-like.js';
import type { CapacityFile } from '../capacity/types.js';
import { renderCapacityHtml } from '../report/capacity-html.js';
import { renderCapacityMarkdown } from '../report/capacity.js';
import type { RunResult } from '../result/result.js';
import { readResultFile } from '../run/output.js';

/**
 * Run directories under `dir`: itself when it holds result.json, else its subdirectories that do
 * (sorted).
 */
export function runDirsUnder(dir: string): string[] {
  if (existsSync(join(dir, 'result.json'))) return [dir];
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return [];
  return readdirSync(dir)
    .sort()
    .map((n) => join(dir, n))
    .filter((d) => statSync(d).isDirectory() && existsSync(join(d, 'result.json')));
}

/** The runs under every directory given, or the problems found (one line each). */
export function loadSources(dirs: readonly string[]): { sources: Source[]; problems: string[] } {
  const sources: Source[] = [];
  const problems: string[] = [];
  for (const d of dirs) {
    const found = runDirsUnder(d);
    if (found.length === 0) problems.push(`${d}: no result.json there or in its subdirectories`);
    for (const f of found) {
      const r = readResultFile(f);
      if (typeof r === 'string') problems.push(r);
      else sources.push({ dir: f, result: r });
    }
  }
  return { sources, problems };
}

/**
 * Source directories as seen from `outDir`, so the links of capacity.md and report.html work there.
 */
export function relativeTo(outDir: string, sources: readonly Source[]): Source[] {
  return sources.map((s) => ({ ...s, dir: relative(resolve(outDir), resolve(s.dir)) || '.' }));
}

function writeAtomic(path: string, text: string): void {
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

export const CAPACITY_FILES = ['capacity.json', 'capacity.md', 'report.html'] as const;

export function writeCapacityFiles(outDir: string, file: CapacityFile, title: string): void {
  mkdirSync(outDir, { recursive: true });
  writeAtomic(join(outDir, 'capacity.json'), JSON.stringify(file, null, 2) + '\n');
  writeAtomic(join(outDir, 'capacity.md'), renderCapacityMarkdown(file));
  // The runs again, for the per-row charts: their dirs are relative to outDir (relativeTo).
  const runs = new Map<string, RunResult>();
  for (const s of file.sources) {
    const r = readResultFile(join(outDir, s.dir));
    if (typeof r !== 'string') runs.set(s.dir, r);
  }
  writeAtomic(join(outDir, 'report.html'), renderCapacityHtml(file, title, runs));
}
