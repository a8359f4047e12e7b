/**
 * `rtcap compare A B --out FILE.html`: the comparison as one self-contained page. It is the
 * Markdown of renderComparison turned into HTML, so the page and the terminal always say the
 * same thing; only the subset that renderComparison writes is understood (#–### headings,
 * pipe tables, "- " lists, paragraphs).
 */
import { escapeHtml } from './html.js';
import { renderComparison, type ComparisonGates } from './compare.js';
import type { RunResult } from '../result/result.js';

function splitRow(line: string): string[] {
  const cells: string[] = [];
  let cur = '';
  const body = line.trim().replace(/^\|/, '').replace(/\|$/, '');
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (ch === '\\' && i + 1 < body.length) {
      cur += body[++i];
    } else if (ch === '|') {
      cells.push(cur.trim());
      cur = '';
    } else cur += ch;
  }
  cells.push(cur.trim());
  return cells;
}

function tableHtml(lines: string[]): string {
  const head = splitRow(lines[0]);
  const rule = lines[1] && /^\|[\s:|-]+\|$/.test(lines[1].trim()) ? splitRow(lines[1]) : null;
  const align = head.map((_, i) => (rule?.[i]?.endsWith(':') ? 'right' : 'left'));
  const rows = lines.slice(rule ? 2 : 1).map(splitRow);
  const th = head.map((c, i) => `<th class="${align[i]}">${escapeHtml(c)}</th>`).join('');
  const tr = rows
    .map(
      (r) =>
        `<tr>${r.map((c, i) => `<td class="${align[i] ?? 'left'}">${escapeHtml(c)}</td>`).join('')}</tr>`,
    )
    .join('\n');
  return `<table><thead><tr>${th}</tr></thead>\n<tbody>\n${tr}\n</tbody></table>`;
}

export function markdownSubsetToHtml(md: string): string {
  const out: string[] = [];
  const lines = md.split('\n');
  for (let i = 0; i < lines.length;) {
    const line = lines[i];
    const h = /^(#{1,3}) (.*)$/.exec(line);
    if (h) {
      out.push(`<h${h[1].length}>${escapeHtml(h[2])}</h${h[1].length}>`);
      i++;
    } else if (line.trim().startsWith('|')) {
      const block: string[] = [];
      while (i < lines.length && lines[i].trim().startsWith('|')) block.push(lines[i++]);
      out.push(tableHtml(block));
    } else if (line.startsWith('- ')) {
      const items: string[] = [];
      while (i < lines.length && lines[i].startsWith('- '))
        items.push(`<li>${escapeHtml(lines[i++].slice(2))}</li>`);
      out.push(`<ul>${items.join('')}</ul>`);
    } else if (line.trim()) {
      out.push(`<p>${escapeHtml(line.trim())}</p>`);
      i++;
    } else i++;
  }
  return out.join('\n');
}

const CSS = `body { font: 14px/1.45 system-ui, sans-serif; margin: 0 auto; padding: 24px; max-width: 1100px; color: #1b1b1b; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; margin: 8px 0; } th, td { border: 1px solid #dadce0; padding: 4px 8px; }
th { background: #f1f3f4; } .right { text-align: right; } .left { text-align: left; } h1 { font-size: 20px; } h2 { font-size: 17px; margin-top: 28px; } h3 { font-size: 15px; }`;

export function renderComparisonHtml(a: RunResult, b: RunResult, gates?: ComparisonGates): string {
  const md = renderComparison(a, b, gates);
  const title = md.split('\n')[0].replace(/^# /, '');
  return `<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>${escapeHtml(title)}</title>\n<style>${CSS}</style>\n</head>\n<body>\n${markdownSubsetToHtml(md)}\n</body>\n</html>\n`;
}
