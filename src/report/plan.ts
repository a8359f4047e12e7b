/**
 * The text of `rtcap plan`: instances needed, the binding dimension, every dimension's demand,
 * capacity, instances and headroom with the arithmetic behind them, and — with tables for
 * several sizes — capacity against size and whether scaling up or out is cheaper. Pure.
 */
import type { InstancePlan } from '../plan/instances.js';
import type { KnobAdvice } from '../plan/knobs.js';
import type { ScalingAdvice } from '../plan/scaling.js';
import { renderMarkdownTable } from './table.js';

const pct = (h: number | null) => (h === null ? '—' : `${(h * 100).toFixed(0)}%`);
const count = (n: number | null) =>
  n === null ? 'not planned' : Number.isFinite(n) ? String(n) : 'none carries it';

export function planHeadline(plan: InstancePlan, sizeText: string): string {
  if (plan.instances === null) {
    return `No number of ${sizeText} instances carries this workload: ${plan.impossible.join(', ')} cannot be split across instances and is over one instance's (or one tenant's) capacity.`;
  }
  const unplanned = plan.unmeasured.length
    ? ` At least that many: ${plan.unmeasured.length} dimension${plan.unmeasured.length === 1 ? ' has' : 's have'} no value in the capacity table and ${plan.unmeasured.length === 1 ? 'is' : 'are'} not planned (${plan.unmeasured.join(', ')}).`
    : '';
  const bind = plan.dimensions.find((d) => d.id === plan.binding);
  const fewer = bind?.lower_bound
    ? ' At most that many: the binding row is a lower bound, fewer may do.'
    : '';
  return `${plan.instances} instance${plan.instances === 1 ? '' : 's'} of ${sizeText}; binding dimension: ${plan.binding ?? '—'}.${fewer}${unplanned}`;
}

export function renderPlanMarkdown(plan: InstancePlan, sizeText: string): string {
  const table = renderMarkdownTable({
    id: 'plan',
    title: '',
    columns: ['Dimension', 'Demand', 'Per instance', 'Instances', 'Headroom', 'Arithmetic'],
    align: ['left', 'right', 'right', 'right', 'right', 'left'],
    rows: plan.dimensions.map((d) => [
      d.id === plan.binding ? `**${d.id}** (binds)` : d.id,
      `${d.demand.toLocaleString('en-US', { maximumFractionDigits: 2 })} (${d.demand_text})`,
      d.capacity_display,
      count(d.instances),
      pct(d.headroom),
      d.arithmetic,
    ]),
  });
  const out = [planHeadline(plan, sizeText), '', table];
  if (plan.unmeasured.length)
    out.push('', `Not planned (the capacity table has no value): ${plan.unmeasured.join(', ')}.`);
  return out.join('\n');
}

export function renderScalingMarkdown(s: ScalingAdvice): string {
  const out = ['## Scaling up or out', '', s.verdict, ''];
  for (const size of s.sizes)
    out.push(
      `### ${size.vcpus} vCPU / ${size.memory_mb} MB`,
      '',
      renderPlanMarkdown(size.plan, `${size.vcpus} vCPU`),
      '',
    );
  const fitted = s.fits.filter((f) => f.points.length > 0);
  if (fitted.length)
    out.push('### Capacity against size', '', ...fitted.map((f) => `- ${f.text}`), '');
  return out.join('\n');
}

const instancesText = (p: InstancePlan | null) =>
  p === null ? '—' : p.instances === null ? 'none carries it' : String(p.instances);

/**
 * The knobs: each setting that limits a row, today and with its docs/METHOD.md §8 recommendation,
 * the instances either way, everything applied at once, and the change that saves the most.
 */
export function renderKnobsMarkdown(k: KnobAdvice, sizeText: string): string {
  if (k.knobs.length === 0) return '';
  const table = renderMarkdownTable({
    id: 'knobs',
    title: '',
    columns: [
      'Setting',
      'Row',
      'Today',
      'Recommended',
      'Row today',
      'Row recommended',
      'Instances today',
      'Instances with it',
      'How sized',
    ],
    align: ['left', 'left', 'right', 'right', 'left', 'left', 'right', 'right', 'left'],
    rows: k.knobs.map((x) => [
      x.setting,
      x.row,
      x.today.toLocaleString('en-US'),
      x.recommended === null ? '—' : x.recommended.toLocaleString('en-US'),
      x.before,
      x.after ?? '—',
      instancesText(k.today),
      instancesText(x.plan),
      x.why,
    ]),
  });
  const out = ['## Settings that limit a row (seed 002 §8 applied)', '', table, ''];
  if (k.best) {
    const bind = k.best.plan?.dimensions.find((d) => d.id === k.best!.plan?.binding);
    const fewer = bind?.lower_bound ? ' (at most: fewer may do)' : '';
    out.push(
      `Saves the most: ${k.best.setting} ${k.best.today.toLocaleString('en-US')} → ${k.best.recommended!.toLocaleString('en-US')}: ${instancesText(k.today)} → ${instancesText(k.best.plan)} instance${k.best.plan?.instances === 1 ? '' : 's'}${fewer}.`,
      '',
    );
  } else {
    out.push('No recommended setting lowers the instance count for this workload.', '');
  }
  if (k.all)
    out.push('### With every recommendation applied', '', renderPlanMarkdown(k.all, sizeText), '');
  return out.join('\n');
}
