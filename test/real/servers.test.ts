/**
 * rtcap against real servers started by hand: Supabase Realtime (RTCAP_REALTIME_URL and what it
 * needs) and a Phoenix channels app (RTCAP_PHOENIX_URL). Each half runs only when its server is
 * named; without either the file prints one line saying what to set and skips. What it checks
 * and how to start the servers: docs/DEVELOPMENT.md "The real-server suite".
 */
import { describe, it } from 'vitest';
import { phoenixEnv, realtimeEnv, skipLine } from '../support/real-servers.js';
import { phoenixSuite } from './phoenix-suite.js';
import { realtimeSuite } from './realtime-suite.js';

const realtime = realtimeEnv();
const phoenix = phoenixEnv();
const skipped = skipLine('test/real/servers.test.ts', realtime, phoenix);
if (skipped) process.stderr.write(skipped);

if (realtime) realtimeSuite(realtime);
if (phoenix) phoenixSuite(phoenix);
if (!realtime && !phoenix) describe.skip('real servers (none named)', () => it.skip('—'));
