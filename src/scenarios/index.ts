import type { ScenarioName } from '../profile/schema.js';
import { broadcastPublic } from './broadcast-public.js';
import type { Scenario } from './types.js';

const registry = new Map<string, Scenario>([[broadcastPublic.name, broadcastPublic]]);

export function getScenario(name: ScenarioName | string): Scenario {
  const s = registry.get(name);
  if (!s) {
    throw new Error(`scenario "${name}" is not implemented yet (available: ${[...registry.keys()].join(', ')})`);
  }
  return s;
}

export function listScenarios(): Scenario[] {
  return [...registry.values()];
}
