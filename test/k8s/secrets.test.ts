import { describe, expect, it } from 'vitest';
import { parseProfile } from '../../src/profile/load.js';
import { SecretPlacementError, splitSecrets, URL_ENV } from '../../src/k8s/secrets.js';

const APIKEY = 'sb-apikey-0123456789abcdef';
const JWT = 'super-secret-jwt-token-with-at-least-32-characters';
const PG_PASSWORD = 'pg-pass-8f3k2';
const profile = [
  'name: p',
  'scenario: broadcast-public',
  '# rooms for the demo',
  'target:',
  '  url: ws://rt.example:4000/socket/websocket',
  `  database_url: postgres://postgres:${PG_PASSWORD}@db:5432/postgres`,
  '  headers: { x-client: bench, Authorization: "Bearer abcdefghijklmnop" }',
  `  auth: { apikey: ${APIKEY}, jwt_secret: ${JWT} }`,
  '  metrics_token: ${MY_METRICS_TOKEN}',
  'load: { steps: [ { connections: 10, send_rate: 1, duration: 1s } ] }',
  '',
].join('\n');

describe('rtcap k8s secrets', () => {
  it('every literal secret leaves the profile for env references; the profile read back with that env is the same profile', () => {
    const s = splitSecrets(profile, 'wss://rt.example/socket/websocket?apikey=' + APIKEY, {
      MY_METRICS_TOKEN: 'm-token',
    });
    for (const literal of [APIKEY, JWT, PG_PASSWORD, 'abcdefghijklmnop'])
      expect(s.profileYaml).not.toContain(literal);
    expect(Object.values(s.secrets)).toEqual(
      expect.arrayContaining([
        APIKEY,
        JWT,
        'Bearer abcdefghijklmnop',
        `postgres://postgres:${PG_PASSWORD}@db:5432/postgres`,
      ]),
    );
    // The URL carrying a key goes through the env too; the already-referenced token stays as it is.
    expect(s.url).toBe(`$(${URL_ENV})`);
    expect(s.secrets[URL_ENV]).toContain(APIKEY);
    expect(s.profileYaml).toContain('${MY_METRICS_TOKEN}');
    expect(s.profileYaml).toContain('# rooms for the demo');
    // A reference the profile already had travels in the Secret too, under its own name.
    expect(s.secrets.MY_METRICS_TOKEN).toBe('m-token');
    expect(s.missingEnv).toEqual([]);
    expect(splitSecrets(profile).missingEnv).toEqual(['MY_METRICS_TOKEN']);
    const env = { ...s.secrets };
    const back = parseProfile(s.profileYaml, { env }).profile;
    const original = parseProfile(profile, { env }).profile;
    expect(back).toEqual(original);
  });

  it('a profile without secrets and a plain --url need no Secret', () => {
    const s = splitSecrets(
      'name: p\nscenario: broadcast-public\n',
      'ws://rt:4000/socket/websocket',
    );
    expect(s.secrets).toEqual({});
    expect(s.url).toBe('ws://rt:4000/socket/websocket');
  });

  it('refuses a secret in a field that cannot take ${ENV} (it would land in the ConfigMap), naming the field only', () => {
    const text =
      'name: p\nscenario: broadcast-public\ntarget: { params: { apikey: hidden-value-123 } }\n';
    expect(() => splitSecrets(text)).toThrow(SecretPlacementError);
    expect(() => splitSecrets(text)).toThrow(
      /^target\.params\.apikey: a secret in a field that cannot take/,
    );
    try {
      splitSecrets(text);
    } catch (e) {
      expect((e as Error).message).not.toContain('hidden-value-123');
    }
  });
});
