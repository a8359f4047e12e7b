/**
 * Which way imports point: dependency-cruiser with .dependency-cruiser.cjs (down the floors of
 * docs/ARCHITECTURE.md's "Layers", never up, and no import cycle, type-only imports included)
 * over src/.
 * A failure prints dependency-cruiser's lines, each naming the rule and the importing file.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from './support/temp-dir.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
const config = join(root, '.dependency-cruiser.cjs');

/** dependency-cruiser's exit code (the number of errors) and its report. */
function cruise(cwd: string, args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [bin, 'src', '--config', config, '--output-type', 'err', ...args],
      { cwd, timeout: 120_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        done({ code, out: `${stdout}${stderr}` });
      },
    );
  });
}

const scratch = tempDir('rtcap-deps-');
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function write(dir: string, path: string, text: string): void {
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  writeFileSync(join(dir, path), text);
}

describe('dependency rules', () => {
  it('src/ keeps them: no forbidden import, no cycle', async () => {
    const r = await cruise(root, []);
    expect(r.code, r.out).toBe(0);
  }, 180_000);

  it('an import up a floor, back along one, from an unlisted folder, or a type-only cycle fails, naming the rule and the file', async () => {
    const dir = join(scratch, 'bad');
    write(dir, 'tsconfig.json', JSON.stringify({ compilerOptions: { module: 'nodenext' } }));
    write(
      dir,
      'src/model/fit.ts',
      "import { x } from '../report/table.js';\nexport const y = x;\n",
    );
    write(dir, 'src/report/table.ts', 'export const x = 1;\n');
    // run and sweep share the commands floor, and sweep comes first: run may not import it.
    write(dir, 'src/run/walk.ts', "import { s } from '../sweep/plan.js';\nexport const w = s;\n");
    write(dir, 'src/sweep/plan.ts', 'export const s = 1;\n');
    write(
      dir,
      'src/newfolder/z.ts',
      "import { s } from '../sweep/plan.js';\nexport const z = s;\n",
    );
    write(dir, 'src/result/a.ts', "import type { B } from './b.js';\nexport type A = B[];\n");
    write(dir, 'src/result/b.ts', "import type { A } from './a.js';\nexport type B = { a: A };\n");
    const r = await cruise(dir, []);
    expect(r.code, r.out).toBe(4);
    expect(r.out).toMatch(/model-imports-only-below: src\/model\/fit\.ts → src\/report\/table\.ts/);
    expect(r.out).toMatch(/run-imports-only-below: src\/run\/walk\.ts → src\/sweep\/plan\.ts/);
    expect(r.out).toMatch(/every-folder-on-a-floor: src\/newfolder\/z\.ts → src\/sweep\/plan\.ts/);
    expect(r.out).toMatch(/no-circular: src\/result\/a\.ts →\s+src\/result\/b\.ts →/);
  }, 180_000);
});
