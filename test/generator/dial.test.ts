import { describe, expect, it } from 'vitest';
import { dialOptions, dialTargetOf, type DialTarget } from '../../src/generator/dial.js';

const TARGET: DialTarget = {
  url: 'ws://127.0.0.1:4000/socket/websocket?vsn=1.0.0',
  headers: { 'user-agent': 'rtcap' },
  apikeyIn: 'query',
  sourceAddresses: [],
  handshakeTimeoutMs: 5000,
  tls: undefined,
};

describe('how a generator connection dials', () => {
  it('adds the token as the apikey query parameter, escaped', () => {
    const o = dialOptions(TARGET, 0, 1, 'a+b/c=');
    expect(o.url).toBe('ws://127.0.0.1:4000/socket/websocket?vsn=1.0.0&apikey=a%2Bb%2Fc%3D');
    expect(o.headers).toEqual({ 'user-agent': 'rtcap' });
    const bare = { ...TARGET, url: 'ws://h/socket/websocket' };
    expect(dialOptions(bare, 0, 1, 'k').url).toBe('ws://h/socket/websocket?apikey=k');
  });

  it('sends the token as x-api-key when asked, leaving the shared headers untouched', () => {
    const o = dialOptions({ ...TARGET, apikeyIn: 'header' }, 0, 1, 'k');
    expect(o.url).toBe(TARGET.url);
    expect(o.headers).toEqual({ 'user-agent': 'rtcap', 'x-api-key': 'k' });
    expect(TARGET.headers).toEqual({ 'user-agent': 'rtcap' });
  });

  it('dials without a token as the URL is', () => {
    const o = dialOptions(TARGET, 0, 1, null);
    expect(o).toMatchObject({ url: TARGET.url, handshakeTimeoutMs: 5000 });
  });

  it("spreads a process's connections over its source addresses in turn", () => {
    const t = { ...TARGET, sourceAddresses: ['127.0.0.2', '127.0.0.3'] };
    // Two processes: this one holds indexes 1, 3, 5, 7 (its 0th, 1st, 2nd, 3rd connection).
    const picked = [1, 3, 5, 7].map((i) => dialOptions(t, i, 2, null).localAddress);
    expect(picked).toEqual(['127.0.0.2', '127.0.0.3', '127.0.0.2', '127.0.0.3']);
    expect(dialOptions(TARGET, 1, 2, null).localAddress).toBeUndefined();
  });

  it("takes the target from the coordinator's init message, the join timeout as the handshake's", () => {
    const init = {
      url: TARGET.url,
      headers: TARGET.headers,
      sourceAddresses: ['127.0.0.2'],
      tokens: { apikeyIn: 'header' as const },
      profile: { target: { join_timeout: 7_000 } },
    };
    expect(dialTargetOf(init)).toEqual({
      ...TARGET,
      apikeyIn: 'header',
      sourceAddresses: ['127.0.0.2'],
      handshakeTimeoutMs: 7_000,
    });
  });
});
