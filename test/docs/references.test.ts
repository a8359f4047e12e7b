/**
 * The repository reads on its own: comments and docs point at files in it (docs/PROTOCOL.md,
 * docs/ARCHITECTURE.md, …), never at reference files that only existed beside the project, and
 * every `docs/PROTOCOL.md §N.M` they cite is a section of that file.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const TEXT = /\.(ts|js|mjs|md|yaml|yml|json)$/;
const files = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' })
  .split('\n')
  .filter((f) => TEXT.test(f) && !f.startsWith('node_modules/') && !f.includes('fixtures/'));
const read = (f: string): string => {
  try {
    return readFileSync(join(ROOT, f), 'utf8');
  } catch {
    return ''; // listed but deleted in the work tree
  }
};

/** A bare name of a reference file kept outside the repository (no folder before it). */
const OUTSIDE = /(?<![\w/.-])(PROTOCOL|DESIGN|STYLE)\.md/g;
const CITED = /docs\/PROTOCOL\.md §(\d+(?:\.\d+)?)/g;
/** A section cited by its heading: `docs/FIGURES.md "Measurement rules"`, `README "Read more"`. */
const HEADING_CITED = /(docs\/[A-Z-]+\.md|README(?:\.md)?),? "([^"]+)"/g;

describe('references', () => {
  it('name files inside the repository (docs/PROTOCOL.md, docs/ARCHITECTURE.md)', () => {
    const bad: string[] = [];
    for (const f of files) {
      read(f).split('\n').forEach((line, i) => {
        if (OUTSIDE.test(line)) bad.push(`${f}:${i + 1}: ${line.trim()}`);
        OUTSIDE.lastIndex = 0;
      });
    }
    expect(bad, 'point these at docs/PROTOCOL.md (same § numbers) or docs/ARCHITECTURE.md sections').toEqual([]);
  });

  it('cite sections docs/PROTOCOL.md has', () => {
    const protocol = read('docs/PROTOCOL.md');
    const sections = new Set([...protocol.matchAll(/^#{2,3} (\d+(?:\.\d+)?)\.? /gm)].map((m) => m[1]));
    expect(sections.has('8.2')).toBe(true);
    const missing: string[] = [];
    for (const f of files) {
      for (const m of read(f).matchAll(CITED)) if (!sections.has(m[1])) missing.push(`${f}: §${m[1]}`);
    }
    expect(missing).toEqual([]);
  });

  it('cite sections by headings their file has (a heading starts with the quoted words)', () => {
    const headingsOf = new Map<string, string[]>();
    const headings = (doc: string): string[] => {
      const file = doc.startsWith('README') ? 'README.md' : doc;
      if (!headingsOf.has(file)) {
        const text = read(file);
        headingsOf.set(file, [...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => m[1].trim()));
      }
      return headingsOf.get(file)!;
    };
    const missing: string[] = [];
    for (const f of files) {
      for (const m of read(f).matchAll(HEADING_CITED)) {
        // A citation wrapped over two comment lines reads as one.
        const words = m[2].replace(/\s*\n\s*(?:\*|\/\/|#)?\s*/g, ' ');
        const found = headings(m[1]).some((h) => h.startsWith(words));
        if (!found) missing.push(`${f}: ${m[1]} "${words}"`);
      }
    }
    expect(missing).toEqual([]);
  });
});
