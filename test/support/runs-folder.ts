/**
 * A folder of finished runs built from test/fixtures, as `rtcap dashboard DIR` finds them:
 * run-a (its report written beside its timeseries), run-b (result.json only) and a campaign of
 * two seed-002 fixture runs with campaign.json and its capacity table.
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeArtifacts, type ResultFile } from '../../src/artefacts/render.js';
import type { CampaignState } from '../../src/campaign/state.js';
import { writeCampaignCapacity } from '../../src/campaign/campaign.js';
import { loadRun } from '../fixtures/index.js';
import { tempDir } from './temp-dir.js';

export const CAMPAIGN_ENTRIES = ['seed-002-s1.1-connections', 'seed-002-s1.2-deliveries'];

export function runsFolder(): string {
  const root = tempDir('rtcap-runs-');
  mkdirSync(join(root, 'run-a'));
  copyFileSync(
    new URL('../fixtures/run-a.timeseries.ndjson', import.meta.url),
    join(root, 'run-a', 'timeseries.ndjson'),
  );
  const problems = writeArtifacts(loadRun('run-a') as ResultFile, join(root, 'run-a'));
  if (problems.length) throw new Error(problems.join('; '));
  mkdirSync(join(root, 'run-b'));
  writeFileSync(join(root, 'run-b', 'result.json'), JSON.stringify(loadRun('run-b')));
  const c = join(root, 'campaign');
  const state: CampaignState = {
    schema: 'rtcap.campaign/v1',
    name: 'seed-002',
    campaign_path: '/x/campaign.yaml',
    started_at: '2026-11-30T10:00:00.000Z',
    finished_at: '2026-11-30T12:00:00.000Z',
    status: 'completed',
    resumed_at: [],
    entries: CAMPAIGN_ENTRIES.map((n, i) => ({
      index: i + 1,
      name: n,
      profile: `/x/${n}.yaml`,
      sweep: false,
      dir: `0${i + 1}-${n}`,
      status: 'completed',
      exit_code: 0,
      wall_s: 600,
      attempts: 1,
    })),
  };
  for (const e of state.entries) {
    mkdirSync(join(c, e.dir), { recursive: true });
    writeFileSync(join(c, e.dir, 'result.json'), JSON.stringify(loadRun(e.name)));
  }
  writeFileSync(join(c, 'campaign.json'), JSON.stringify(state));
  const unlike = writeCampaignCapacity(c, state).unlike;
  if (unlike.length) throw new Error(unlike.join('; '));
  return root;
}
