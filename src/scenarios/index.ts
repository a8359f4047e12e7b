import type { ScenarioName } from '../profile/schema/scenarios.js';
import { broadcastPrivate } from './broadcast-private.js';
import { broadcastPublic } from './broadcast-public.js';
import { joinRate } from './join-rate.js';
import { mixed } from './mixed.js';
import { postgresChanges } from './postgres-changes.js';
import { payloadSize } from './payload-size.js';
import { presence } from './presence.js';
import type { Scenario } from './types.js';
import { writeOnly } from './write-only.js';

const registry = new Map<string, Scenario>([[broadcastPublic.name, broadcastPublic]]);
for (const s of [presence, postgresChanges, mixed]) registry.set(s.name, s);
for (const s of [broadcastPrivate, payloadSize, joinRate, writeOnly]) registry.set(s.name, s);

export function getScenario(name: ScenarioName | string): Scenario {
  const s = registry.get(name);
  if (!s) {
    throw new Error(
      `scenario "${name}" is not implemented yet (available: ${[...registry.keys()].join(', ')})`,
    );
  }
  return s;
}

export function listScenarios(): Scenario[] {
  return [...registry.values()];
}
