/**
 * The test server (phoenix-test-server) in a process of its own: started by
 * test-server-process with its options as JSON in argv, it reports its URL over IPC, answers
 * 'stats' with its counts and exits when told to close or when its parent goes away.
 */
import { startTestServer, type TestServerOptions } from './phoenix-test-server.js';

const opts = JSON.parse(process.argv[2] ?? '{}') as TestServerOptions;
const server = await startTestServer(opts);
const send = (m: unknown) => process.send?.(m);
process.on('message', (m: { type?: string }) => {
  if (m?.type === 'stats') send({ type: 'stats', stats: server.stats });
  if (m?.type === 'close') void server.close().then(() => process.exit(0));
});
process.on('disconnect', () => void server.close().then(() => process.exit(0)));
send({ type: 'ready', url: server.url, port: server.port });
