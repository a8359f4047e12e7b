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
      process.stderr.write(`dashboard: ${server.url} (runs in ${dir}; Ctrl-C to stop)\n`);
      await new Promise<void>((resolve) => {
        const stop = () => resolve();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      await server.close();
    },
  );
}
