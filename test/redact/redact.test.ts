import { afterEach, describe, expect, it } from 'vitest';
import { buildSocketUrl } from '../../src/client/url.js';
import {
  clearSecrets,
  errorLine,
  isCredentialKey,
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
    registerSecrets(['a b"c/d', 'plain-secret-value', null, undefined, 'ab']);
    expect(redactText('x plain-secret-value y')).toBe('x *** y');
    expect(redactText(`u=${encodeURIComponent('a b"c/d')}`)).toBe('u=***');
    expect(redactText(JSON.stringify({ k: 'a b"c/d' }))).toBe('{"k":"***"}');
    // Too short to hide verbatim without garbling other text.
    expect(redactText('abc ab')).toBe('abc ab');
  });

  it('hides the longer of two overlapping secrets whole', () => {
    registerSecrets(['secret', 'secret-and-more']);
    expect(redactText('v=secret-and-more')).toBe('v=***');
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
