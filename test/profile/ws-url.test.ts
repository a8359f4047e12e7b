import { describe, expect, it } from 'vitest';
import { wsUrlProblem } from '../../src/profile/ws-url.js';
import { parseProfile } from '../../src/profile/load.js';

describe('wsUrlProblem', () => {
  it('accepts what can be dialled', () => {
    expect(wsUrlProblem('ws://127.0.0.1:4000/socket/websocket')).toBeNull();
    expect(wsUrlProblem('wss://abc.supabase.co/realtime/v1/websocket?apikey=x')).toBeNull();
    expect(wsUrlProblem('ws://user:p%40ss@[::1]:65535/socket')).toBeNull();
  });

  it('names the port that is not one, and other unusable URLs', () => {
    expect(wsUrlProblem('ws://127.0.0.1:99999/socket/websocket')).toBe(
      'port "99999" is not a port number (1–65535)',
    );
    expect(wsUrlProblem('ws://127.0.0.1:0/socket')).toBe('port "0" is not a port number (1–65535)');
    expect(wsUrlProblem('ws://h:4k/socket')).toBe('port "4k" is not a port number (1–65535)');
    expect(wsUrlProblem('ws://exa mple.com/socket')).toBe('is not a valid URL');
    expect(wsUrlProblem('http://h/socket')).toBe('must start with ws:// or wss://');
  });

  it('is checked where the profile is validated, naming the field', () => {
    const text =
      'name: t\nscenario: broadcast-public\ntarget:\n  url: ws://127.0.0.1:99999/socket/websocket\nload:\n  steps:\n    - { connections: 1, send_rate: 1, duration: 1s }\n';
    expect(() => parseProfile(text, { path: 'p.yaml', env: {} })).toThrow(
      'p.yaml:4:8: target.url: port "99999" is not a port number (1–65535)',
    );
  });
});
