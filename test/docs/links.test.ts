/**
 * The README and docs/ read as one set of pages: the README stays a short user's path, every
 * relative link reaches a file and every `#anchor` a heading of it, a heading cited by name
 * (`FIGURES.md "A step cut short"`) is a heading of that file (docs/PERFORMANCE.md's index and
 * commands: test/docs/performance.test.ts).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const read = (f: string): string => readFileSync(join(ROOT, f), 'utf8');
/** A page without its fenced code blocks and inline code: links and headings only in prose. */
const prose = (text: string): string =>
  text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/<[^>]+>/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Every anchor a page has: its headings' (a repeated one gets -1, -2, …) and `<a id>`s. */
function anchorsOf(file: string): Set<string> {
  const text = read(file).replace(/^```[\s\S]*?^```/gm, '');
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of text.matchAll(/^#{1,6} (.+)$/gm)) {
    const base = slug(m[1].trim());
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  for (const m of text.matchAll(/<a id="([^"]+)"/g)) out.add(m[1]);
  return out;
}

const headingsOf = (file: string): string[] =>
  [...read(file).replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6} (.+)$/gm)].map((m) =>
    m[1].trim(),
  );

describe('the README', () => {
  it('is a short path: at most 250 lines', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(250);
  });

  it('keeps the two commands', () => {
    const readme = read('README.md');
    expect(readme).toContain('npm install && npx rtcap run profiles/quickstart.yaml');
    expect(readme).toContain('npm test');
  });
});

describe('links between pages', () => {
  it('reach a file, and an anchor that file has', () => {
    const bad: string[] = [];
    for (const page of PAGES) {
      for (const m of prose(read(page)).matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1];
        if (/^[a-z]+:/.test(target)) continue; // http:, https:, mailto:
        const [path, anchor] = target.split('#');
        const file = path === '' ? page : relative(ROOT, resolve(ROOT, dirname(page), path));
        if (!existsSync(join(ROOT, file))) bad.push(`${page}: ${target} (no file ${file})`);
        else if (anchor !== undefined && file.endsWith('.md') && !anchorsOf(file).has(anchor))
          bad.push(`${page}: ${target} (no heading #${anchor} in ${file})`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('cite headings the cited page has (`FIGURES.md "Clocks and windows"`, from docs/)', () => {
    const missing: string[] = [];
    for (const page of PAGES.filter((p) => p.startsWith('docs/'))) {
      // test/docs/references.test.ts checks the form with the docs/ folder; this one the bare name
      for (const m of read(page).matchAll(/(?<![\w/])([A-Z][A-Z-]+\.md)\]?(?:\([^)]*\))?,? "([^"]+)"/g)) {
        const file = `docs/${m[1]}`;
        const words = m[2].replace(/\s*\n\s*/g, ' ');
        if (!existsSync(join(ROOT, file))) missing.push(`${page}: ${m[1]} (no such page)`);
        else if (!headingsOf(file).some((h) => h.startsWith(words)))
          missing.push(`${page}: ${m[1]} "${words}"`);
      }
    }
    expect(missing).toEqual([]);
  });
});

/**
 * A document a section number belongs to, named before it in its sentence. Report text calls the
 * method by its original's name, "seed 002" or "the seed" (docs/METHOD.md says so; the report
 * goldens pin that wording): the same numbers as docs/METHOD.md.
 */
const NAMED = /(?:docs\/)?(METHOD|PROTOCOL)\.md|RFC \d+|\bseed(?: 002)?\b/g;
/** Where a sentence, a table cell or a paragraph starts, looking back from a `§`. */
const SENTENCE_START = /[.!?:;]\s|\|\s|\n\s*\n|\n\s*[-*]\s/g;

/** Each `§N` of a text with the document its sentence names before it (null: none). */
interface Citation {
  at: number;
  section: string;
  doc: string | null;
}
function sectionCitations(text: string): Citation[] {
  const out: Citation[] = [];
  for (const m of text.matchAll(/§(\d+(?:\.\d+)*)/g)) {
    const before = text.slice(0, m.index);
    let start = 0;
    for (const s of before.matchAll(SENTENCE_START)) start = s.index + s[0].length;
    const named = [...before.slice(start).matchAll(NAMED)];
    const last = named.at(-1);
    const doc = last ? (last[1] ?? (last[0].startsWith('seed') ? 'METHOD' : 'RFC')) : null;
    out.push({ at: m.index, section: m[1], doc });
  }
  return out;
}

/** The sections each numbered document has. */
const SECTIONS = {
  METHOD: new Set(
    [...read('docs/METHOD.md').matchAll(/^## §(\d+)|\*\*§(\d+\.\d+)/gm)].map((m) => m[1] ?? m[2]),
  ),
  PROTOCOL: new Set(
    [...read('docs/PROTOCOL.md').matchAll(/^#{2,3} (\d+(?:\.\d+)?)\.? /gm)].map((m) => m[1]),
  ),
};

/** What is wrong with the § citations of a text: none named, or a section the document lacks. */
function badCitations(name: string, text: string): string[] {
  const bad: string[] = [];
  for (const c of sectionCitations(text)) {
    const line = text.slice(0, c.at).split('\n').length;
    if (c.doc === null) bad.push(`${name}:${line}: §${c.section} names no document`);
    else if (c.doc !== 'RFC' && !SECTIONS[c.doc as 'METHOD' | 'PROTOCOL'].has(c.section))
      bad.push(`${name}:${line}: ${c.doc}.md has no §${c.section}`);
  }
  return bad;
}

/**
 * A source file as prose, line for line: comment markers dropped, so a comment's sentence runs
 * on over its lines; code lines kept, so a § in a string (output, a /metrics help text, the
 * schema's SQL comments) is read in its sentence too.
 */
function proseOf(source: string): string {
  return source
    .split('\n')
    .map((line) => /^\s*(?:\/\*\*?|\*\/?|\/\/)\s?(.*)$/.exec(line)?.[1] ?? line)
    .join('\n');
}

describe('section numbers (§N)', () => {

  it('name their document in the sentence: docs/METHOD.md §7, docs/PROTOCOL.md §8.2', () => {
    expect(SECTIONS.METHOD.has('7') && SECTIONS.METHOD.has('1.2')).toBe(true);
    const pages = PAGES.filter((p) => !/docs\/(METHOD|PROTOCOL)\.md$/.test(p));
    expect(pages.flatMap((page) => badCitations(page, read(page)))).toEqual([]);
  });

  it('in src/, comments and strings name their document too (docs/METHOD.md §5)', () => {
    const sources = execFileSync('git', ['ls-files', 'src'], { cwd: ROOT, encoding: 'utf8' })
      .split('\n')
      .filter((f) => f.endsWith('.ts') && existsSync(join(ROOT, f)));
    expect(sources.length).toBeGreaterThan(100);
    expect(sources.flatMap((f) => badCitations(f, proseOf(read(f))))).toEqual([]);
  });

  it("in rtcap's recorded output the tests read (fixtures, report goldens) and their build scripts too", () => {
    const recorded = execFileSync('git', ['ls-files', 'test/fixtures', 'test/report/golden'], {
      cwd: ROOT,
      encoding: 'utf8',
    })
      .split('\n')
      .filter((f) => /\.(json|ndjson|md|html|mjs|ts)$/.test(f) && existsSync(join(ROOT, f)));
    expect(recorded.length).toBeGreaterThan(20);
    expect(recorded.flatMap((f) => badCitations(f, proseOf(read(f))))).toEqual([]);
  });
});
