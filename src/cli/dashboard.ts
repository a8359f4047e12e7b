/**
 * `rtcap dashboard [DIR]`: serves the dashboard's page over the finished runs, sweeps and
 * campaigns in DIR (default reports/) until Ctrl-C. Reads only.
 */
import { existsSync, statSync } from 'node:fs';
import type { Argv } from 'yargs';
import { EXIT } from '../util/exit-codes.js';
import { checked, port } from './flags.js';

export function dashboardCommand(y: Argv): Argv {
  return y.command(
    'dashboard [dir]',
    'browse finished runs, sweeps and campaigns in a web page: reports, comparisons, capacity tables (reads only)',
    (c) =>
      c
        .positional('dir', {
          type: 'string',
          default: 'reports',
          describe: 'folder of run directories (rtcap run/sweep/campaign output)',
        })
        .option(
          'port',
          checked('port', port, {
            describe: 'port to listen on (0: any free port; the address is printed)',
          }),
        )
        .option('host', {
          type: 'string',
          default: '127.0.0.1',
          describe:
            'address to listen on; any other than loopback puts a random token in the address',
        }),
    async (args) => {
      const dir = args.dir as string;
      if (!existsSync(dir) || !statSync(dir).isDirectory()) {
        process.stderr.write(`rtcap dashboard: ${dir}: no such directory\n`);
        process.exitCode = EXIT.usage;
        return;
      }
      const { serveBrowse } = await import('../dashboard/browse.js');
      let server;
      try {
        server = await serveBrowse(dir, { port: args.port ?? 0, host: args.host as string });
      } catch (e) {
        process.stderr.write(`${(e as Error).message}\n`);
        process.exitCode = EXIT.usage;
        return;
      }
      // Ended by a signal: the shell's code for it (130 Ctrl-C, 143 SIGTERM), as the exit table.
      // Listened for before the line that invites it is printed.
      const sig = new Promise<'SIGINT' | 'SIGTERM'>((resolve) => {
        process.once('SIGINT', () => resolve('SIGINT'));
        process.once('SIGTERM', () => resolve('SIGTERM'));
      });
      process.stderr.write(`dashboard: ${server.url} (runs in ${dir}; Ctrl-C to stop)\n`);
      const received = await sig;
      await server.close();
      process.exitCode = received === 'SIGINT' ? EXIT.interrupted : EXIT.terminated;
    },
  );
}
