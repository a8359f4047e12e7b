/**
 * rtcap's command line: parses arguments and calls the library (docs/ARCHITECTURE.md "Code rules":
 * thin CLI). Exit codes: one table for every command, src/util/exit-codes.ts.
 */
import yargs, { type Argv } from 'yargs';
import { EXIT } from '../util/exit-codes.js';
import { UsageError } from './flags.js';
import { errorLine } from '../redact/redact.js';
import { redactWrites } from '../redact/terminal.js';
import { rtcapVersion } from '../util/paths.js';
import { unknownLongOption } from './unknown-option.js';

type Command = (y: Argv) => Argv;

/**
 * Each command's module, loaded only when that command runs: together they load every
 * dependency rtcap has (charts, Kubernetes models, the server, Postgres), which cost a
 * `rtcap run` over a CPU second of start-up it never used. Help and unknown
 * commands load them all, so `rtcap --help` and the suggestions still list every command.
 */
const COMMANDS: Record<string, () => Promise<Command[]>> = {
  run: async () => [(await import('./run.js')).runCommand],
  merge: async () => [(await import('./merge.js')).mergeCommand],
  k8s: async () => [(await import('./k8s.js')).k8sCommand],
  sweep: async () => [(await import('./sweep.js')).sweepCommand],
  report: async () => [(await import('./report.js')).reportCommand],
  compare: async () => [(await import('./compare.js')).compareCommand],
  dashboard: async () => [(await import('./dashboard.js')).dashboardCommand],
  campaign: async () => [(await import('./campaign.js')).campaignCommand],
  capacity: async () => [(await import('./capacity.js')).capacityCommand],
  plan: async () => [(await import('./plan.js')).planCommand],
  quotas: async () => [(await import('./quotas.js')).quotasCommand],
  serve: async () => {
    const { serveCommand } = await import('./serve.js');
    return [(y) => y.command(serveCommand)];
  },
  init: async () => [(await import('./init.js')).initCommand],
  validate: async () => [(await import('./profiles.js')).validateCommand],
  schema: async () => [(await import('./profiles.js')).schemaCommand],
  clean: async () => [(await import('./clean.js')).cleanCommand],
};

/**
 * The unknown long option among `argv`, from the options yargs knows for the command it parsed:
 * the third argument of its fail handler is its usage object (typed as the parser), whose
 * descriptions name every declared option.
 */
function unknownIn(argv: readonly string[], usage: unknown): string | null {
  const described = (usage as { getDescriptions?: () => Record<string, unknown> }).getDescriptions;
  if (typeof described !== 'function') return null;
  return unknownLongOption(argv, Object.keys(described.call(usage)));
}

/**
 * The commands to register: only the one named first on the command line, none for
 * `rtcap --version` (yargs prints it before any command; loading them all cost it a second), or
 * all of them.
 */
export async function commandsFor(argv: string[]): Promise<Command[]> {
  const name = argv[0] ?? '';
  if (Object.hasOwn(COMMANDS, name)) return COMMANDS[name]();
  if (argv.length === 1 && name === '--version') return [];
  return (await Promise.all(Object.values(COMMANDS).map((load) => load()))).flat();
}

/**
 * Whether the command line asks for help. yargs renders and caches the help text before it
 * runs any command, in case the command shows it; rtcap's commands never do (a usage error
 * prints one line, see .fail below), so the text is only read after --help. Wrapping it to
 * the terminal is most of that rendering (≈ 40 ms of every run's CPU): it is
 * wrapped only when help was asked for. Unwrapped, the text is the same, on longer lines.
 */
export function helpAsked(argv: readonly string[]): boolean {
  return argv.some((a) => a === '--help' || /^-[A-Za-z]*h[A-Za-z]*$/.test(a));
}

export async function main(argv: string[]): Promise<void> {
  redactWrites(process.stdout);
  redactWrites(process.stderr);
  const commands = await commandsFor(argv);
  let cli = yargs(argv)
    .scriptName('rtcap')
    .usage('$0 <command> [options]')
    .strict()
    .demandCommand(
      1,
      'give a command: run, merge, k8s, sweep, campaign, capacity, plan, report, compare, dashboard, quotas, serve, init, validate, schema, clean',
    )
    .recommendCommands()
    .help()
    .alias('h', 'help')
    .version(rtcapVersion())
    .wrap(helpAsked(argv) ? Math.min(110, process.stdout.columns || 100) : null)
    .fail((msg, err, usage) => {
      // yargs' own complaints (no err), a flag's rule (coerce: a YError) and a command's
      // check (UsageError) are usage errors; anything else was thrown by a command.
      if (err && !(err instanceof UsageError) && err.name !== 'YError') throw err;
      // An unknown option that took the next argument as its value is the cause of a missing one.
      const unknown =
        !err && msg?.startsWith('Not enough non-option arguments') ? unknownIn(argv, usage) : null;
      if (unknown) throw new UsageError(`Unknown argument: ${unknown} (rtcap --help for usage)`);
      // A flag's own rule says what it accepts; yargs' complaints point at the help.
      throw new UsageError(err ? (msg ?? err.message) : `${msg} (rtcap --help for usage)`);
    });
  for (const c of commands) cli = c(cli);
  try {
    await cli.parseAsync();
  } catch (e) {
    // One line naming the cause, never a stack trace (it may quote a URL or a config value).
    process.stderr.write(`rtcap: ${errorLine(e)}\n`);
    // An error that knows its exit code (a run directory locked by another run: usage, 2) keeps it.
    const code = (e as { exitCode?: unknown } | null)?.exitCode;
    process.exitCode =
      e instanceof UsageError ? EXIT.usage : typeof code === 'number' ? code : EXIT.failed;
  }
}
