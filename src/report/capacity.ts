/**
 * capacity.md and the terminal view of a capacity table (capacity.json, `rtcap.capacity/v1`):
 * the docs/METHOD.md §7 rows with their rule and evidence, each row's notes, the docs/METHOD.md
 * §8 rows, the runs used. Pure: the table in, text out. report.html of a campaign is
 * capacity-html.ts.
 */
import type { CapacityFile, CapacityTableRow, ConfigTableRow } from '../capacity/types.js';
import { fmtPct } from '../model/format.js';
import { rowLimitWords } from '../model/limit.js';
import { renderMarkdownTable, type ReportTable } from './table.js';

export function rowEvidenceText(r: CapacityTableRow): string {
  if (!r.evidence) return `no value: ${r.reason ?? 'not measured'}`;
  const e = r.evidence;
  const steps = e.steps.length
    ? ` step${e.steps.length === 1 ? '' : 's'} ${e.steps.join(', ')}`
    : '';
  return `${e.run_id}${steps}: ${e.text}`;
}

export function capacityTableOf(f: CapacityFile): ReportTable {
  return {
    id: 'capacity',
    title: 'Recommended capacity (seed 002 §7)',
    columns: ['#', 'Dimension', 'Recommended', 'Limiting factor', 'Rule', 'Evidence'],
    align: ['right', 'left', 'right', 'left', 'left', 'left'],
    rows: f.rows.map((r) => [
      String(r.no),
      r.dimension,
      r.display,
      rowLimitWords(r),
      r.rule_text,
      rowEvidenceText(r),
    ]),
  };
}

function configEvidence(c: ConfigTableRow): string {
  if (!c.evidence) return c.missing ?? '—';
  return `${c.evidence.run_id}${c.evidence.steps.length ? ` steps ${c.evidence.steps.join(', ')}` : ''}`;
}

export function configTableOf(f: CapacityFile): ReportTable {
  return {
    id: 'config',
    title: 'Configuration (seed 002 §8)',
    columns: ['Setting', 'Recommended', 'Why', 'Benefit', 'Evidence'],
    align: ['left', 'right', 'left', 'left', 'left'],
    rows: f.config.map((c) => [
      c.setting,
      c.display,
      c.missing ? c.missing : c.reason,
      c.benefit,
      configEvidence(c),
    ]),
  };
}

export function sourcesTableOf(f: CapacityFile): ReportTable {
  return {
    id: 'sources',
    title: 'Runs',
    columns: ['Directory', 'Run', 'Profile', 'Scenario', 'Kind', 'Status', 'Steps'],
    align: ['left', 'left', 'left', 'left', 'left', 'left', 'right'],
    rows: f.sources.map((s) => [
      s.dir,
      s.run_id,
      s.profile,
      s.scenario,
      s.sweep ? 'sweep' : 'run',
      s.status,
      String(s.steps),
    ]),
  };
}

export function capacityHeader(f: CapacityFile): string[] {
  const inst = `${f.target.instance.vcpus} vCPU / ${f.target.instance.memory_mb} MB${f.target.cpus ? `, server CPUs ${f.target.cpus}` : ''}`;
  return [
    `Target: ${f.target.url} (${inst}); rtcap ${f.rtcap_version}; ${f.sources.length} run${f.sources.length === 1 ? '' : 's'}.`,
    `Safe lines: CPU ${fmtPct(f.safe_lines.cpu_pct, 0)}, memory ${fmtPct(f.safe_lines.mem_pct, 0)}. Values are rounded down to 3 significant figures; "≥" marks a lower bound (no limit reached). Rules: docs/CAPACITY.md.`,
  ];
}

export function renderCapacityMarkdown(f: CapacityFile): string {
  const out = [
    '# Capacity',
    '',
    ...capacityHeader(f).flatMap((l) => [l, '']),
    '## Recommended capacity (seed 002 §7)',
    '',
    renderMarkdownTable(capacityTableOf(f)),
    '',
  ];
  const notes = f.rows.flatMap((r) => r.notes.map((n) => `- Row ${r.no} (${r.id}): ${n}`));
  const fits = f.rows
    .filter((r) => r.evidence?.fit)
    .map((r) => `- Row ${r.no} fit: ${r.evidence!.fit}`);
  if (notes.length || fits.length) out.push('### Notes', '', ...fits, ...notes, '');
  out.push(
    '## Configuration (seed 002 §8)',
    '',
    renderMarkdownTable(configTableOf(f)),
    '',
    '## Runs',
    '',
    renderMarkdownTable(sourcesTableOf(f)),
    '',
  );
  return out.join('\n');
}

/** A few lines for the terminal after a campaign or `rtcap capacity`. */
export function renderCapacityTerminal(f: CapacityFile): string {
  const w = Math.max(...f.rows.map((r) => r.dimension.length));
  return f.rows
    .map(
      (r) =>
        `${String(r.no).padStart(2)}  ${r.dimension.padEnd(w)}  ${r.value === null ? `— (${r.reason})` : `${r.display} (${rowLimitWords(r, { remedy: false })})`}`,
    )
    .join('\n');
}
