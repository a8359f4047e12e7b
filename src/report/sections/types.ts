/**
 * The summary renderer is a registry keyed by scenario: each scenario module
 * contributes the tables of its seed-002 section, built from StepResult and its `extra`
 * (result/extra.ts). The full per-step table, capacity, advice, errors and notes are common
 * and added by summary.ts.
 */
import type { Analysis } from '../../model/analysis.js';
import type { RunResult } from '../../result/result.js';
import type { ReportTable } from '../table.js';

export interface SectionContext {
  result: RunResult;
  analysis: Analysis;
}

export interface ScenarioSection {
  scenario: string;
  /** Heading naming the seed-002 section, e.g. "Public broadcast (docs/METHOD.md §1)". */
  title: string;
  tables(ctx: SectionContext): ReportTable[];
  /** Scenario-specific caveats for the Notes list. */
  notes?(ctx: SectionContext): string[];
}
