/**
 * quotas.md and the terminal table of `rtcap quotas` (pure): one row per quota with its
 * result, the load each phase was meant to offer beside what it did offer, the evidence, and
 * why it failed or could not conclude.
 */
import type { PhaseEvidence, QuotaRow, QuotasReport } from '../result/quotas.js';
import { renderMarkdownTable, type ReportTable } from './table.js';

const num = (x: number) =>
  Number.isInteger(x)
    ? x.toLocaleString('en-US')
    : Number(x.toPrecision(4)).toLocaleString('en-US');

/** "25.6 of 32 joins/s": measured beside declared; "—" when not measured. */
export function offeredCell(p: PhaseEvidence, unit: string): string {
  const skipped = p.skipped > 0 ? ` (${num(p.skipped)} skipped)` : '';
  return p.offered === null
    ? `— of ${num(p.target)} ${unit}`
    : `${num(p.offered)} of ${num(p.target)} ${unit}${skipped}`;
}

function resultCell(r: QuotaRow): string {
  return r.result === 'fail' ? 'FAIL' : r.result;
}

export function quotasTable(report: QuotasReport): ReportTable {
  return {
    id: 'quotas',
    title: 'Tenant quotas',
    columns: ['quota', 'declared', 'result', 'below: offered', 'above: offered', 'evidence', 'why'],
    align: ['left', 'right', 'left', 'right', 'right', 'left', 'left'],
    rows: report.rows.map((r) => [
      r.quota,
      `${num(r.declared)}${r.quota === 'max_payload_size_in_kb' ? ' KB' : ''}`,
      resultCell(r),
      offeredCell(r.below, r.unit),
      offeredCell(r.above, r.unit),
      r.evidence,
      [...r.failures, ...(r.inconclusive ?? [])].join('; '),
    ]),
  };
}

export function renderQuotasMarkdown(report: QuotasReport): string {
  const out = [
    `# rtcap quotas: ${report.profile.name}`,
    '',
    `Target ${report.target.url || '—'}${report.target.builtin ? ' (built-in server)' : ''}; ${report.started_at} – ${report.finished_at}.`,
    '',
  ];
  if (report.abort_reason) out.push(`**Could not finish:** ${report.abort_reason}`, '');
  const by = (k: QuotaRow['result']) => report.rows.filter((r) => r.result === k).length;
  const inconclusive = by('inconclusive') ? `, ${by('inconclusive')} inconclusive` : '';
  out.push(
    `**${report.result.toUpperCase()}** — ${by('pass')} of ${report.rows.length} quotas as declared${inconclusive}.`,
    '',
  );
  if (report.rows.length) out.push(renderMarkdownTable(quotasTable(report)), '');
  const s = report.settings;
  out.push(
    `Below = ${Math.round(s.below * 100)} % of the declared value (no rejection allowed); above = ${Math.round(s.above * 100)} % (rejections with the documented reason required, onset within ${Math.round(s.tolerance * 100)} %); back below: recovered within the rate window (${num((s.rate_tick * s.rate_buckets) / 1000)} s + two ticks). ` +
      `"Offered" is measured: a phase that offered under ${Math.round(s.min_offered_ratio * 100)} % of its target shows nothing about that target, and its quota is inconclusive unless a refusal says otherwise.`,
    '',
  );
  return out.join('\n');
}
