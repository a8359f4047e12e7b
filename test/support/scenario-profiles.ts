/**
 * Profiles the scenario tests share: a scenario's plan tests (test/scenarios) and its figures'
 * tests (test/figures/extra-*) build their steps from the same ones.
 */
import { profileFrom } from './profiles.js';

export function joinRateProfile(
  extra: Record<string, unknown> = {},
  steps: Record<string, unknown>[] = [
    { connections: 50, join_rate: 5, duration: '2s' },
    { connections: 200, join_rate: 20, duration: '2s' },
  ],
) {
  return profileFrom({
    name: 'j',
    scenario: 'join-rate',
    private: { topic_prefix: 'slow-' },
    load: { steps },
    ...extra,
  });
}

export function broadcastPrivateProfile(
  steps: Record<string, unknown>[],
  extra: Record<string, unknown> = {},
) {
  return profileFrom({
    name: 'p',
    scenario: 'broadcast-private',
    load: { join_rate: 100, steps },
    ...extra,
  });
}

export const writeOnlyProfile = profileFrom({
  name: 'w',
  scenario: 'write-only',
  load: {
    ack: true,
    steps: [
      { connections: 4, send_rate: 10, duration: '3s' },
      { connections: 6, send_rate: 100, duration: '3s' },
    ],
  },
});

export const mixedBase = {
  connections: 12,
  members: 4,
  room_send_rate: 2,
  update_share: 0.5,
  insert_rate: 2,
  duration: 2,
};
export const mixedProfile = (steps: Record<string, unknown>[]) =>
  profileFrom({ name: 'mixed-test', scenario: 'mixed', load: { steps } });
