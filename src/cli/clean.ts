/**
 * `rtcap clean`: removes what rtcap keeps under the temp directory — its caches (the Postgres
 * template, staged Postgres binaries) and every leftover of a run that is gone (a run killed
 * with SIGKILL: its private directory, its Postgres data), and an emulated link's network
 * namespace left by a run that is gone (src/link/netem) — and keeps what a live run uses and
 * any directory with rtcap's name that is not provably rtcap's (a user's folder named
 * `rtcap-pg-…`). `--dry-run` says what it would remove and removes nothing.
 * The judgement is src/builtin/pg-leftovers.ts's, the same a run's own clean-up uses.
 */
import os from 'node:os';
import type { Argv } from 'yargs';
import { removeDeadLinkNamespaces } from '../link/netem.js';
import { cleanTemp } from '../builtin/pg-leftovers.js';

export function cleanCommand(y: Argv): Argv {
  return y.command(
    'clean',
    "remove rtcap's caches and the leftovers of dead runs under the temp directory ($TMPDIR)",
    (c) =>
      c.option('dry-run', {
        type: 'boolean',
        default: false,
        describe: 'list what would be removed and what is kept; remove nothing',
      }),
    async (argv) => {
      const dryRun = argv['dry-run'] === true;
      const dir = os.tmpdir();
      const { removed, kept } = await cleanTemp(dir, { dryRun });
      const verb = dryRun ? 'would remove' : 'removed';
      for (const e of removed) process.stdout.write(`${verb} ${e.path} (${e.why})\n`);
      // Emulated-link namespaces (src/link/netem) whose coordinator is gone.
      for (const ns of removeDeadLinkNamespaces(dryRun))
        process.stdout.write(`${verb} network namespace ${ns} (its process is gone)\n`);
      const inUse = kept.filter((e) => !e.foreign);
      const foreign = kept.filter((e) => e.foreign);
      for (const e of inUse) process.stdout.write(`kept ${e.path} (${e.why})\n`);
      for (const e of foreign) process.stdout.write(`kept ${e.path}: ${e.why}\n`);
      const notOurs = foreign.length ? `, ${foreign.length} not rtcap's kept` : '';
      const head = dryRun
        ? `rtcap clean --dry-run: ${removed.length} would be removed`
        : `rtcap clean: ${removed.length} removed`;
      const tail = dryRun ? `, under ${dir}; nothing removed` : `, under ${dir}`;
      process.stderr.write(`${head}, ${inUse.length} in use kept${notOurs}${tail}\n`);
    },
  );
}
