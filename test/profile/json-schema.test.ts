/**
 * profiles/rtcap.schema.json: current with the zod schema, and — checked by an independent
 * validator (ajv, JSON Schema 2020-12, strict mode) — accepting every shipped profile and
 * refusing mistyped ones, as `rtcap run` does.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { DURATION_STRING_PATTERN, parseDurationMs } from '../../src/profile/duration.js';
import { profileJsonSchema, profileJsonSchemaText } from '../../src/profile/json-schema.js';
import { parseProfile } from '../../src/profile/load.js';

const PROFILES = resolve(import.meta.dirname, '../../profiles');
const SCHEMA_FILE = join(PROFILES, 'rtcap.schema.json');
const shipped = readdirSync(PROFILES).filter((f) => f.endsWith('.yaml'));
/** Values for the `${VAR}` references of the seed profiles (they run against a real server). */
const ENV = {
  RTCAP_URL: 'ws://127.0.0.1:4000/socket/websocket',
  RTCAP_APIKEY: 'k',
  RTCAP_JWT_SECRET: 's',
  RTCAP_DATABASE_URL: 'postgres://u@127.0.0.1/db',
};

let compiled: ReturnType<Ajv2020['compile']> | null = null;
function validator() {
  if (compiled) return compiled;
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  ajv.addFormat('uri', (s: string) => URL.canParse(s));
  compiled = ajv.compile(JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as object);
  return compiled;
}

const BASE = [
  'name: x',
  'scenario: broadcast-public',
  'load:',
  '  steps:',
  '    - { connections: 10, send_rate: 1, duration: 5s }',
  '',
].join('\n');

describe('profiles/rtcap.schema.json', () => {
  it('is current with src/profile/schema.ts (regenerate: npm run schema)', () => {
    expect(
      readFileSync(SCHEMA_FILE, 'utf8'),
      'profiles/rtcap.schema.json is stale: run `npm run schema` and commit it',
    ).toBe(profileJsonSchemaText());
  });

  it("has none of rtcap's own field hints (env, secret, kind) as keywords", () => {
    const text = JSON.stringify(profileJsonSchema());
    expect(text).not.toMatch(/"(env|secret|kind)":/);
  });

  it.each(shipped)('%s starts with the schema line, passes the JSON Schema and loads', (file) => {
    const text = readFileSync(join(PROFILES, file), 'utf8');
    expect(text.split('\n')[0]).toBe('# yaml-language-server: $schema=./rtcap.schema.json');
    const validate = validator();
    expect(validate(parse(text)), JSON.stringify(validate.errors)).toBe(true);
    expect(() => parseProfile(text, { env: ENV })).not.toThrow();
  });

  it.each([
    ['an unknown field', BASE.replace('load:', 'load:\n  join_rte: 10'), 'additionalProperties'],
    ['a wrong type', BASE.replace('connections: 10', 'connections: "ten"'), 'type'],
    ['a malformed duration', BASE.replace('duration: 5s', 'duration: 5 sec'), 'pattern'],
    ['an unknown scenario', BASE.replace('broadcast-public', 'broadcast-publik'), 'enum'],
    ['a non-WebSocket URL', `${BASE}target: { url: "http://127.0.0.1:4000" }\n`, 'pattern'],
    ['a missing required field', BASE.replace('name: x\n', ''), 'required'],
  ])('refuses %s, as rtcap run does', (_what, text, keyword) => {
    const validate = validator();
    expect(validate(parse(text))).toBe(false);
    expect(validate.errors?.map((e) => e.keyword)).toContain(keyword);
    expect(() => parseProfile(text, { env: {} })).toThrow();
  });

  it('accepts a ${VAR} reference where the expanded value has a pattern', () => {
    const validate = validator();
    expect(validate(parse(`${BASE}target: { url: "\${RTCAP_URL}" }\n`))).toBe(true);
  });

  it('its duration pattern reads exactly the strings parseDurationMs reads', () => {
    const re = new RegExp(DURATION_STRING_PATTERN);
    for (const s of ['20s', '1m30s', '500ms', '1.5s', '2h', '15', '0.5', ' 3s ', '1h2m3s4ms']) {
      expect(re.test(s), s).toBe(true);
      expect(parseDurationMs(s), s).not.toBeNull();
    }
    for (const s of ['5 sec', 's', '', '1d', '-1s', '1.s', 'ms']) {
      expect(re.test(s), s).toBe(false);
      expect(parseDurationMs(s), s).toBeNull();
    }
  });
});
