/**
 * Loads no run can offer are refused before anything starts, each in one line with the number
 * asked and its bound; `rtcap validate` warns the same line. The seed and quick profiles pass.
 */
import { existsSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { loadProfile } from '../../src/profile/load.js';
import { getScenario } from '../../src/scenarios/index.js';
import { CPU_US_PER_DELIVERY, loadBeyondBounds } from '../../src/load/load-bounds.js';
import { hostRefusals } from '../../src/validate/host-facts.js';
import { cliInProcess } from '../support/cli-in-process.js';
import { tempDir } from '../support/temp-dir.js';

const ROOT = resolve(import.meta.dirname, '../..');
const QUICKSTART = join(ROOT, 'profiles/quickstart.yaml');
const work = tempDir('rtcap-load-bounds-');
afterAll(() => rmSync(work, { recursive: true, force: true }));
afterEach(() => {
  process.exitCode = 0;
});

async function beyond(cores: number, ...sets: string[]) {
  const profile = (await loadProfile(QUICKSTART, { sets })).profile;
  const scenario = getScenario(profile.scenario);
  return loadBeyondBounds(
    profile.load.steps.map((_, i) => scenario.plan(profile, i)),
    cores,
  );
}

const FRAME =
  'step 1: load.payload_bytes 1,000,000,000,000 is over the 5,000,000-byte WebSocket frame limit (docs/PROTOCOL.md): one message is one frame';
const SENDS =
  "step 1: 1,000,000,000 messages/s is over the 1,000,000/s the generator's schedule can pace (sends due under 1 µs apart, below its clock's resolution)";
const JOINS =
  "step 1: join_rate 1,000,000,000/s is over the 1,000,000/s the generator's schedule can pace (joins due under 1 µs apart, below its clock's resolution)";

describe('loadBeyondBounds', () => {
  it('quickstart as it stands: none, on one core or two', async () => {
    expect(await beyond(1)).toBeNull();
    expect(await beyond(2)).toBeNull();
  });

  it('a payload over one frame: the number and the frame limit; 5,000,000 bytes itself passes', async () => {
    expect(await beyond(2, 'load.payload_bytes=1e12')).toBe(FRAME);
    expect(await beyond(2, 'load.payload_bytes=5000000')).toBeNull();
  });

  it('sends and joins closer than the schedule can pace', async () => {
    expect(await beyond(1e6, 'load.steps.0.send_rate=1e9')).toBe(SENDS);
    expect(await beyond(2, 'load.join_rate=1e9')).toBe(JOINS);
    expect(await beyond(2, 'load.join_rate=1000000')).toBeNull();
  });

  it("deliveries beyond what this host's generator cores can read", async () => {
    // 500 connections, one sender: 499 receivers × 1,000 messages/s.
    const most = Math.round(1e6 / CPU_US_PER_DELIVERY).toLocaleString('en-US');
    expect(await beyond(1, 'load.steps.0.send_rate=1000')).toBe(
      `step 1: 499,000 deliveries/s is over the ${most}/s this machine's 1 generator core can read (11.26 µs of CPU per delivery, docs/PERFORMANCE.md)`,
    );
    expect(await beyond(6, 'load.steps.0.send_rate=1000')).toBeNull();
  });
});

describe('rtcap run and rtcap validate', () => {
  it.each([
    ['load.payload_bytes=1e12', FRAME],
    ['load.steps.0.send_rate=1e9', SENDS],
    ['load.join_rate=1e9', JOINS],
  ])(
    '--set %s: run refuses it (exit 2, one line, nothing written); validate warns the same',
    async (set, line) => {
      const out = join(work, set);
      const run = await cliInProcess('run', QUICKSTART, '--set', set, '--out', out);
      expect(run.code).toBe(2);
      expect(run.err.trim().split('\n')).toHaveLength(1);
      expect(run.err).toContain(line);
      expect(existsSync(out)).toBe(false);
      const profile = (await loadProfile(QUICKSTART, { sets: [set] })).profile;
      expect(hostRefusals(profile)).toContain(line);
    },
  );
});
