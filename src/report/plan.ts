/**
 * The text of `rtcap plan`: instances needed, the binding dimension, every dimension's demand,
 * capacity, instances and headroom with the arithmetic behind them, and — with tables for
 * several sizes — capacity against size and whether scaling up or out is cheaper. Pure.
 */
import type { InstancePlan } from '../plan/instances.js';
import type { ScalingAdvice } from '../plan/scaling.js';
import { renderMarkdownTable } from './table.js';

const pct = (h: number | null) => (h === null ? '—' : `${(h * 100).toFixed(0)}%`);
const count = (n: number | null) => (n === null ? 'not planned' : Number.isFinite(n) ? String(n) : 'none carries it');

export function planHeadline(plan: InstancePlan, sizeText: string): string {
  if (plan.instances === null) {
    return `No number of ${sizeText} instances carries this workload: ${plan.impossible.join(', ')} cannot be split across instances and is over one instance's capacity.`;
  }
  const unplanned = plan.unmeasured.length ? ` At least that many: ${plan.unmeasured.length} dimension${plan.unmeasured.length === 1 ? ' has' : 's have'} no value in the capacity table and ${plan.unmeasured.length === 1 ? 'is' : 'are'} not planned (${plan.unmeasured.join(', ')}).` : '';
  return `${plan.instances} instance${plan.instances === 1 ? '' : 's'} of ${sizeText}; binding dimension: ${plan.binding ?? '—'}.${unplanned}`;
}

export function renderPlanMarkdown(plan: InstancePlan, sizeText: string): string {
  const table = renderMarkdownTable({
    id: 'plan',
    title: '',
    columns: ['Dimension', 'Demand', 'Per instance', 'Instances', 'Headroom', 'Arithmetic'],
    align: ['left', 'right', 'right', 'right', 'right', 'left'],
    rows: plan.dimensions.map((d) => [d.id === plan.binding ? `**${d.id}** (binds)` : d.id, `${d.demand.toLocaleString('en-US', { maximumFractionDigits: 2 })} (${d.demand_text})`, d.capacity_display, count(d.instances), pct(d.headroom), d.arithmetic]),
  });
  const out = [planHeadline(plan, sizeText), '', table];
  if (plan.unmeasured.length) out.push('', `Not planned (the capacity table has no value): ${plan.unmeasured.join(', ')}.`);
  return out.join('\n');
}

export function renderScalingMarkdown(s: ScalingAdvice): string {
  const out = ['## Scaling up or out', '', s.verdict, ''];
  for (const size of s.sizes) out.push(`### ${size.vcpus} vCPU / ${size.memory_mb} MB`, '', renderPlanMarkdown(size.plan, `${size.vcpus} vCPU`), '');
  const fitted = s.fits.filter((f) => f.points.length > 0);
  if (fitted.length) out.push('### Capacity against size', '', ...fitted.map((f) => `- ${f.text}`), '');
  return out.join('\n');
}
