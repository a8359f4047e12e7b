/**
 * A process's own monitors cost timer wakeups whatever it carries: a 500,000-connection run
 * starts 34 generator and 34 server processes, each woken by them while idle. Each case counts
 * how often an otherwise idle process's main thread wakes with one kind of monitor set up. Load
 * on the machine only delays timers (fewer wakeups), so the upper bounds hold under load; on a
 * quiet machine the monitors these replaced woke a process ~98 times a second and fail both.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const FIXTURE = fileURLToPath(new URL('../support/loop-wakeups.ts', import.meta.url));

async function wakeupsPerS(kind: string): Promise<number> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', FIXTURE, kind, '2000'],
    { timeout: 30_000 },
  );
  return (JSON.parse(stdout) as { wakeupsPerS: number }).wakeupsPerS;
}

describe.runIf(process.platform === 'linux')('timer wakeups of an idle process', () => {
  it('the reference: two 10 ms delay monitors wake it tens of times a second', async () => {
    // What the count is measured against: it sees timer wakeups at all.
    expect(await wakeupsPerS('two-10ms')).toBeGreaterThan(20);
  }, 60_000);

  it("the generator's health monitors (20 ms) wake it at most 60 times a second", async () => {
    const n = await wakeupsPerS('health');
    expect(n).toBeGreaterThan(5);
    expect(n).toBeLessThanOrEqual(60);
  }, 60_000);

  it("the built-in server's default Node metrics (lag every 100 ms) wake it at most 15 times a second", async () => {
    const n = await wakeupsPerS('server-metrics');
    expect(n).toBeGreaterThan(2);
    expect(n).toBeLessThanOrEqual(15);
  }, 60_000);

  it("prom-client's own defaults (10 ms) exceed that bound: the case above can fail", async () => {
    expect(await wakeupsPerS('prom-default')).toBeGreaterThan(15);
  }, 60_000);
});
