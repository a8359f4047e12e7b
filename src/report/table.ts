/**
 * A report table as data: sections build these once, and Markdown, the terminal and HTML
 * each render them. Cells are already formatted strings ("—" for missing figures).
 */

export type Align = 'left' | 'right';

export interface ReportTable {
  /** Stable id for HTML anchors and tests, e.g. "s1.1-connections". */
  id: string;
  /** Heading, naming the seed-002 section it regenerates. */
  title: string;
  columns: string[];
  /** Per column; default left for the first, right for the rest. */
  align?: Align[];
  rows: string[][];
  /** Lines printed under the table: fits, the docs/METHOD.md §5 arithmetic, caveats. */
  notes?: string[];
}

function alignOf(t: ReportTable, i: number): Align {
  return t.align?.[i] ?? (i === 0 ? 'left' : 'right');
}

/** A pipe inside a verbatim error reason must not split the cell. */
function mdCell(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

export function renderMarkdownTable(t: ReportTable): string {
  const head = `| ${t.columns.map(mdCell).join(' | ')} |`;
  const rule = `|${t.columns.map((_, i) => (alignOf(t, i) === 'right' ? '---:' : '---')).join('|')}|`;
  const body = t.rows.map((r) => `| ${r.map(mdCell).join(' | ')} |`);
  return [head, rule, ...body].join('\n');
}

/** Display width: the em dash and CJK are one column in a terminal; good enough for ASCII + "—". */
function width(s: string): number {
  return [...s].length;
}

function pad(s: string, w: number, a: Align): string {
  const fill = ' '.repeat(Math.max(0, w - width(s)));
  return a === 'right' ? fill + s : s + fill;
}

/** Fixed-width columns for a terminal, two spaces apart; `maxCell` truncates long cells. */
export function renderTextTable(t: ReportTable, maxCell = 60): string {
  const cut = (s: string) => (width(s) > maxCell ? `${[...s].slice(0, maxCell - 1).join('')}…` : s);
  const rows = [t.columns, ...t.rows].map((r) => r.map(cut));
  const widths = t.columns.map((_, i) => Math.max(...rows.map((r) => width(r[i] ?? ''))));
  return rows
    .map((r) =>
      r
        .map((c, i) => pad(c ?? '', widths[i], alignOf(t, i)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
