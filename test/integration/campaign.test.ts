/**
 * `rtcap campaign` end to end against the built-in server in this process: two small profiles
 * (public broadcast over two connection counts and two rates; write-only over two send rates)
 * into one campaign directory, the whole table built from them; then a crash simulated halfway
 * and the campaign resumed: the completed entry is kept as it was, the other runs again, and the
 * table has the same rows.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CapacityFile } from '../../src/capacity/types.js';
import { runArtifactHooks, writeArtifacts, type ResultFile } from '../../src/artefacts/render.js';
import { campaignSchema } from '../../src/profile/campaign.js';
import { loadYamlFile } from '../../src/profile/yaml-file.js';
import { loadEntries, runCampaign } from '../../src/campaign/campaign.js';
import {
  planCampaign,
  readCampaignState,
  resumeState,
  writeCampaignState,
  type CampaignState,
  type EntryState,
} from '../../src/campaign/state.js';
import type { RunOutcome } from '../../src/run/runner.js';
import type { RunningServer } from '../../src/server/server.js';
import { serve } from '../server/helpers.js';
import { TEST_GENERATOR_LIMITS } from '../support/profiles.js';
import { tempDir } from '../support/temp-dir.js';

let server: RunningServer;
beforeAll(async () => {
  server = await serve({});
});
afterAll(async () => {
  await server.close();
});

const quiet = () => undefined;
const finish = (o: RunOutcome) => {
  writeArtifacts(o.result as ResultFile, o.dir);
  return o.exitCode;
};

function writeCampaign(root: string, thresholds: unknown[] = []): string {
  const target = {
    url: server.url,
    vsn: '2.0.0',
    auth: { jwt_secret: 'super-secret-jwt-token-with-at-least-32-characters-long' },
  };
  const common = { target, generator: TEST_GENERATOR_LIMITS, slo: { p95_ms: 5000 } };
  writeFileSync(
    join(root, 'public.yaml'),
    stringify({
      ...common,
      name: 'camp-public',
      scenario: 'broadcast-public',
      thresholds,
      load: {
        join_rate: 1000,
        drain: '1s',
        settle: '200ms',
        steps: [
          { connections: 20, send_rate: 5, duration: '1s' },
          { connections: 40, send_rate: 2, duration: '1s' },
        ],
      },
    }),
  );
  writeFileSync(
    join(root, 'write-only.yaml'),
    stringify({
      ...common,
      name: 'camp-write',
      scenario: 'write-only',
      load: {
        join_rate: 1000,
        drain: '1s',
        settle: '200ms',
        self: false,
        ack: true,
        steps: [
          { connections: 5, send_rate: 50, duration: '1s' },
          { connections: 5, send_rate: 100, duration: '1s' },
        ],
      },
    }),
  );
  const path = join(root, 'campaign.yaml');
  writeFileSync(
    path,
    stringify({
      name: 'tiny',
      entries: [{ profile: 'public.yaml' }, { profile: 'write-only.yaml', name: 'writes' }],
    }),
  );
  return path;
}

/** Each entryFinished call: the entry's status, exit code and campaign.json's status then. */
type Seen = Array<[string, number | null, string]>;

async function go(
  path: string,
  dir: string,
  state: CampaignState,
  signal?: AbortSignal,
  seen: Seen = [],
) {
  const campaign = loadYamlFile(path, campaignSchema);
  const loaded = await loadEntries(campaign, state);
  const entryFinished = (e: EntryState) => {
    const saved = readCampaignState(dir) as CampaignState;
    seen.push([e.status, e.exit_code, saved.entries[e.index - 1].status]);
  };
  return runCampaign(
    {
      campaign,
      state,
      dir,
      run: { log: quiet, signal, ...runArtifactHooks() },
      finish,
      entryFinished,
    },
    loaded,
  );
}

const capacityOf = (dir: string) =>
  JSON.parse(readFileSync(join(dir, 'capacity.json'), 'utf8')) as CapacityFile;
const runIdOf = (dir: string) =>
  (JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as ResultFile).run_id;

describe('rtcap campaign', () => {
  it('runs every entry into one directory, builds the 12 + 4 row table, and resumes after a crash with the same rows', async () => {
    const root = tempDir('rtcap-campaign-');
    const path = writeCampaign(root);
    const dir = join(root, 'out');
    const campaign = loadYamlFile(path, campaignSchema);

    const seen: Seen = [];
    const first = await go(path, dir, planCampaign(campaign, path, new Date()), undefined, seen);
    expect(first.exitCode).toBe(0);
    expect(seen).toEqual([
      ['completed', 0, 'completed'],
      ['completed', 0, 'completed'],
    ]);
    expect(first.state.entries.map((e) => [e.dir, e.status, e.attempts])).toEqual([
      ['01-public', 'completed', 1],
      ['02-writes', 'completed', 1],
    ]);
    const table = capacityOf(dir);
    expect(table.rows).toHaveLength(12);
    expect(table.config).toHaveLength(4);
    for (const r of table.rows)
      expect(r.value !== null || (r.reason ?? '').length > 0, r.id).toBe(true);
    const measured = table.rows.filter((r) => r.value !== null).map((r) => r.id);
    // Two connection counts, two delivery rates, two send rates — all stable: lower bounds.
    expect(measured).toEqual(['public_connections', 'public_deliveries', 'write_only_sends']);
    expect(table.rows.find((r) => r.id === 'public_connections')).toMatchObject({
      value: 40,
      bound: 'lower',
      display: '≥ 40, no limit reached',
    });
    expect(table.rows.find((r) => r.id === 'write_only_sends')!.evidence!.chart).toBe(
      '02-writes/report.html#charts',
    );
    expect(table.rows.find((r) => r.id === 'join_rate')!.reason).toContain(
      'no join-rate run among the sources',
    );
    expect(readFileSync(join(dir, 'report.html'), 'utf8').match(/<tr data-row=/g)).toHaveLength(12);
    expect(readFileSync(join(dir, 'capacity.md'), 'utf8')).toContain(
      '## Configuration (seed 002 §8)',
    );

    // A crash during entry 2: campaign.json still says running.
    const publicRun = runIdOf(join(dir, '01-public'));
    const crashed = readCampaignState(dir) as CampaignState;
    crashed.entries[1].status = 'running';
    crashed.status = 'running';
    writeCampaignState(dir, crashed);
    const resumed = await go(
      path,
      dir,
      resumeState(crashed, planCampaign(campaign, path, new Date()), new Date()),
    );
    expect(resumed.exitCode).toBe(0);
    expect(resumed.state.entries.map((e) => [e.status, e.attempts])).toEqual([
      ['completed', 1],
      ['completed', 2],
    ]);
    expect(runIdOf(join(dir, '01-public'))).toBe(publicRun);
    const again = capacityOf(dir);
    // The same rows: which have a value, of which kind, for which reason (the rerun entry's
    // measured rate may differ a little).
    const shape = (f: CapacityFile) =>
      f.rows.map((r) => [r.id, r.value !== null, r.bound, r.limiting_factor, r.reason]);
    expect(shape(again)).toEqual(shape(table));
    expect(again.rows[0].display).toBe(table.rows[0].display);
  }, 120_000);

  it('an interrupted campaign stops before the next entry and says so', async () => {
    const root = tempDir('rtcap-campaign-');
    const path = writeCampaign(root);
    const dir = join(root, 'out');
    const ac = new AbortController();
    ac.abort();
    const out = await go(
      path,
      dir,
      planCampaign(loadYamlFile(path, campaignSchema), path, new Date()),
      ac.signal,
    );
    expect(out.exitCode).toBe(130);
    expect(out.state.status).toBe('interrupted');
    expect((readCampaignState(dir) as CampaignState).entries.map((e) => e.status)).toEqual([
      'pending',
      'pending',
    ]);
  });

  it('an abort_on_fail threshold stops its run and the campaign: the entries after it are not run, exit 99 with the reason', async () => {
    const root = tempDir('rtcap-campaign-');
    const path = writeCampaign(root, [{ threshold: 'connections < 30', abort_on_fail: true }]);
    const dir = join(root, 'out');
    const seen: Seen = [];
    const out = await go(
      path,
      dir,
      planCampaign(loadYamlFile(path, campaignSchema), path, new Date()),
      undefined,
      seen,
    );
    expect(out.exitCode).toBe(99);
    // The entry's hook sees it finished, in the state and in campaign.json, never running.
    expect(seen).toEqual([['aborted', 99, 'aborted']]);
    const state = readCampaignState(dir) as CampaignState;
    expect(state.status).toBe('stopped');
    expect(state.stop_reason).toBe(
      'entry public: threshold failed with abort_on_fail: connections < 30: fail — step 2: 40',
    );
    expect(state.entries.map((e) => [e.status, e.exit_code])).toEqual([
      ['aborted', 99],
      ['pending', null],
    ]);
    // The stopped run is readable: both of its steps, its status and reason.
    const r = JSON.parse(
      readFileSync(join(dir, state.entries[0].dir, 'result.json'), 'utf8'),
    ) as ResultFile;
    expect([r.status, r.steps.length]).toEqual(['aborted', 2]);
  });
});
