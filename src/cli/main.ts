/**
 * rtcap's command line: parses arguments and calls the library (docs/ARCHITECTURE.md "Code rules": thin CLI).
 * Exit codes: 0 done, 2 usage or profile error, 3 run aborted, 99 a threshold or quota
 * failed, 130 interrupted.
 */
import yargs, { type Argv } from 'yargs';
import { campaignCommand } from './campaign.js';
import { errorLine } from '../redact/redact.js';
import { redactWrites } from '../redact/terminal.js';
import { capacityCommand } from './capacity.js';
import { planCommand } from './plan.js';
import { compareCommand } from './compare.js';
import { schemaCommand, validateCommand } from './profiles.js';
import { quotasCommand } from './quotas.js';
import { reportCommand } from './report.js';
import { runCommand } from './run.js';
import { mergeCommand } from './merge.js';
import { k8sCommand } from './k8s.js';
import { serveCommand } from './serve.js';
import { sweepCommand } from './sweep.js';

export async function main(argv: string[]): Promise<void> {
  redactWrites(process.stdout);
  redactWrites(process.stderr);
  const commands: Array<(y: Argv) => Argv> = [runCommand, mergeCommand, k8sCommand, sweepCommand, reportCommand, compareCommand, campaignCommand, capacityCommand, planCommand, quotasCommand, (y) => y.command(serveCommand), validateCommand, schemaCommand];
  let cli = yargs(argv)
    .scriptName('rtcap')
    .usage('$0 <command> [options]')
    .strict()
    .demandCommand(1, 'give a command: run, merge, k8s, sweep, campaign, capacity, plan, report, compare, quotas, serve, validate, schema')
    .recommendCommands()
    .help()
    .alias('h', 'help')
    .version()
    .wrap(Math.min(110, process.stdout.columns || 100))
    .fail((msg, err) => {
      if (err) throw err;
      process.stderr.write(`rtcap: ${msg}\nRun \`rtcap --help\` for usage.\n`);
      process.exit(2);
    });
  for (const c of commands) cli = c(cli);
  try {
    await cli.parseAsync();
  } catch (e) {
    // One line naming the cause, never a stack trace (it may quote a URL or a config value).
    process.stderr.write(`rtcap: ${errorLine(e)}\n`);
    process.exitCode = 1;
  }
}
