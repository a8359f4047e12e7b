/**
 * The slowest-files reporter (test/support/slowest-files.ts): its lines, and on a tiny vitest run
 * of two files, one of them slow, the two files printed at the end, the slow one first.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { slowestLines } from './slowest-files.js';
import { tempDir } from './temp-dir.js';

const ROOT = resolve(import.meta.dirname, '../..');

describe('slowestLines', () => {
  it('lists the slowest first, at most `count`, seconds aligned', () => {
    const times = [
      { file: 'test/a.test.ts', ms: 1_200 },
      { file: 'test/b.test.ts', ms: 65_000 },
      { file: 'test/c.test.ts', ms: 300 },
    ];
    expect(slowestLines(times, 2)).toEqual([
      'slowest 2 test files:',
      '  65.0 s  test/b.test.ts',
      '   1.2 s  test/a.test.ts',
    ]);
    expect(slowestLines([])).toEqual([]);
  });
});

describe('the reporter on a tiny run', () => {
  it('prints both files at the end, the slow one first', async () => {
    const dir = tempDir('rtcap-slowest-');
    writeFileSync(join(dir, 'fast.test.js'), "test('fast', () => {});\n");
    writeFileSync(
      join(dir, 'slow.test.js'),
      "test('slow', async () => { await new Promise((r) => setTimeout(r, 600)); });\n",
    );
    const reporter = join(ROOT, 'test/support/slowest-files.ts');
    writeFileSync(
      join(dir, 'vitest.config.mjs'),
      `export default { test: { globals: true, include: ['*.test.js'], reporters: ['default', ${JSON.stringify(reporter)}] } };\n`,
    );
    const out = await new Promise<string>((done, fail) =>
      execFile(
        process.execPath,
        [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--root', dir],
        { cwd: dir, timeout: 60_000 },
        (err, stdout, stderr) => (err ? fail(new Error(`${stdout}${stderr}`)) : done(stdout)),
      ),
    );
    const tail = out.slice(out.indexOf('slowest 2 test files:'));
    expect(tail).toMatch(
      /^slowest 2 test files:\n +\d+\.\d s {2}slow\.test\.js\n +\d+\.\d s {2}fast\.test\.js\n/,
    );
    expect(Number(/([\d.]+) s {2}slow/.exec(tail)![1])).toBeGreaterThanOrEqual(0.6);
  }, 90_000);
});
