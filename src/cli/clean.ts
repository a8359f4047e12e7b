/**
 * `rtcap clean`: removes what rtcap keeps under the temp directory — its caches (the Postgres
 * template, staged Postgres binaries) and every leftover of a run that is gone (a run killed
 * with SIGKILL: its private directory, its Postgres data) — and keeps what a live run uses.
 * — and an emulated link's network namespace left by a run that is gone (src/link/netem).
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
    (c) => c,
    async () => {
      const dir = os.tmpdir();
      const { removed, kept } = await cleanTemp(dir);
      for (const e of removed) process.stdout.write(`removed ${e.path} (${e.why})\n`);
      // Emulated-link namespaces (src/link/netem) whose coordinator is gone.
      for (const ns of removeDeadLinkNamespaces())
        process.stdout.write(`removed network namespace ${ns} (its process is gone)\n`);
      for (const e of kept) process.stdout.write(`kept ${e.path} (${e.why})\n`);
      process.stderr.write(
        `rtcap clean: ${removed.length} removed, ${kept.length} in use kept, under ${dir}\n`,
      );
    },
  );
}
