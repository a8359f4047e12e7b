import { describe, expect, it } from 'vitest';
import { buildSocketUrl, isLoopbackHost, redact } from '../../src/client/url.js';

const JWT = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJyb2xlIjoiYW5vbiIsImV4cCI6MjAwMDAwMDAwMH0.c2lnbmF0dXJlLWJ5dGVz';

describe('buildSocketUrl', () => {
  it('always sets vsn, whichever it is', () => {
    expect(buildSocketUrl('ws://127.0.0.1:4000/socket/websocket', { vsn: '1.0.0' })).toBe('ws://127.0.0.1:4000/socket/websocket?vsn=1.0.0');
    expect(buildSocketUrl('ws://127.0.0.1:4000/socket/websocket', { vsn: '2.0.0' })).toBe('ws://127.0.0.1:4000/socket/websocket?vsn=2.0.0');
  });

  it('replaces a vsn already in the URL or in the params: the framing must match it', () => {
    const u = new URL(buildSocketUrl('ws://h/socket/websocket?vsn=1.0.0', { vsn: '2.0.0', params: { vsn: '1.0.0' } }));
    expect(u.searchParams.getAll('vsn')).toEqual(['2.0.0']);
  });

  it('adds params and the apikey, keeping what the base URL had', () => {
    const u = new URL(buildSocketUrl('wss://abc.supabase.co/realtime/v1/websocket?x=1', { vsn: '2.0.0', params: { log_level: 'info' }, apikey: JWT }));
    expect(u.pathname).toBe('/realtime/v1/websocket');
    expect(Object.fromEntries(u.searchParams)).toEqual({ x: '1', vsn: '2.0.0', log_level: 'info', apikey: JWT });
  });

  it('no apikey parameter without a key', () => {
    for (const apikey of [null, undefined, '']) {
      expect(new URL(buildSocketUrl('ws://h/socket/websocket', { vsn: '1.0.0', apikey })).searchParams.has('apikey')).toBe(false);
    }
  });
});

describe('redact', () => {
  it.each(['apikey', 'access_token', 'token', 'jwt', 'APIKEY'])('hides the %s parameter value', (name) => {
    const out = redact(`ws://h/socket/websocket?vsn=2.0.0&${name}=sb_publishable_abc123&log_level=info`);
    expect(out).toBe(`ws://h/socket/websocket?vsn=2.0.0&${name}=***&log_level=info`);
  });

  it('hides a secret parameter first in the query and before a fragment', () => {
    expect(redact('ws://h/s?apikey=secret#frag')).toBe('ws://h/s?apikey=***#frag');
  });

  it('hides JWT-looking strings anywhere in text', () => {
    expect(redact(`upgrade refused: Authorization: Bearer ${JWT} was rejected`)).toBe('upgrade refused: Authorization: Bearer *** was rejected');
    expect(redact(`{"access_token":"${JWT}"}`)).toBe('{"access_token":"***"}');
    // An unsigned token (alg none) has an empty third part.
    expect(redact('x eyJhbGciOiJub25lIn0.eyJyb2xlIjoiYW5vbiJ9. y')).toBe('x *** y');
  });

  it('leaves other text alone', () => {
    const text = 'ws://127.0.0.1:4000/socket/websocket?vsn=2.0.0&log_level=info&refresh=eyJ';
    expect(redact(text)).toBe(text);
    expect(redact('closed by server: 1000 heartbeat timeout')).toBe('closed by server: 1000 heartbeat timeout');
  });

  it('nothing secret survives in a URL built with a key', () => {
    const out = redact(buildSocketUrl('ws://h/socket/websocket', { vsn: '1.0.0', apikey: JWT }));
    expect(out).not.toContain(JWT.slice(0, 20));
    expect(out).toContain('apikey=***');
  });
});

describe('isLoopbackHost', () => {
  it.each([
    ['ws://localhost:4000/socket/websocket', true],
    ['ws://127.0.0.1:4000/x', true],
    ['ws://127.9.8.7/x', true],
    ['ws://[::1]:4000/x', true],
    ['ws://10.0.0.1/x', false],
    ['wss://abc.supabase.co/realtime/v1/websocket', false],
    ['ws://127.example.com/x', false],
  ])('%s → %s', (url, expected) => {
    expect(isLoopbackHost(url)).toBe(expected);
  });
});
