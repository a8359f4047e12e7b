import { afterEach, describe, expect, it } from 'vitest';
import { parseProfile } from '../../src/profile/load.js';
import { redactAt } from '../../src/profile/secrets.js';
import { profileSchema } from '../../src/profile/schema.js';
import { clearSecrets, redactText } from '../../src/redact/redact.js';

afterEach(() => clearSecrets());

const PROFILE = `name: t
scenario: broadcast-public
target:
  url: ws://rt.example:4000/socket/websocket
  headers: { Cookie: "sb=COOKSEC1", X-Api-Token: "XTOKSEC2", x-custom: "\${TOKC}", X-Trace: keep, Host: tenant.rt.example }
load:
  steps:
    - { connections: 100, duration: 20s }
`;
const TOKC = 'tokc-FROM-env-1234';

describe('target.headers in result.json', () => {
  it('every value is "***", the names kept; Host names the tenant and stays', () => {
    const { profile, redacted } = parseProfile(PROFILE, { env: { TOKC } });
    const json = JSON.stringify(redacted);
    expect((redacted as { target: { headers: unknown } }).target.headers).toEqual({
      Cookie: '***',
      'X-Api-Token': '***',
      'x-custom': '***',
      'X-Trace': '***',
      Host: 'tenant.rt.example',
    });
    expect(json).not.toMatch(/COOKSEC1|XTOKSEC2|tokc-FROM-env|keep/);
    // The run itself sends the real values.
    expect(profile.target.headers['x-custom']).toBe(TOKC);
    expect(profile.target.headers.Cookie).toBe('sb=COOKSEC1');
  });

  it('a --set echo of a header value hides it; of Host, keeps it', () => {
    expect(redactAt(profileSchema, ['target', 'headers', 'X-Trace'], 'keep')).toBe('***');
    expect(redactAt(profileSchema, ['target', 'headers', 'host'], 'tenant.rt.example')).toBe(
      'tenant.rt.example',
    );
    expect(redactAt(profileSchema, ['target', 'headers'], { Cookie: 'a=1', Host: 'h' })).toEqual({
      Cookie: '***',
      Host: 'h',
    });
  });
});

describe('a value substituted from ${ENV}', () => {
  it('in a header is hidden in printed text; in a URL field only its password and apikey are', () => {
    const text = PROFILE.replace('ws://rt.example:4000/socket/websocket', '${RT_URL}');
    const url =
      'ws://user:Pass-From-Env-42@rt-from-env.example:4000/socket/websocket?apikey=Key-From-Env-42';
    const { redacted } = parseProfile(text, { env: { TOKC, RT_URL: url } });
    expect(redactText(`sent ${TOKC}`)).toBe('sent ***');
    const shown = JSON.stringify(redacted);
    expect(shown).toContain('rt-from-env.example:4000/socket/websocket');
    expect(shown).not.toMatch(/Pass-From-Env-42|Key-From-Env-42/);
    const line = redactText(`connecting to ${url}`);
    expect(line).not.toMatch(/Pass-From-Env-42|Key-From-Env-42/);
    expect(line).toContain('rt-from-env.example:4000/socket/websocket');
    expect(redactText('connecting to rt-from-env.example')).toBe(
      'connecting to rt-from-env.example',
    );
  });

  it('a short one is not hidden in unrelated text, only where it stands', () => {
    const { redacted } = parseProfile(PROFILE, { env: { TOKC: 'dark' } });
    expect(redactText('theme dark')).toBe('theme dark');
    expect(JSON.stringify(redacted)).toContain('"x-custom":"***"');
  });
});
