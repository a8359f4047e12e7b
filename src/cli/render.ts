/**
 * The text artefacts of a result. Kept in one place so `run`, `sweep` and `report` agree.
 */
import type { RunResult } from '../report/result.js';
import { renderSummaryMarkdown } from '../report/summary.js';
import { renderTerminalSummary } from '../report/terminal.js';

export function renderOutputs(r: RunResult): { markdown: string; terminal: string } {
  return { markdown: renderSummaryMarkdown(r), terminal: renderTerminalSummary(r) };
}
