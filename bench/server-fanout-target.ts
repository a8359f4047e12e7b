/**
 * The built-in server as a bench target: one process, no database, idle timeout off (the
 * byte-counting receivers of bench/server-fanout.ts never send heartbeats).
 * Run: npx tsx bench/server-fanout-target.ts  → prints {"port":N,"pid":P} on stdout.
 */
import { startServer } from '../src/server/server.js';

const s = await startServer({ port: 0, database: false, timings: { idleTimeoutMs: 3_600_000 } });
process.stdout.write(`${JSON.stringify({ port: s.port, pid: process.pid })}\n`);
process.on('SIGTERM', () => void s.close().then(() => process.exit(0)));
