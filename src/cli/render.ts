/**
 * The text artefacts of a result. Kept in one place so `run`, `sweep` and `report` agree.
 */
import type { RunResult } from '../report/result.js';

export function renderOutputs(r: RunResult): { markdown: string; terminal: string } {
  return { markdown: fallbackMarkdown(r), terminal: fallbackTerminal(r) };
}

function fallbackMarkdown(r: RunResult): string {
  const lines = [`# ${r.profile.name} — ${r.status}`, '', '| step | verdict | joined | delivery | p95 ms | delivered/s |', '|---|---|---|---|---|---|'];
  for (const s of r.steps) {
    lines.push(`| ${s.index + 1} | ${s.verdict} | ${s.connections.joined}/${s.connections.target} | ${s.delivery_rate ?? '—'} | ${s.latency_ms.p95 ?? '—'} | ${s.rates.delivered_per_s ?? '—'} |`);
  }
  return lines.join('\n') + '\n';
}

function fallbackTerminal(r: RunResult): string {
  return fallbackMarkdown(r);
}
