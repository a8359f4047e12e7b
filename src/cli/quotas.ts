/**
 * `rtcap quotas PROFILE`: checks each tenant quota the profile declares (its `quotas:`
 * section) below, above and back below the declared value (src/quotas/orchestrate.ts). Without
 * a URL the built-in server is started with the declared quotas. Writes quotas.json and
 * quotas.md; exit 0 when every quota is enforced as declared, 99 when one is not, 3 when the
 * checks could not run or a quota could not be shown either way (inconclusive), 2 for a usage or
 * profile error.
 */
import type { ArgumentsCamelCase, Argv } from 'yargs';
import type { QuotasReport } from '../result/quotas.js';
import { renderTextTable } from '../report/table.js';
import { EXIT } from '../util/exit-codes.js';
import { checked, usableCpus, outDir, wsUrl } from './flags.js';
import { quotasTable } from '../report/quotas.js';
import { runQuotas } from '../quotas/orchestrate.js';
import { QuotaAbort } from '../quotas/pool.js';
import { interruptible } from './interrupt.js';
import { loadProfileOrExit, log } from './shared.js';
import { closeDashboard, dashboardOptions, dashboardOrExit } from './dashboard-flag.js';

/** The flags of `rtcap quotas`: profile, target, output, overrides, the server's CPUs. */
function quotasOptions(c: Argv) {
  return dashboardOptions(c)
    .positional('profile', {
      type: 'string',
      demandOption: true,
      describe: 'profile YAML file with a quotas: section',
    })
    .option(
      'url',
      checked('url', wsUrl, { describe: 'WebSocket URL of the target (overrides target.url)' }),
    )
    .option(
      'out',
      checked('out', outDir, {
        describe: 'directory for quotas.json and quotas.md (default reports/<run-id>-quotas/)',
      }),
    )
    .option('set', {
      type: 'string',
      array: true,
      default: [] as string[],
      describe: 'override a profile field: --set quotas.max_joins_per_second=100',
    })
    .option(
      'server-cpus',
      checked('server-cpus', usableCpus(), {
        describe: 'pin the built-in server to these CPUs (taskset list, e.g. 1)',
      }),
    );
}

type QuotasArgs = ArgumentsCamelCase<
  ReturnType<typeof quotasOptions> extends Argv<infer T> ? T : never
>;

/** The table of the checks and one line of their outcome, on stderr. */
function reportQuotas(report: QuotasReport, dir: string): void {
  if (report.rows.length)
    process.stderr.write('\n' + renderTextTable(quotasTable(report), 200) + '\n\n');
  if (report.abort_reason) log(`quotas: could not finish: ${report.abort_reason}`);
  const failed = report.rows.filter((r) => r.result === 'fail').map((r) => r.quota);
  const unsure = report.rows.filter((r) => r.result === 'inconclusive').map((r) => r.quota);
  log(
    `quotas: ${report.result === 'fail' ? 'FAIL' : report.result === 'pass' ? 'PASS' : 'INCONCLUSIVE'} — ${report.rows.filter((r) => r.pass).length} of ${report.rows.length} as declared` +
      (failed.length ? `; failed: ${failed.join(', ')}` : '') +
      (unsure.length ? `; inconclusive (the load was not offered): ${unsure.join(', ')}` : ''),
  );
  log(`wrote ${dir}/ (quotas.json, quotas.md)`);
}

/** 0 every quota as declared, 99 one not enforced, 130 interrupted, 3 could not tell. */
function quotasExitCode(report: QuotasReport, signal: AbortSignal): number {
  return report.pass
    ? EXIT.ok
    : report.result === 'fail'
      ? EXIT.thresholds
      : signal.aborted
        ? EXIT.interrupted
        : EXIT.aborted;
}

async function quotasHandler(args: QuotasArgs): Promise<void> {
  const loaded = await loadProfileOrExit(args.profile as string, args.set as string[]);
  if (!loaded) return;
  const dash = await dashboardOrExit(args, 'quotas');
  if (dash === null) return;
  const { signal, dispose, exitCode } = interruptible();
  try {
    const { report, dir } = await runQuotas({
      profile: loaded.profile,
      profilePath: loaded.path,
      url: args.url,
      outDir: args.out,
      serverCpus: args['server-cpus'] ?? null,
      log: dash
        ? (line) => {
            log(line);
            dash.log(line);
          }
        : log,
      signal,
    });
    reportQuotas(report, dir);
    process.exitCode = exitCode(quotasExitCode(report, signal));
    const table = quotasTable(report);
    dash?.finished({
      status: report.result,
      exitCode: process.exitCode,
      abortReason: report.abort_reason,
      dir,
      table: { title: table.title, columns: table.columns, rows: table.rows },
    });
  } catch (e) {
    if (!(e instanceof QuotaAbort)) throw e;
    process.stderr.write(`${loaded.path}: ${e.message}\n`);
    process.exitCode = EXIT.usage;
  } finally {
    dispose();
    await closeDashboard(dash, args);
  }
}

export function quotasCommand(y: Argv): Argv {
  return y.command(
    'quotas <profile>',
    'check the tenant quotas a profile declares: below, above and back below each',
    quotasOptions,
    quotasHandler,
  );
}
