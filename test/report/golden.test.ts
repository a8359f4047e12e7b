/**
 * Report goldens: for every run result in test/fixtures, the summary.md and report.html that
 * `rtcap report DIR` rebuilds (the same library calls the command makes: readResultFile, then
 * writeArtifacts, on a temporary run directory) are compared byte for byte with the files
 * committed under test/report/golden/<fixture>/.
 *
 * A change that alters report output on purpose regenerates them:
 *
 *   RTCAP_UPDATE_GOLDEN=1 npx vitest run test/report/golden.test.ts
 *
 * and says in its commit message which figures changed and why. A pure reshaping keeps them
 * byte-identical.
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { readResultFile } from '../../src/cli/report.js';
import { writeArtifacts } from '../../src/artefacts/render.js';
import { tempDir } from '../support/temp-dir.js';

const here = dirname(fileURLToPath(import.meta.url));
const fixtures = join(here, '..', 'fixtures');
const goldens = join(here, 'golden');
const update = process.env.RTCAP_UPDATE_GOLDEN === '1';

/** Every run result among the fixtures (each *.json), with its timeseries when one is beside it. */
const RUNS = readdirSync(fixtures)
  .filter((f) => f.endsWith('.json'))
  .map((f) => f.slice(0, -'.json'.length))
  .sort();

const ARTEFACTS = ['summary.md', 'report.html'] as const;

const scratch = tempDir('rtcap-golden-');
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Rebuilds a fixture's artefacts in a fresh run directory the way `rtcap report` does. */
function rebuild(name: string): Record<(typeof ARTEFACTS)[number], string> {
  const dir = join(scratch, name);
  mkdirSync(dir);
  copyFileSync(join(fixtures, `${name}.json`), join(dir, 'result.json'));
  const ts = join(fixtures, `${name}.timeseries.ndjson`);
  if (existsSync(ts)) copyFileSync(ts, join(dir, 'timeseries.ndjson'));
  const r = readResultFile(dir);
  if (typeof r === 'string') throw new Error(`${name}: ${r}`);
  const problems = writeArtifacts(r, dir);
  expect(problems).toEqual([]);
  return {
    'summary.md': readFileSync(join(dir, 'summary.md'), 'utf8'),
    'report.html': readFileSync(join(dir, 'report.html'), 'utf8'),
  };
}

describe('report goldens', () => {
  it('covers the run results in test/fixtures', () => {
    expect(RUNS).toContain('run-a');
    expect(RUNS).toContain('seed-002-s6-postgres-changes');
  });

  for (const name of RUNS) {
    it(`${name}: summary.md and report.html are byte-identical to the goldens`, () => {
      const built = rebuild(name);
      for (const file of ARTEFACTS) {
        const golden = join(goldens, name, file);
        if (update) {
          mkdirSync(dirname(golden), { recursive: true });
          writeFileSync(golden, built[file]);
          continue;
        }
        expect(existsSync(golden), `${golden} missing: run with RTCAP_UPDATE_GOLDEN=1`).toBe(true);
        // Compared as one string so a failure shows the differing lines.
        expect(built[file], `${name}/${file}`).toBe(readFileSync(golden, 'utf8'));
      }
    });
  }
});
