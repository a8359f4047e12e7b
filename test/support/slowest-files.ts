/**
 * A vitest reporter that prints the slowest test files and their times at the end of every run
 * (wired in vitest.config.ts beside the default reporter), so a file that grew slow is seen where
 * the suite's time is read. A file's time is how long it held a worker: its environment, setup
 * files, imports and its tests with their hooks.
 */
import { relative } from 'node:path';
import type { Reporter, TestModule, Vitest } from 'vitest/node';

export interface FileTime {
  file: string;
  ms: number;
}

/** The `count` slowest files, slowest first, one line each: seconds (one decimal), the file. */
export function slowestLines(times: readonly FileTime[], count = 10): string[] {
  const top = [...times]
    .sort((a, b) => b.ms - a.ms || a.file.localeCompare(b.file))
    .slice(0, count);
  if (top.length === 0) return [];
  const width = Math.max(...top.map((t) => (t.ms / 1000).toFixed(1).length));
  return [
    `slowest ${top.length} test file${top.length === 1 ? '' : 's'}:`,
    ...top.map((t) => `  ${(t.ms / 1000).toFixed(1).padStart(width)} s  ${t.file}`),
  ];
}

export function fileTime(m: TestModule, root: string): FileTime {
  const d = m.diagnostic();
  const ms =
    d.environmentSetupDuration +
    d.prepareDuration +
    d.setupDuration +
    d.collectDuration +
    d.duration;
  return { file: relative(root, m.moduleId), ms };
}

export default class SlowestFiles implements Reporter {
  private root = process.cwd();

  onInit(ctx: Vitest): void {
    this.root = ctx.config.root;
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const lines = slowestLines(modules.map((m) => fileTime(m, this.root)));
    if (lines.length > 0) process.stdout.write(`\n${lines.join('\n')}\n`);
  }
}
