/**
 * docs/ARCHITECTURE.md's checkable claims hold: every folder of src/ has its line and every line a
 * folder, on the floor .dependency-cruiser.cjs puts it; the "Layers" list is the dependency rules'
 * order; and every "`src/X` never imports `src/Y`" and "only `src/Z` does" sentence is true of the
 * imports in src/ today.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, normalize, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const SRC = join(ROOT, 'src');
const doc = readFileSync(join(ROOT, 'docs/ARCHITECTURE.md'), 'utf8');
const { LAYERS } = createRequire(import.meta.url)(join(ROOT, '.dependency-cruiser.cjs')) as {
  LAYERS: [string, string[]][];
};

/** The text of one `## ` section of the page. */
function section(heading: string): string {
  const m = new RegExp(`^## ${heading}\\n([\\s\\S]*?)(?=^## |(?![\\s\\S]))`, 'm').exec(doc);
  if (!m) throw new Error(`docs/ARCHITECTURE.md has no "## ${heading}"`);
  return m[1];
}

/** Each folder of src/ → the folders of src/ its files import (relative imports, type-only too). */
function importsByFolder(): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((f) =>
    f.endsWith('.ts'),
  );
  for (const f of files) {
    const from = f.split('/')[0];
    const set = out.get(from) ?? new Set<string>();
    out.set(from, set);
    const text = readFileSync(join(SRC, f), 'utf8');
    for (const m of text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
      const to = relative(SRC, normalize(join(SRC, dirname(f), m[1]))).split('/')[0];
      if (to !== from && !to.startsWith('..')) set.add(to);
    }
  }
  return out;
}

describe('docs/ARCHITECTURE.md', () => {
  const folders = readdirSync(SRC, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
  const lines = [...section('Folders').matchAll(/^- `src\/([a-z0-9-]+)` \(([^)]+)\): /gm)];
  const floorOf = new Map(LAYERS.flatMap(([floor, fs]) => fs.map((f) => [f, floor] as const)));

  it('has one line per folder of src/, and no line for a folder that is not there', () => {
    expect(lines.map((m) => m[1]).sort()).toEqual(folders);
  });

  it("puts each folder on the dependency rules' floor", () => {
    for (const [, name, floor] of lines) expect(`${name}: ${floor}`).toBe(`${name}: ${floorOf.get(name)}`);
  });

  it('every folder is on a floor of the rules', () => {
    expect([...floorOf.keys()].sort()).toEqual(folders);
  });

  it("lists the layers in the dependency rules' order", () => {
    const listed = [...section('Layers').matchAll(/^\d+\. \*\*([^*]+)\*\*: (.+(?:\n {3}.+)*)$/gm)].map(
      (m) => [m[1], [...m[2].matchAll(/`([a-z0-9-]+)`/g)].map((f) => f[1])],
    );
    expect(listed).toEqual(LAYERS);
  });

  it('"X never imports Y" and "only Z does" hold', () => {
    const imports = importsByFolder();
    const text = doc.replace(/\s+/g, ' ');
    const claims = [...text.matchAll(/`src\/(\w+)` never imports ((?:`src\/\w+`(?:, | or )?)+)/g)];
    expect(claims.length).toBeGreaterThanOrEqual(2);
    for (const [, x, ys] of claims)
      for (const [, y] of ys.matchAll(/`src\/(\w+)`/g))
        expect(imports.get(x)?.has(y), `src/${x} imports src/${y}`).toBe(false);
    const only = /imports `src\/(\w+)`, and only `src\/(\w+)` does/.exec(text);
    expect(only).not.toBeNull();
    const importers = [...imports].filter(([, to]) => to.has(only![1])).map(([f]) => f);
    expect(importers).toEqual([only![2]]);
  });

  it('names what the two programs share: the folders src/server imports', () => {
    const intro = doc.slice(0, doc.indexOf('## Layers')).replace(/\s+/g, ' ');
    const said = /What the two programs share is code below both: (.*?)\. `src\/server`/.exec(intro);
    expect(said).not.toBeNull();
    const named = [...said![1].matchAll(/`src\/(\w+)`/g)].map((m) => m[1]).sort();
    expect(named).toEqual([...(importsByFolder().get('server') ?? [])].sort());
  });
});
