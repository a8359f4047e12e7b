/**
 * What this host would refuse of a profile that is valid as a file: an emulated link it cannot
 * give (generator.link.loss without netem), a generator it cannot hold (memory, processes,
 * source ports, open files) and a load no run can offer (load/load-bounds) — the very checks
 * `rtcap run` makes before it starts, for `rtcap validate` to report as warnings. A host fact is
 * not a problem of the file: the same file runs on a machine that has netem or the room
 * (docs/PROFILE.md).
 */
import { availableParallelism } from 'node:os';
import { isLoopbackHost } from '../client/url.js';
import { loadBeyondBounds } from '../load/load-bounds.js';
import { linkRefusal } from '../link/link-setup.js';
import type { Profile } from '../profile/schema.js';
import { getScenario } from '../scenarios/index.js';
import { hostCannotHoldWhy } from '../run/generator-setup.js';

/** One line for each refusal `rtcap run` would make of this profile on this host. */
export function hostRefusals(profile: Profile): string[] {
  const refusals: string[] = [];
  const link = linkRefusal(profile.generator.link);
  if (link) refusals.push(link);
  const scenario = getScenario(profile.scenario);
  const connections = profile.load.steps.map((_, i) => scenario.plan(profile, i).connections);
  const url = profile.target.url;
  const cannotHold = hostCannotHoldWhy({
    maxConnections: Math.max(0, ...connections),
    requestedWorkers: profile.load.workers,
    requestedSourceAddresses: profile.load.source_addresses,
    loopbackTarget: !url || isLoopbackHost(url),
    link: profile.generator.link !== undefined,
    builtinServer: !url,
  });
  if (cannotHold) refusals.push(cannotHold);
  const beyond = loadBeyondBounds(
    profile.load.steps.map((_, i) => scenario.plan(profile, i)),
    availableParallelism(),
  );
  if (beyond) refusals.push(beyond);
  return refusals;
}
