/** The scenario → section registry. A scenario not listed gets the common tables only. */
import { broadcastPrivate } from './broadcast-private.js';
import { broadcastPublic } from './broadcast-public.js';
import { joinRate } from './join-rate.js';
import { mixed } from './mixed.js';
import { payloadSize } from './payload-size.js';
import { postgresChanges } from './postgres-changes.js';
import { presence } from './presence.js';
import type { ScenarioSection } from './types.js';
import { writeOnly } from './write-only.js';

export type { ScenarioSection, SectionContext } from './types.js';

const SECTIONS = new Map<string, ScenarioSection>();

export function registerSection(section: ScenarioSection): void {
  SECTIONS.set(section.scenario, section);
}

export function sectionFor(scenario: string): ScenarioSection | undefined {
  return SECTIONS.get(scenario);
}

export function registeredScenarios(): string[] {
  return [...SECTIONS.keys()];
}

for (const s of [
  broadcastPublic,
  broadcastPrivate,
  payloadSize,
  joinRate,
  presence,
  postgresChanges,
  writeOnly,
  mixed,
])
  registerSection(s);
