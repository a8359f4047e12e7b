/**
 * rtcap against a real Phoenix channels app started by hand (test/real/servers.test.ts runs this
 * when RTCAP_PHOENIX_URL is set): `rtcap init URL --kind phoenix --topic T`, then `rtcap run` of
 * the profile it wrote, its steps shortened to a few seconds. Every connection joins, every
 * message reaches every other member, the first step is stable and none is broken; the server's
 * CPU comes from the process listening on the URL's port. The app must relay the `broadcast`
 * event to the topic's members (the reference app relays every event to all members, sender
 * included: the sender's own copies are counted apart as unexpected, never as delivered).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { logCli, readResult, stepLine, type PhoenixEnv } from '../support/real-servers.js';
import { rtcapCli } from '../support/rtcap-process.js';
import { tempDir } from '../support/temp-dir.js';

const MIN = 60_000;

export function phoenixSuite(env: PhoenixEnv): void {
  describe(`Phoenix app at ${env.url} (topic ${env.topic})`, () => {
    let dir = '';
    beforeAll(() => {
      dir = tempDir('rtcap-real-phoenix-');
    });

    it(
      'rtcap init writes a profile that runs: all joined, all delivered, none broken',
      async () => {
        const profile = join(dir, 'init.yaml');
        const initArgs = ['init', env.url, '--kind', 'phoenix', '--topic', env.topic];
        const init = await rtcapCli([...initArgs, '--out', profile], { timeoutMs: 2 * MIN });
        logCli('rtcap init (as written, then each step shortened)', initArgs, init);
        expect(init.code).toBe(0);
        const steps = (parse(readFileSync(profile, 'utf8')) as { load: { steps: unknown[] } }).load
          .steps.length;
        const shorten = Array.from({ length: steps }, (_, i) => [
          '--set',
          `load.steps.${i}.duration=5s`,
        ]).flat();
        const out = join(dir, 'init-run');
        const args = ['run', profile, '--out', out, '--no-progress', ...shorten];
        const run = await rtcapCli(args, { timeoutMs: 6 * MIN });
        logCli('rtcap run of the profile init wrote', args, run);
        const result = readResult(out);
        for (const s of result.steps) console.log(stepLine(s));

        expect(run.code).toBe(0);
        expect(result.status).toBe('completed');
        expect(result.steps[0].verdict).toBe('stable');
        for (const s of result.steps) {
          expect(s.verdict, `step ${s.index}`).not.toBe('broken');
          expect(s.connections.joined, `step ${s.index} joined`).toBe(s.connections.target);
          expect(s.messages.expected, `step ${s.index} expected`).toBeGreaterThan(0);
          expect(s.messages.received, `step ${s.index} received`).toBe(s.messages.expected);
          expect(s.server.cpu_pct, `step ${s.index} server CPU`).not.toBeNull();
        }
      },
      8 * MIN,
    );
  });
}
