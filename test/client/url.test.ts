import { describe, expect, it } from 'vitest';
import { buildSocketUrl, isLoopbackHost } from '../../src/client/url.js';

const JWT =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJyb2xlIjoiYW5vbiIsImV4cCI6MjAwMDAwMDAwMH0.c2lnbmF0dXJlLWJ5dGVz';

describe('buildSocketUrl', () => {
  it('always sets vsn, whichever it is', () => {
    expect(buildSocketUrl('ws://127.0.0.1:4000/socket/websocket', { vsn: '1.0.0' })).toBe(
      'ws://127.0.0.1:4000/socket/websocket?vsn=1.0.0',
    );
    expect(buildSocketUrl('ws://127.0.0.1:4000/socket/websocket', { vsn: '2.0.0' })).toBe(
      'ws://127.0.0.1:4000/socket/websocket?vsn=2.0.0',
    );
  });

  it('replaces a vsn already in the URL or in the params: the framing must match it', () => {
    const u = new URL(
      buildSocketUrl('ws://h/socket/websocket?vsn=1.0.0', {
        vsn: '2.0.0',
        params: { vsn: '1.0.0' },
      }),
    );
    expect(u.searchParams.getAll('vsn')).toEqual(['2.0.0']);
  });

  it('adds params and the apikey, keeping what the base URL had', () => {
    const u = new URL(
      buildSocketUrl('wss://abc.supabase.co/realtime/v1/websocket?x=1', {
        vsn: '2.0.0',
        params: { log_level: 'info' },
        apikey: JWT,
      }),
    );
    expect(u.pathname).toBe('/realtime/v1/websocket');
    expect(Object.fromEntries(u.searchParams)).toEqual({
      x: '1',
      vsn: '2.0.0',
      log_level: 'info',
      apikey: JWT,
    });
  });

  it('no apikey parameter without a key', () => {
    for (const apikey of [null, undefined, '']) {
      expect(
        new URL(
          buildSocketUrl('ws://h/socket/websocket', { vsn: '1.0.0', apikey }),
        ).searchParams.has('apikey'),
      ).toBe(false);
    }
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
