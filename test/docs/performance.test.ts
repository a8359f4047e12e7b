/**
 * docs/PERFORMANCE.md is one page a reader can trust: its index has a row for every section and
 * each row quotes its section's latest figure (every number of the row's figure and of its
 * "measured" cell appears in the section it links to), and every command the page quotes can be
 * run as written: the bench script or profile it names exists, each `--option` it gives a bench
 * script is one that script reads, each `npm run` script is in package.json, and `npm run bench`
 * runs the micro-benchmarks the page says it runs (bench/run-all.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const read = (f: string): string => readFileSync(join(ROOT, f), 'utf8');
const TEXT = read('docs/PERFORMANCE.md');
const SCRIPTS = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

const SECTIONS = new Map<string, string>();
for (const part of TEXT.split(/^(?=## )/m).slice(1))
  SECTIONS.set(slug(part.split('\n')[0].slice(3).trim()), part);

const ROWS = [
  ...TEXT.matchAll(/^\| \[([^\]]+)\]\(#([^)]+)\) \| ([^|]*) \| ([^|]*) \| ([^|]*) \| ([^|]*) \|$/gm),
].map((m) => ({ name: m[1], anchor: m[2], command: m[3], figure: m[4], measured: m[6] }));

/** The numbers of a cell as written (12,345 / 0.94 / 3.04×), thousands separators kept. */
const numbers = (s: string): string[] => s.match(/\d+(?:[,.]\d+)*/g) ?? [];

/** The numbers of `cell` that its row's section does not have, each as `name: n`. */
function notInSection(row: (typeof ROWS)[number], cell: string): string[] {
  const section = SECTIONS.get(row.anchor) ?? '';
  return numbers(cell)
    .filter((n) => !new RegExp(`(?<![\\d,.])${n.replace(/[.]/g, '\\.')}(?![\\d]|[,.]\\d)`).test(section))
    .map((n) => `${row.name}: ${n} is not in its section`);
}

/**
 * Every command the page quotes: the lines of its fenced blocks that run npx, npm or node (a
 * line continued with `\` joined to the next, a trailing `# comment` dropped) and its inline
 * code that does.
 */
function quotedCommands(): string[] {
  const out: string[] = [];
  for (const block of TEXT.matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm)) {
    for (const line of block[1].replace(/\\\n\s*/g, ' ').split('\n')) {
      const cmd = line.replace(/\s+#.*$/, '').trim();
      if (/(^|\s)(npx|npm|node)\s/.test(cmd)) out.push(cmd);
    }
  }
  const prose = TEXT.replace(/^```[\s\S]*?^```/gm, '');
  for (const m of prose.matchAll(/`([^`\n]+)`/g))
    if (/(^|\s)(npx|npm run|node)\s/.test(m[1])) out.push(m[1]);
  return out;
}

/** What is wrong with one command: a file it names that is not there, an option not read. */
function commandProblems(cmd: string): string[] {
  const bad: string[] = [];
  for (const m of cmd.matchAll(/(?<![\w/.-])((?:bench|profiles)\/[\w./-]+\.(?:ts|mjs|yaml))/g))
    if (!existsSync(join(ROOT, m[1]))) bad.push(`${cmd}: no file ${m[1]}`);
  for (const m of cmd.matchAll(/npm run ([\w:-]+)/g))
    if (SCRIPTS[m[1]] === undefined) bad.push(`${cmd}: package.json has no script ${m[1]}`);
  const script = /npx tsx (bench\/[\w/-]+\.ts)((?:\s+[^|&;]+)?)/.exec(cmd);
  if (script && existsSync(join(ROOT, script[1]))) {
    const source = read(script[1]);
    for (const [, flag] of script[2].matchAll(/--([a-z][\w-]*)/g))
      if (!source.includes(`'${flag}'`) && !source.includes(`'--${flag}'`))
        bad.push(`${cmd}: ${script[1]} reads no --${flag}`);
  }
  return bad;
}

describe('docs/PERFORMANCE.md', () => {
  it('has an index row for every section and a section for every index row', () => {
    expect(ROWS.length).toBeGreaterThan(10);
    expect([...new Set(ROWS.map((r) => r.anchor))].sort()).toEqual([...SECTIONS.keys()].sort());
  });

  it("each index row's figure is its section's: every number in it appears there", () => {
    expect(ROWS.flatMap((r) => notInSection(r, r.figure))).toEqual([]);
  });

  it("each index row's time and load are its section's: every number in them appears there", () => {
    expect(ROWS.flatMap((r) => notInSection(r, r.measured))).toEqual([]);
  });

  it("each index row's command is a bench script or profile that exists and its section runs", () => {
    const bad: string[] = [];
    for (const row of ROWS) {
      const section = SECTIONS.get(row.anchor) ?? '';
      for (const m of row.command.matchAll(/`([^`]+)`/g)) {
        // `db-auth.ts` beside `bench/db-startup.ts` is in bench/ too.
        const named = /^[\w-]+\.ts\b/.test(m[1]) ? `bench/${m[1]}` : m[1];
        const file = /^((?:bench|profiles)\/\S+|rtcap \w+ (profiles\/\S+))/.exec(named);
        const path = file?.[2] ?? file?.[1];
        if (!path) continue;
        if (!existsSync(join(ROOT, path))) bad.push(`${row.name}: no file ${path}`);
        if (!section.includes(path.replace(/^bench\//, ''))) bad.push(`${row.name}: its section does not run ${path}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('every command it quotes names scripts, profiles and options that exist', () => {
    const commands = quotedCommands();
    expect(commands.length).toBeGreaterThan(20);
    expect(commands.flatMap(commandProblems)).toEqual([]);
  });

  it('npm run bench runs bench/run-all.ts, and that runs the micro-benchmarks the page names', () => {
    expect(SCRIPTS.bench).toBe('tsx bench/run-all.ts');
    const list = /const MICRO = \[([^\]]*)\]/.exec(read('bench/run-all.ts'))?.[1] ?? '';
    const micro = [...list.matchAll(/'([\w-]+\.ts)'/g)].map((m) => `bench/${m[1]}`).sort();
    expect(micro.length).toBeGreaterThan(2);
    for (const f of micro) expect(existsSync(join(ROOT, f)), f).toBe(true);
    // The page's opening paragraph, before the index: which scripts `npm run bench` runs.
    const intro = TEXT.slice(0, TEXT.indexOf('\n| benchmark |'));
    const named = [...intro.matchAll(/bench\/([\w-]+\.ts)/g)]
      .map((m) => `bench/${m[1]}`)
      .filter((f) => f !== 'bench/run-all.ts');
    expect([...new Set(named)].sort()).toEqual(micro);
  });
});
