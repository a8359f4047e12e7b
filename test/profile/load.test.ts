import { rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProfile, parseProfile, type LoadedProfile } from '../../src/profile/load.js';
import { ProfileError } from '../../src/profile/errors.js';
import { tempDir } from '../support/temp-dir.js';

const P = 'profiles/x.yaml';

/** The smallest valid profile; tests append or override. */
const MINIMAL = `name: t
scenario: broadcast-public
load:
  steps:
    - { connections: 100, duration: 20s }
`;

function parse(
  text: string,
  opts: { sets?: string[]; env?: NodeJS.ProcessEnv } = {},
): LoadedProfile {
  return parseProfile(text, { path: P, env: {}, ...opts });
}

/** The ProfileError message `fn` throws; fails the test if it throws anything else or nothing. */
function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ProfileError);
    return (err as Error).message;
  }
  throw new Error('expected a ProfileError, nothing was thrown');
}

const parseError = (
  text: string,
  opts: { sets?: string[]; env?: NodeJS.ProcessEnv } = {},
): string => errorOf(() => parse(text, opts));

describe('a valid profile', () => {
  it('gets every default from the schema', () => {
    const { profile, path } = parse(MINIMAL);
    expect(path).toBe(P);
    expect(profile.target).toMatchObject({
      vsn: '1.0.0',
      dialect: 'supabase',
      topic: 'realtime:bench',
      instance: { vcpus: 2, memory_mb: 4096 },
      headers: {},
      join_timeout: 10_000,
      heartbeat_interval: 25_000,
      server: { workers: 1, config: {}, database: true },
    });
    expect(profile.target.url).toBeUndefined();
    expect(profile.load).toMatchObject({
      join_rate: 50,
      self: false,
      payload_bytes: 64,
      workers: 'auto',
      drain: 10_000,
    });
    expect(profile.load.steps).toEqual([{ connections: 100, send_rate: 0, duration: 20_000 }]);
    expect(profile.slo).toEqual({
      p95_ms: 200,
      delivery_rate: 1,
      join_p95_ms: 2000,
      join_success: 1,
    });
    expect(profile.generator).toEqual({
      min_offered_ratio: 0.99,
      max_event_loop_lag_p99_ms: 50,
      max_cpu_pct: 90,
    });
  });

  it('reads the issue-2 example profile as written', () => {
    const { profile } = parse(`name: quickstart
scenario: broadcast-public
target:
  url: ws://127.0.0.1:4000/socket/websocket
  vsn: "2.0.0"
  dialect: phoenix
  topic: room:bench
  join_payload: {}
  push_event: broadcast
  receive_event: broadcast
  instance: { vcpus: 2, memory_mb: 4096 }
load:
  join_rate: 100
  self: true
  payload_bytes: 64
  steps:
    - { connections: 1000, send_rate: 10, duration: 20s }
    - { connections: 2000, send_rate: 10, duration: 1m30s }
slo: { p95_ms: 200 }
`);
    expect(profile.target).toMatchObject({
      url: 'ws://127.0.0.1:4000/socket/websocket',
      vsn: '2.0.0',
      dialect: 'phoenix',
      topic: 'room:bench',
    });
    expect(profile.load.steps.map((s) => s.duration)).toEqual([20_000, 90_000]);
    expect(profile.load.self).toBe(true);
  });

  it('takes YAML merge keys, so step shapes can be shared', () => {
    const { profile } = parse(`name: t
scenario: broadcast-public
load:
  steps:
    - &base { connections: 100, send_rate: 5, duration: 10s }
    - { <<: *base, connections: 200 }
`);
    expect(profile.load.steps[1]).toEqual({ connections: 200, send_rate: 5, duration: 10_000 });
  });

  it('has a redacted copy with no secrets in it', () => {
    const { redacted } = parse(MINIMAL);
    expect(redacted).toMatchObject({
      name: 't',
      load: { steps: [{ connections: 100, duration: 20_000 }] },
    });
  });
});

describe('problems in the file', () => {
  it('names an unknown field at its key, with the closest known field', () => {
    const text = `name: t
scenario: broadcast-public
load:
  steps:
    - connections: 100
      duration: 20s
      sned_rate: 10
`;
    expect(parseError(text)).toBe(
      `${P}:7:7: load.steps.0.sned_rate: unknown field (did you mean "send_rate"?)`,
    );
  });

  it('gives the did-you-mean for a misspelt key that leaves a required field missing', () => {
    const text = `name: t
scenario: broadcast-public
load:
  steps:
    - conections: 100
      duration: 20s
`;
    expect(parseError(text).split('\n')).toEqual([
      `${P}:5:7: load.steps.0.connections: required field is missing`,
      `${P}:5:7: load.steps.0.conections: unknown field (did you mean "connections"?)`,
    ]);
  });

  it('ignores case and - vs _ when suggesting', () => {
    expect(parseError(`${MINIMAL}  Join-Rate: 10\n`)).toBe(
      `${P}:6:3: load.Join-Rate: unknown field (did you mean "join_rate"?)`,
    );
  });

  it('says where a right field at the wrong level belongs', () => {
    expect(parseError(`${MINIMAL}target:\n  join_rate: 10\n`)).toBe(
      `${P}:7:3: target.join_rate: unknown field (join_rate is a field of load, load.steps.<i>)`,
    );
  });

  it('suggests the full name of a shortened field', () => {
    expect(parseError(`${MINIMAL}slo:\n  delivery: 1\n`)).toBe(
      `${P}:7:3: slo.delivery: unknown field (did you mean "delivery_rate"?)`,
    );
  });

  it('lists the known fields of a small map when nothing is close', () => {
    expect(parseError(`${MINIMAL}slo:\n  latency: 10\n`)).toBe(
      `${P}:7:3: slo.latency: unknown field (known fields: p95_ms, p99_ms, delivery_rate, join_p95_ms, join_success)`,
    );
  });

  it('names the allowed values of an enum and the value given', () => {
    const text = `name: t
scenario: broadcast-public
target:
  vsn: "3"
load:
  steps:
    - { connections: 100, duration: 20s }
`;
    expect(parseError(text)).toBe(
      `${P}:4:8: target.vsn: must be one of "1.0.0", "2.0.0" (got "3")`,
    );
  });

  it('explains a bad duration', () => {
    const text = `name: t
scenario: broadcast-public
load:
  steps:
    - { connections: 100, duration: 20s }
    - connections: 200
      duration: fast
`;
    expect(parseError(text)).toBe(
      `${P}:7:17: load.steps.1.duration: not a duration: "fast" (use e.g. 20s, 2m, 500ms or a number of seconds)`,
    );
  });

  it('calls a duration of the wrong type a duration problem too', () => {
    expect(parseError(MINIMAL.replace('duration: 20s', 'duration: true'))).toBe(
      `${P}:5:37: load.steps.0.duration: not a duration: true (use e.g. 20s, 2m, 500ms or a number of seconds)`,
    );
  });

  it('reports a missing top-level field without a line', () => {
    expect(parseError('name: t\nscenario: broadcast-public\n')).toBe(
      `${P}: load: required field is missing`,
    );
  });

  it('reports a missing nested field at its parent', () => {
    const text = `name: t
scenario: broadcast-public
load:
  steps:
    - send_rate: 5
      duration: 20s
`;
    expect(parseError(text)).toBe(`${P}:5:7: load.steps.0.connections: required field is missing`);
  });

  it('points an empty value at its key', () => {
    expect(parseError('name: t\nscenario: broadcast-public\nload:\n')).toBe(
      `${P}:3:1: load: expected a map (got an empty value)`,
    );
  });

  it.each([
    [
      'connections: many',
      'connections: 100',
      `${P}:5:20: load.steps.0.connections: expected a number (got "many")`,
    ],
    [
      'connections: 1.5',
      'connections: 100',
      `${P}:5:20: load.steps.0.connections: expected an integer (got 1.5)`,
    ],
    [
      'connections: -1',
      'connections: 100',
      `${P}:5:20: load.steps.0.connections: must be at least 0 (got -1)`,
    ],
    [
      'send_rate: [1]',
      'duration: 20s',
      `${P}:6:18: load.steps.0.send_rate: expected a number (got a list)`,
    ],
    ['label: 5', 'duration: 20s', `${P}:6:14: load.steps.0.label: expected a string (got 5)`],
  ])('explains %j', (field, replaced, message) => {
    const text = `name: t\nscenario: broadcast-public\nload:\n  steps:\n    - connections: 100\n      duration: 20s\n`;
    const changed =
      replaced === 'duration: 20s'
        ? text.replace('      duration: 20s', `      ${field}\n      duration: 20s`)
        : text.replace(replaced, field);
    expect(parseError(changed)).toBe(message);
  });

  it('states an integer lower bound as "at least"', () => {
    expect(parseError(MINIMAL.replace('duration: 20s', 'duration: 20s, payload_bytes: 0'))).toBe(
      `${P}:5:57: load.steps.0.payload_bytes: must be at least 1 (got 0)`,
    );
  });

  it('explains unions, bounds, lists and strings', () => {
    const text = `name: ""
scenario: broadcast-public
slo: { p95_ms: 0, delivery_rate: 2 }
load:
  workers: many
  steps: []
`;
    expect(parseError(text).split('\n')).toEqual([
      `${P}:1:7: name: must not be empty (got "")`,
      `${P}:3:16: slo.p95_ms: must be greater than 0 (got 0)`,
      `${P}:3:34: slo.delivery_rate: must be at most 1 (got 2)`,
      `${P}:5:12: load.workers: expected integer ≥ 1 or "auto" (got "many")`,
      `${P}:6:10: load.steps: must have at least 1 item (got a list)`,
    ]);
  });

  it('reports every problem, one per line, sorted by line', () => {
    const text = `name: t
scenario: broadcst-public
load:
  join_rte: 10
  steps:
    - { connections: x, duration: 20s }
target:
  vsn: 3
`;
    const lines = parseError(text).split('\n');
    expect(lines).toEqual([
      `${P}:2:11: scenario: must be one of "broadcast-public", "broadcast-private", "payload-size", "join-rate", "presence", "postgres-changes", "write-only", "mixed" (got "broadcst-public")`,
      `${P}:4:3: load.join_rte: unknown field (did you mean "join_rate"?)`,
      `${P}:6:22: load.steps.0.connections: expected a number (got "x")`,
      `${P}:8:8: target.vsn: must be one of "1.0.0", "2.0.0" (got 3)`,
    ]);
  });

  it('exposes the problems as data too', () => {
    try {
      parse('name: t\nscenario: nope\n');
      expect.unreachable();
    } catch (err) {
      const problems = (err as ProfileError).problems;
      expect(problems.map((p) => [p.line, p.col, p.field])).toEqual([
        [null, null, 'load'],
        [2, 11, 'scenario'],
      ]);
      expect(problems[0].source).toBe(P);
    }
  });

  it('reports YAML syntax errors with line and column, and nothing else', () => {
    const text = `name: t
scenario: broadcast-public
load:
  steps: [ { connections: 100, duration: 20s }
target:
  vsn: 9
`;
    const message = parseError(text);
    expect(message.split('\n')).toHaveLength(1);
    expect(message).toMatch(/^profiles\/x\.yaml:5:1: invalid YAML: /);
  });

  it('reports an unclosed [ once, at its line, with how many errors followed it', () => {
    // The parser reports the unclosed flow sequence where it needed the `]` (line 5), then an
    // error for each consequence on the lines it swallowed: noise after the first.
    const text = `name: t
scenario: broadcast-public
load:
  steps: [100, 200
  hold_s: 30
  ramp: linear
target:
  vsn: 9
`;
    expect(parseError(text)).toBe(
      `${P}:5:3: invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a ] (2 more after it)`,
    );
  });

  it('reports a duplicate key at the second one', () => {
    expect(parseError(`${MINIMAL}name: u\n`)).toBe(
      `${P}:6:1: invalid YAML: Map keys must be unique`,
    );
  });

  it('reports an empty file and a file that is not a map', () => {
    expect(parseError('')).toBe(`${P}: the profile is empty`);
    expect(parseError('# only a comment\n')).toBe(`${P}: the profile is empty`);
    expect(parseError('- a\n- b\n')).toBe(`${P}:1:1: (top level): expected a map (got a list)`);
  });

  it('names the source "profile" when the text has no path', () => {
    expect(errorOf(() => parseProfile('name: t\nscenario: broadcast-public\n', {}))).toBe(
      'profile: load: required field is missing',
    );
  });
});

describe('--set', () => {
  it('parses values as YAML: numbers, booleans, maps, strings, URLs', () => {
    const { profile } = parse(MINIMAL, {
      sets: [
        'load.steps.0.connections=200',
        'load.self=true',
        'slo.p95_ms=150',
        'target.instance={vcpus: 4, memory_mb: 8192}',
        'target.topic="room:1"',
        'target.url=ws://10.0.0.5:4000/socket/websocket?vsn=1.0.0',
        'load.steps.0.label="42"',
      ],
    });
    expect(profile.load.steps[0]).toMatchObject({ connections: 200, label: '42' });
    expect(profile.load.self).toBe(true);
    expect(profile.slo.p95_ms).toBe(150);
    expect(profile.target.instance).toEqual({ vcpus: 4, memory_mb: 8192 });
    expect(profile.target.topic).toBe('room:1');
    expect(profile.target.url).toBe('ws://10.0.0.5:4000/socket/websocket?vsn=1.0.0');
  });

  it('applies in order, the last one winning', () => {
    const { profile } = parse(MINIMAL, { sets: ['load.join_rate=10', 'load.join_rate=20'] });
    expect(profile.load.join_rate).toBe(20);
  });

  it('creates missing maps on the way', () => {
    const { profile } = parse(MINIMAL, {
      sets: ['target.auth.role=authenticated', 'target.headers.X-Tenant=acme'],
    });
    expect(profile.target.auth?.role).toBe('authenticated');
    expect(profile.target.headers).toEqual({ 'X-Tenant': 'acme' });
  });

  it('fills a key that is present but empty', () => {
    const { profile } = parse(`${MINIMAL}slo:\n`, { sets: ['slo.p95_ms=100'] });
    expect(profile.slo).toEqual({
      p95_ms: 100,
      delivery_rate: 1,
      join_p95_ms: 2000,
      join_success: 1,
    });
  });

  it('appends a list item at the next index', () => {
    const { profile } = parse(MINIMAL, { sets: ['load.steps.1={connections: 500, duration: 1m}'] });
    expect(profile.load.steps[1]).toEqual({ connections: 500, send_rate: 0, duration: 60_000 });
  });

  it('keeps a block-looking value as text', () => {
    expect(parse(MINIMAL, { sets: ['name=run: one'] }).profile.name).toBe('run: one');
  });

  it('reports a bad value against the --set argument, not a line', () => {
    expect(parseError(MINIMAL, { sets: ['load.steps.0.connections=abc'] })).toBe(
      '--set load.steps.0.connections=abc: load.steps.0.connections: expected a number (got "abc")',
    );
  });

  it('reports what a new list item lacks against the --set that made it', () => {
    expect(parseError(MINIMAL, { sets: ['load.steps.1.connections=500'] })).toBe(
      '--set load.steps.1.connections=500: load.steps.1.duration: required field is missing',
    );
  });

  it('reports unknown fields it introduced, with a suggestion', () => {
    expect(parseError(MINIMAL, { sets: ['load.stesp.0.connections=5'] })).toBe(
      '--set load.stesp.0.connections=5: load.stesp: unknown field (did you mean "steps"?)',
    );
    expect(parseError(MINIMAL, { sets: ['slo={p95_ms: 150, p59_ms: 1}'] })).toBe(
      '--set slo={p95_ms: 150, p59_ms: 1}: slo.p59_ms: unknown field (did you mean "p95_ms"?)',
    );
  });

  it('refuses list indices past the end', () => {
    expect(parseError(MINIMAL, { sets: ['load.steps.3.connections=5'] })).toBe(
      '--set load.steps.3.connections=5: load.steps: index 3 is out of range: the list has 1 item (use 0..0, or 1 to append)',
    );
    expect(parseError(MINIMAL, { sets: ['load.steps.first.connections=5'] })).toBe(
      '--set load.steps.first.connections=5: load.steps: is a list; use an index 0..1 instead of "first"',
    );
  });

  it('refuses to set inside a scalar', () => {
    expect(parseError(MINIMAL, { sets: ['name.first=x'] })).toBe(
      '--set name.first=x: name: is string "t", not a map; cannot set "first" inside it',
    );
  });

  it('refuses malformed arguments and values', () => {
    expect(parseError(MINIMAL, { sets: ['load.join_rate'] })).toBe(
      '--set load.join_rate: expected path=value, e.g. load.steps.0.connections=200',
    );
    expect(parseError(MINIMAL, { sets: ['load..join_rate=1'] })).toBe(
      '--set load..join_rate=1: "load..join_rate" has an empty segment',
    );
    expect(parseError(MINIMAL, { sets: ['=1'] })).toBe('--set =1: the path before "=" is empty');
    expect(parseError(MINIMAL, { sets: ['slo={p95_ms: 1'] })).toMatch(
      /^--set slo=\{p95_ms: 1: value is not valid YAML: /,
    );
  });

  it('reports file problems first, then --set problems in argument order', () => {
    const message = parseError(`${MINIMAL}  jion_rate: 5\n`, {
      sets: ['slo.p95_ms=fast', 'load.steps.9.connections=1'],
    });
    expect(message.split('\n')).toEqual([
      `${P}:6:3: load.jion_rate: unknown field (did you mean "join_rate"?)`,
      '--set slo.p95_ms=fast: slo.p95_ms: expected a number (got "fast")',
      '--set load.steps.9.connections=1: load.steps: index 9 is out of range: the list has 1 item (use 0..0, or 1 to append)',
    ]);
  });

  it('fixes a file problem when it overrides the bad value', () => {
    expect(
      parse(MINIMAL.replace('connections: 100', 'connections: lots'), {
        sets: ['load.steps.0.connections=100'],
      }).profile.load.steps[0].connections,
    ).toBe(100);
  });
});

describe('${ENV_VAR} expansion', () => {
  const withSecrets = `name: t
scenario: broadcast-public
target:
  url: ws://\${HOST}/socket/websocket?apikey=\${KEY}
  headers: { Authorization: "Bearer \${KEY}", X-Client: "c-\${HOST}" }
  metrics_token: \${METRICS}
  auth: { apikey: "\${KEY}", jwt_secret: "\${JWT}" }
load:
  steps:
    - { connections: 100, duration: 20s }
`;
  const env = { HOST: '10.0.0.5:4000', KEY: 'key-123', METRICS: 'met-456', JWT: 'jwt-789' };

  it('expands variables in the fields the schema marks', () => {
    const { profile } = parse(withSecrets, { env });
    expect(profile.target.url).toBe('ws://10.0.0.5:4000/socket/websocket?apikey=key-123');
    expect(profile.target.headers).toEqual({
      Authorization: 'Bearer key-123',
      'X-Client': 'c-10.0.0.5:4000',
    });
    expect(profile.target.metrics_token).toBe('met-456');
    expect(profile.target.auth).toMatchObject({ apikey: 'key-123', jwt_secret: 'jwt-789' });
  });

  it('leaves other fields alone', () => {
    const { profile } = parse(
      MINIMAL.replace('name: t', 'name: run-${KEY}') + 'target:\n  topic: realtime:${KEY}\n',
      { env },
    );
    expect(profile.name).toBe('run-${KEY}');
    expect(profile.target.topic).toBe('realtime:${KEY}');
  });

  it('keeps $${ as a literal ${', () => {
    const { profile } = parse(`${MINIMAL}target:\n  auth: { jwt_secret: "a$\${KEY}b" }\n`, { env });
    expect(profile.target.auth?.jwt_secret).toBe('a${KEY}b');
  });

  it('names the unset variable and the field, at the line', () => {
    expect(parseError(withSecrets, { env: { HOST: 'h', KEY: 'k' } }).split('\n')).toEqual([
      `${P}:6:18: target.metrics_token: environment variable METRICS is not set`,
      `${P}:7:41: target.auth.jwt_secret: environment variable JWT is not set`,
    ]);
  });

  it('reports an unset variable in a header value at that value', () => {
    expect(parseError(withSecrets, { env: { ...env, KEY: undefined } }).split('\n')).toEqual([
      `${P}:4:8: target.url: environment variable KEY is not set`,
      `${P}:5:29: target.headers.Authorization: environment variable KEY is not set`,
      `${P}:7:19: target.auth.apikey: environment variable KEY is not set`,
    ]);
  });

  it('rejects a malformed reference', () => {
    expect(parseError(`${MINIMAL}target:\n  metrics_token: "\${NOT A NAME}"\n`)).toBe(
      `${P}:7:18: target.metrics_token: "\${NOT A NAME}" is not a variable reference (use \${NAME}, or $\${ for a literal \${)`,
    );
  });

  it('expands values given with --set, and reports them against it', () => {
    expect(
      parse(MINIMAL, { sets: ['target.auth.apikey=${KEY}'], env }).profile.target.auth?.apikey,
    ).toBe('key-123');
    expect(parseError(MINIMAL, { sets: ['target.auth.apikey=${NOPE}'] })).toBe(
      '--set target.auth.apikey=***: target.auth.apikey: environment variable NOPE is not set',
    );
  });

  it('uses process.env by default', () => {
    process.env.RTCAP_TEST_KEY = 'from-process';
    try {
      const { profile } = parseProfile(MINIMAL, { sets: ['target.auth.apikey=${RTCAP_TEST_KEY}'] });
      expect(profile.target.auth?.apikey).toBe('from-process');
    } finally {
      delete process.env.RTCAP_TEST_KEY;
    }
  });
});

describe('redaction', () => {
  const text = `name: t
scenario: broadcast-public
target:
  url: wss://user:pw@realtime.example.com/realtime/v1/websocket?apikey=\${KEY}&vsn=1.0.0
  headers: { authorization: "Bearer \${KEY}", APIKEY: k1, x-api-key: k2, X-Trace: keep }
  params: { apikey: k3, log_level: info }
  metrics_token: met
  auth: { apikey: "\${KEY}", jwt_secret: jwt, role: authenticated }
  server:
    config: { jwt_secret: s1, max_connections: 500, nested: { db_password: s2 } }
load:
  steps:
    - { connections: 100, duration: 20s }
`;

  it('replaces every secret with "***" and keeps the rest', () => {
    const { profile, redacted } = parse(text, { env: { KEY: 'key-123' } });
    expect(redacted).toMatchObject({
      target: {
        url: 'wss://user:***@realtime.example.com/realtime/v1/websocket?apikey=***&vsn=1.0.0',
        // Every header value: a custom header carries a token as often as Authorization does.
        headers: { authorization: '***', APIKEY: '***', 'x-api-key': '***', 'X-Trace': '***' },
        params: { apikey: '***', log_level: 'info' },
        metrics_token: '***',
        auth: { apikey: '***', jwt_secret: '***', role: 'authenticated', apikey_in: 'query' },
        server: {
          config: { jwt_secret: '***', max_connections: 500, nested: { db_password: '***' } },
        },
      },
    });
    expect(JSON.stringify(redacted)).not.toMatch(/key-123|pw@|met"|jwt"|k1|k2|k3|s1|s2/);
    // The profile itself keeps the real values: the run needs them.
    expect(profile.target.auth?.apikey).toBe('key-123');
    expect(profile.target.headers.authorization).toBe('Bearer key-123');
  });

  it('is a copy that leaves the profile untouched and is plain JSON', () => {
    const { profile, redacted } = parse(text, { env: { KEY: 'key-123' } });
    expect(redacted).not.toBe(profile);
    expect(JSON.parse(JSON.stringify(redacted))).toEqual(redacted);
    expect(profile.target.metrics_token).toBe('met');
  });

  it('keeps secrets out of error messages', () => {
    const message = parseError(MINIMAL, {
      sets: [
        'target.url=http://h/socket?apikey=${KEY}',
        'target.auth.apikey=[1]',
        'target.auth.jwt_secret=42',
      ],
      env: { KEY: 'key-123' },
    });
    expect(message.split('\n')).toEqual([
      '--set target.url=http://h/socket?apikey=***: target.url: must start with ws:// or wss:// (got "http://h/socket?apikey=***")',
      '--set target.auth.apikey=***: target.auth.apikey: expected a string (got a list)',
      '--set target.auth.jwt_secret=***: target.auth.jwt_secret: expected a string (got "***")',
    ]);
  });

  it('keeps the value of a mistyped secret field, or of one that reads as a credential, out of the error', () => {
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig';
    const message = parseError(MINIMAL, {
      sets: [
        'target.auth.api_key=SECRETabc123',
        'target.auth.anon_key=plain',
        `target.tpoic=${jwt}`,
        'target.auth.apikey:SECRETx',
        'target.tpoic2=plain',
      ],
    });
    expect(message).not.toMatch(/SECRET|plain"|eyJ/);
    expect(message.split('\n')).toEqual([
      '--set target.auth.api_key=***: target.auth.api_key: unknown field (did you mean "apikey"?)',
      expect.stringMatching(
        /^--set target\.auth\.anon_key=\*\*\*: target\.auth\.anon_key: unknown field/,
      ),
      '--set target.tpoic=***: target.tpoic: unknown field (did you mean "topic"?)',
      '--set target.auth.apikey:***: expected path=value, e.g. load.steps.0.connections=200',
      // A plain name and value are shown as given.
      expect.stringMatching(/^--set target\.tpoic2=plain: target\.tpoic2: unknown field/),
    ]);
  });

  it('masks any value set where a credential goes, by its place, however plain it looks', () => {
    const secrets = ['hunter2', 'Tr0ub4dor&3xyz', 'pw4db'];
    const message = parseError(MINIMAL, {
      sets: [
        'target.metrics_tokn=hunter2',
        'target.auth.apikey_typo=hunter2',
        'target.database_ur=postgres://u:pw4db@h/db',
        'target.metrics_url=hunter2',
        'target.databse=hunter2',
        'target.database_url=[hunter2',
      ],
    });
    for (const s of secrets) expect(message).not.toContain(s);
    expect(message.split('\n')).toEqual([
      '--set target.metrics_tokn=***: target.metrics_tokn: unknown field (did you mean "metrics_token"?)',
      expect.stringMatching(
        /^--set target\.auth\.apikey_typo=\*\*\*: target\.auth\.apikey_typo: unknown field/,
      ),
      '--set target.database_ur=***: target.database_ur: unknown field (did you mean "database_url"?)',
      '--set target.metrics_url=***: target.metrics_url: must be a URL (got "***")',
      expect.stringMatching(/^--set target\.databse=\*\*\*: target\.databse: unknown field/),
      expect.stringMatching(/^--set target\.database_url=\*\*\*: value is not valid YAML/),
    ]);
    // A map given a plain string: once, not twice.
    expect(parseError(MINIMAL, { sets: ['target.auth=Tr0ub4dor&3xyz'] })).toBe(
      '--set target.auth=***: target.auth: expected a map (got "***")',
    );
  });

  it('masks a secret in the file where it stands when a --set reaches into it', () => {
    const text = `${MINIMAL}target:\n  auth: { jwt_secret: hunter2 }\n`;
    expect(parseError(text, { sets: ['target.auth.jwt_secret.x=1'] })).toBe(
      '--set target.auth.jwt_secret.x=***: target.auth.jwt_secret: is a string, not a map; cannot set "x" inside it',
    );
    // A mistyped field in the file: the value is not quoted either.
    expect(parseError(`${MINIMAL}target:\n  auth: hunter2\n`)).toBe(
      `${P}:7:9: target.auth: expected a map (got "***")`,
    );
  });

  it('quotes at most 200 characters of a value or key', () => {
    const big = 'a'.repeat(120_000);
    const message = parseError(MINIMAL, { sets: [`name=[${big}`, `load.x${big}=1`] });
    expect(message.length).toBeLessThan(1_000);
    expect(message).toContain('… (');
  });

  it('names the variable of an empty expansion, and says how a shell variable ends up empty', () => {
    const text = `${MINIMAL}target:\n  url: \${URL}\n`;
    expect(parseError(text, { env: { URL: '' } })).toBe(
      `${P}:7:8: target.url: environment variable URL is set but empty`,
    );
    expect(parseError(MINIMAL, { sets: ['target.url='] })).toBe(
      '--set target.url=: target.url: expected a string (got an empty value): nothing follows "=" ' +
        "(an unset shell variable expands to nothing; write '${NAME}' in single quotes and rtcap names it)",
    );
  });

  it('does not echo a credential-shaped value given to a field of the wrong type', () => {
    const message = parseError(MINIMAL, { sets: ['load.join_rate=sk9f8d7s6a5d4f3g2h1j0k'] });
    expect(message).toBe('--set load.join_rate=***: load.join_rate: expected a number (got "***")');
  });
});

describe('loadProfile', () => {
  let dir: string;
  beforeAll(() => {
    dir = tempDir('rtcap-profile-');
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads a file and passes --set and env on', async () => {
    const file = join(dir, 'ok.yaml');
    writeFileSync(file, MINIMAL);
    const loaded = await loadProfile(file, { sets: ['target.auth.apikey=${K}'], env: { K: 'k' } });
    expect(loaded.path).toBe(file);
    expect(loaded.profile.target.auth?.apikey).toBe('k');
    expect(loaded.redacted).toMatchObject({ target: { auth: { apikey: '***' } } });
  });

  it('reports problems against the path as given', async () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, `${MINIMAL}  jion_rate: 5\n`);
    await expect(loadProfile(file, { env: {} })).rejects.toThrow(
      `${file}:6:3: load.jion_rate: unknown field (did you mean "join_rate"?)`,
    );
  });

  it('gives one line for a file it cannot read', async () => {
    const missing = join(dir, 'missing.yaml');
    await expect(loadProfile(missing)).rejects.toBeInstanceOf(ProfileError);
    await expect(loadProfile(missing)).rejects.toThrow(
      `${missing}: cannot read profile: no such file`,
    );
    const sub = join(dir, 'sub');
    mkdirSync(sub);
    await expect(loadProfile(sub)).rejects.toThrow(
      `${sub}: cannot read profile: is a directory, not a file`,
    );
  });
});
