import { afterEach, describe, expect, it } from 'vitest';
import { buildSocketUrl } from '../../src/client/url.js';
import {
  clearSecrets,
  errorLine,
  isCredentialKey,
  isDistinctiveSecret,
  redactHttpHead,
  redactText,
  redactUrl,
  registerSecrets,
  urlSecrets,
} from '../../src/redact/redact.js';

const JWT =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJyb2xlIjoiYW5vbiIsImV4cCI6MjAwMDAwMDAwMH0.c2lnbmF0dXJlLWJ5dGVz';

afterEach(() => clearSecrets());

describe('redactUrl', () => {
  it.each([
    'apikey',
    'access_token',
    'token',
    'jwt',
    'APIKEY',
    'password',
    'api_key',
    'refresh_token',
    'client_secret',
  ])('hides the %s parameter value', (name) => {
    const out = redactUrl(
      `ws://h/socket/websocket?vsn=2.0.0&${name}=sb_publishable_abc123&log_level=info`,
    );
    expect(out).toBe(`ws://h/socket/websocket?vsn=2.0.0&${name}=***&log_level=info`);
  });

  it('hides a secret parameter first in the query and before a fragment', () => {
    expect(redactUrl('ws://h/s?apikey=secret#frag')).toBe('ws://h/s?apikey=***#frag');
  });

  it.each(['ws', 'wss', 'http', 'https', 'postgres', 'postgresql'])(
    'hides the password of %s://user:pass@, keeps the user',
    (scheme) => {
      expect(redactUrl(`${scheme}://alice:p%40ss:w0rd@db.example:5432/x?sslmode=require`)).toBe(
        `${scheme}://alice:***@db.example:5432/x?sslmode=require`,
      );
    },
  );

  it('leaves a URL without secrets as it is', () => {
    const url = 'ws://127.0.0.1:4000/socket/websocket?vsn=2.0.0&log_level=info';
    expect(redactUrl(url)).toBe(url);
  });
});

describe('redactText', () => {
  it('hides URLs with passwords anywhere in a sentence', () => {
    expect(redactText('--url http://bob:hunter22@h/x: must start with ws:// or wss://')).toBe(
      '--url http://bob:***@h/x: must start with ws:// or wss://',
    );
    expect(redactText('connect postgres://postgres:pw123@127.0.0.1:5432/db failed')).toBe(
      'connect postgres://postgres:***@127.0.0.1:5432/db failed',
    );
  });

  it('hides JWT-looking strings and Bearer tokens anywhere in text', () => {
    expect(redactText(`upgrade refused: Authorization: Bearer ${JWT} was rejected`)).toBe(
      'upgrade refused: Authorization: Bearer *** was rejected',
    );
    expect(redactText(`{"access_token":"${JWT}"}`)).toBe('{"access_token":"***"}');
    expect(redactText('x eyJhbGciOiJub25lIn0.eyJyb2xlIjoiYW5vbiJ9. y')).toBe('x *** y');
    expect(redactText('authorization: Bearer sb_secret_abc')).toBe('authorization: Bearer ***');
  });

  it('hides password= in libpq keyword strings', () => {
    expect(redactText('host=h password=s3cr3t dbname=x')).toBe('host=h password=*** dbname=x');
  });

  it('hides registered values verbatim, in URL-encoded and JSON-escaped forms too', () => {
    registerSecrets(['a b"c/d Xy12', 'plain-secret-value-long', null, undefined, 'ab']);
    expect(redactText('x plain-secret-value-long y')).toBe('x *** y');
    expect(redactText(`u=${encodeURIComponent('a b"c/d Xy12')}`)).toBe('u=***');
    expect(redactText(JSON.stringify({ k: 'a b"c/d Xy12' }))).toBe('{"k":"***"}');
    // Too short to hide verbatim without garbling other text.
    expect(redactText('abc ab')).toBe('abc ab');
  });

  it('hides the longer of two overlapping secrets whole', () => {
    registerSecrets(['Secret-1234', 'Secret-1234-and-more']);
    expect(redactText('v=Secret-1234-and-more')).toBe('v=***');
  });

  it('never hides a short or word-like secret as a word of other text, only where it stands', () => {
    // postgres://postgres:postgres@… once made the run id 20261202-171356-***-changes-quick.
    const url = 'postgres://postgres:postgres@127.0.0.1:5432/postgres';
    registerSecrets([...urlSecrets(url), 'hunter2', 'my-db-password']);
    const text = `run 20261202-171356-postgres-changes-quick, scenario postgres-changes, ${url}`;
    expect(redactText(text)).toBe(
      'run 20261202-171356-postgres-changes-quick, scenario postgres-changes, ' +
        'postgres://postgres:***@127.0.0.1:5432/postgres',
    );
    expect(redactText('hunter2 my-db-password')).toBe('hunter2 my-db-password');
    // Distinctive ones are hidden wherever they turn up.
    registerSecrets(['Tr0ub4dor&3xyz', 'a-long-lowercase-secret-value']);
    expect(redactText('x Tr0ub4dor&3xyz a-long-lowercase-secret-value')).toBe('x *** ***');
  });

  it.each([
    ['postgres', false],
    ['hunter2', false],
    ['bench-password', false],
    ['Kq7-SECRET-zz81', true],
    ['Tr0ub4dor&3xyz', true],
    ['super-secret-jwt-token-with-at-least-32-characters-long', true],
  ])('isDistinctiveSecret(%s) is %s', (value, expected) => {
    expect(isDistinctiveSecret(value)).toBe(expected);
  });

  it('leaves other text alone', () => {
    const text = 'ws://127.0.0.1:4000/socket/websocket?vsn=2.0.0&log_level=info&refresh=eyJ';
    expect(redactText(text)).toBe(text);
    expect(redactText('closed by server: 1000 heartbeat timeout')).toBe(
      'closed by server: 1000 heartbeat timeout',
    );
  });

  it('nothing secret survives in a URL built with a key', () => {
    const out = redactText(
      buildSocketUrl('ws://h/socket/websocket', { vsn: '1.0.0', apikey: JWT }),
    );
    expect(out).not.toContain(JWT.slice(0, 20));
    expect(out).toContain('apikey=***');
  });
});

describe('urlSecrets', () => {
  it('lists the password and credential parameter values', () => {
    expect(urlSecrets('ws://u:p%21ss@h/x?apikey=k1&vsn=2.0.0&token=t2').sort()).toEqual([
      'k1',
      'p!ss',
      'p%21ss',
      't2',
    ]);
    expect(urlSecrets('ws://h/x?vsn=2.0.0')).toEqual([]);
  });
});

describe('errorLine', () => {
  it('quotes at most 200 characters of any value', () => {
    const big = 'a'.repeat(120_000);
    const line = errorLine(new Error(`--server-cpus ${big} is not a CPU list`));
    expect(line).toBe(
      `--server-cpus ${'a'.repeat(200)}… (119800 more characters) is not a CPU list`,
    );
  });

  it('is the first line of the message, redacted', () => {
    expect(errorLine(new Error('\nconnect to postgres://a:b2c3@h failed\n    at x (y.js:1)'))).toBe(
      'connect to postgres://a:***@h failed',
    );
  });
});

describe('isCredentialKey', () => {
  it.each([
    'Authorization',
    'x-api-key',
    'apikey',
    'jwt_secret',
    'password',
    'access_token',
    'Cookie',
  ])('%s is a credential', (k) => expect(isCredentialKey(k)).toBe(true));
  it.each(['log_level', 'vsn', 'host', 'max_connections'])('%s is not', (k) =>
    expect(isCredentialKey(k)).toBe(false),
  );
});

describe('redactText around sentence punctuation', () => {
  it('keeps the punctuation that ends a sentence after a secret parameter, and is idempotent', () => {
    const once = redactText('--url https://h/x?apikey=abc123: must start with ws://');
    expect(once).toBe('--url https://h/x?apikey=***: must start with ws://');
    expect(redactText(once)).toBe(once);
  });
});

describe('a quoted HTTP head', () => {
  const HEAD =
    'GET /socket/websocket?vsn=1.0.0&apikey=k1 HTTP/1.1\r\nHost: rt.example\r\nCookie: sb=COOKSEC1\r\n' +
    'X-Api-Token: XTOKSEC2\r\nX-Session-Id: s1\r\nAuthorization: Basic dXNlcg==\r\nUser-Agent: rtcap\r\n\r\n';

  it('hides the value of every credential-looking header line where it stands, names and other lines kept', () => {
    expect(redactHttpHead(HEAD)).toBe(
      'GET /socket/websocket?vsn=1.0.0&apikey=k1 HTTP/1.1\r\nHost: rt.example\r\nCookie: ***\r\n' +
        'X-Api-Token: ***\r\nX-Session-Id: ***\r\nAuthorization: ***\r\nUser-Agent: rtcap\r\n\r\n',
    );
  });

  it('hides them in a refusal that quotes the head flattened onto one line, the rest kept', () => {
    const line =
      'upgrade refused: HTTP 401 GET /socket/websocket?vsn=1.0.0&apikey=*** HTTP/1.1 ' +
      'Cookie: sb=COOKSEC1; theme=dark X-Api-Token: XTOKSEC2 Set-Cookie: a=b User-Agent: rtcap';
    const out = redactText(line);
    expect(out).toBe(
      'upgrade refused: HTTP 401 GET /socket/websocket?vsn=1.0.0&apikey=*** HTTP/1.1 ' +
        'Cookie: *** X-Api-Token: *** Set-Cookie: *** User-Agent: rtcap',
    );
    expect(redactText(out)).toBe(out);
  });

  it('leaves text that quotes no HTTP head alone: a "token:" in prose is not a header', () => {
    const prose = 'step 1/2 token: refreshed, session: 3 of 4';
    expect(redactText(prose)).toBe(prose);
  });
});
