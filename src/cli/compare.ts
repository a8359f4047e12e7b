/**
 * `rtcap compare A B [--out FILE]`: two runs side by side, step by step, with the
 * differences and whether B is better or worse (src/report/compare.ts). A and B are run
 * directories or result.json files. The comparison goes to stdout, and to FILE when given:
 * HTML for a .html/.htm name, Markdown otherwise.
 */
import { writeFileSync } from 'node:fs';
import type { Argv } from 'yargs';
import { renderComparison } from '../report/compare.js';
import { renderComparisonHtml } from '../report/compare-html.js';
import { EXIT } from '../run/runner.js';
import { readResultFile } from './report.js';
import { log } from './shared.js';

export function compareCommand(y: Argv): Argv {
  return y.command(
    'compare <a> <b>',
    'compare two runs side by side (run directories or result.json files)',
    (c) =>
      c
        .positional('a', { type: 'string', demandOption: true, describe: 'baseline run' })
        .positional('b', { type: 'string', demandOption: true, describe: 'candidate run' })
        .option('out', { type: 'string', describe: 'also write the comparison to FILE (.html: HTML, else Markdown)' }),
    (args) => {
      const a = readResultFile(args.a as string);
      const b = readResultFile(args.b as string);
      for (const r of [a, b]) {
        if (typeof r === 'string') {
          process.stderr.write(`rtcap compare: ${r}\n`);
          process.exitCode = EXIT.usage;
          return;
        }
      }
      if (typeof a === 'string' || typeof b === 'string') return;
      const md = renderComparison(a, b);
      process.stdout.write(md.endsWith('\n') ? md : md + '\n');
      if (args.out) {
        const html = /\.html?$/i.test(args.out);
        writeFileSync(args.out, html ? renderComparisonHtml(a, b) : md);
        log(`wrote ${args.out} (${html ? 'HTML' : 'Markdown'})`);
      }
    },
  );
}
