/**
 * The server process of bench/server-heartbeat.ts: the built-in server of the source tree given
 * as the first argument (its src/server/server.ts, so the code before a change can run from a
 * copy of main), one process, no database. Prints {"port":N,"pid":P} once listening; then
 * takes bench/support/child-control.ts's commands on stdin (stat, profile-start, profile-stop,
 * exit).
 *
 * Run by bench/server-heartbeat.ts; by hand: npx tsx bench/server-heartbeat-server.ts .
 */
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { childControl, say } from './support/child-control.js';

type ServerModule = typeof import('../src/server/server.js');
type OptionsModule = typeof import('../src/builtin/config.js');

const root = resolve(process.argv[2] ?? '.');
const load = (path: string): Promise<unknown> => import(pathToFileURL(join(root, path)).href);
const { startServer } = (await load('src/server/server.ts')) as ServerModule;
const { DEV_JWT_SECRET } = (await load('src/builtin/config.ts')) as OptionsModule;

const server = await startServer({
  port: 0,
  host: '127.0.0.1',
  database: false,
  jwtSecret: DEV_JWT_SECRET,
});
childControl(
  () => ({}),
  () => server.close(),
);
say({ port: server.port, pid: process.pid });
