/**
 * `rtcap compare A B [--out FILE]`: two runs side by side, step by step, with the
 * differences and whether B is better or worse (src/report/compare.ts). A and B are run
 * directories or result.json files. The comparison goes to stdout, and to FILE when given:
 * HTML for a .html/.htm name, Markdown otherwise. `--fail-on` gates (model/gates.ts) make it a CI
 * step: exit 99 when B regressed past one, each failure naming its figure and step.
 */
import { writeFileSync } from 'node:fs';
import type { Argv } from 'yargs';
import { renderComparison } from '../report/compare.js';
import { renderComparisonHtml } from '../report/compare-html.js';
import { evaluateFailOn, parseFailOn, type GateSide } from '../model/gates.js';
import { ThresholdError } from '../model/thresholds.js';
import type { RunResult } from '../result/result.js';
import { capacityValues } from '../artefacts/render.js';
import { EXIT } from '../util/exit-codes.js';
import { checked, checkedPositional, outFile, runDir } from './flags.js';
import { readResultFile } from './report.js';
import { log } from './shared.js';

/** What evaluateFailOn returns: the verdict and each gate's result. */
type GateReport = ReturnType<typeof evaluateFailOn>;

/** The two runs, the output file and the gates. */
function compareOptions<T>(c: Argv<T>) {
  return c
    .positional(
      'a',
      checkedPositional('baseline run', runDir, {
        demandOption: true,
        describe: 'baseline run (directory or result.json)',
      }),
    )
    .positional(
      'b',
      checkedPositional('candidate run', runDir, {
        demandOption: true,
        describe: 'candidate run (directory or result.json)',
      }),
    )
    .option(
      'out',
      checked('out', outFile, {
        describe: 'also write the comparison to FILE (.html: HTML, else Markdown)',
      }),
    )
    .option('fail-on', {
      type: 'string',
      array: true,
      default: [] as string[],
      describe:
        'exit 99 when B regressed past this gate: "p95_ms +10%", "delivery_rate -0.1pp", "p95_ms{step:3} +5ms", "capacity.public_connections -10%", or an absolute threshold on B ("p95_ms < 200"); repeatable',
    });
}

/** One usage line on stderr and exit 2. */
function usage(message: string): void {
  process.stderr.write(`rtcap compare: ${message}\n`);
  process.exitCode = EXIT.usage;
}

/** Both runs' results, or null after saying which one cannot be read (exit 2). */
function readRuns(pathA: string, pathB: string): [RunResult, RunResult] | null {
  const a = readResultFile(pathA);
  const b = readResultFile(pathB);
  for (const r of [a, b]) {
    if (typeof r === 'string') {
      usage(r);
      return null;
    }
  }
  if (typeof a === 'string' || typeof b === 'string') return null;
  return [a, b];
}

/** False after naming the first --fail-on gate that does not parse (exit 2). */
function failOnParses(failOn: string[]): boolean {
  for (const e of failOn) {
    try {
      parseFailOn(e);
    } catch (err) {
      if (!(err instanceof ThresholdError)) throw err;
      usage(`--fail-on: ${err.message}`);
      return false;
    }
  }
  return true;
}

/** The gates' verdict and each gate on stderr; exit 99 when one failed. */
function reportGates(gates: GateReport): void {
  const failed = gates.results.filter((r) => !r.pass);
  process.stderr.write(
    `gates: ${gates.pass ? 'PASS' : 'FAIL'} — ${gates.results.length - failed.length} of ${gates.results.length} passed${failed.length ? `; regressed: ${[...new Set(failed.map((r) => r.figure))].join(', ')}` : ''}\n`,
  );
  for (const r of gates.results)
    process.stderr.write(`  ${r.pass ? 'pass' : 'FAIL'}  ${r.summary}\n`);
  process.exitCode = gates.pass ? EXIT.ok : EXIT.thresholds;
}

export function compareCommand(y: Argv): Argv {
  return y.command(
    'compare <a> <b>',
    'compare two runs side by side (run directories or result.json files)',
    (c) => compareOptions(c),
    (args) => {
      const runs = readRuns(args.a as string, args.b as string);
      if (!runs) return;
      const [a, b] = runs;
      const failOn = args['fail-on'] as string[];
      if (!failOnParses(failOn)) return;
      const gates = failOn.length ? evaluateFailOn(failOn, gateSide(a), gateSide(b)) : undefined;
      const md = renderComparison(a, b, gates);
      process.stdout.write(md.endsWith('\n') ? md : md + '\n');
      if (args.out) {
        const html = /\.html?$/i.test(args.out);
        writeFileSync(args.out, html ? renderComparisonHtml(a, b, gates) : md);
        log(`wrote ${args.out} (${html ? 'HTML' : 'Markdown'})`);
      }
      if (gates) reportGates(gates);
    },
  );
}

function gateSide(r: RunResult): GateSide {
  let capacity: GateSide['capacity'];
  try {
    capacity = capacityValues(r);
  } catch {
    capacity = undefined; // no analysis possible: capacity gates fail saying so
  }
  return { steps: r.steps, scenario: r.profile.scenario, capacity };
}
