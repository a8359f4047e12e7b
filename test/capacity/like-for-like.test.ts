import { describe, expect, it } from 'vitest';
import { checkLikeForLike, targetKey } from '../../src/capacity/like-for-like.js';
import { loadRun, makeRun, makeStep } from '../fixtures/index.js';

const src = (dir: string, edit: (r: ReturnType<typeof makeRun>) => void = () => undefined) => {
  const r = makeRun('broadcast-public', [makeStep(1)]);
  edit(r);
  return { dir, result: r };
};

describe('like for like', () => {
  it('the seed fixtures are one target, one instance, one rtcap', () => {
    const s = ['seed-002-s1.1-connections', 'seed-002-s4-join-rate'].map((n) => ({
      dir: n,
      result: loadRun(n),
    }));
    expect(checkLikeForLike(s)).toEqual([]);
  });

  it('the built-in server is one target whatever its port', () => {
    const a = src('a', (r) => (r.target.url = 'ws://127.0.0.1:40001/socket/websocket'));
    const b = src('b', (r) => (r.target.url = 'ws://127.0.0.1:40999/socket/websocket'));
    expect(targetKey(a.result)).toBe('the built-in server');
    expect(checkLikeForLike([a, b])).toEqual([]);
  });

  it('refuses another target, another instance size and another rtcap major version, saying which', () => {
    const a = src('a', (r) =>
      Object.assign(r.target, {
        builtin: false,
        url: 'wss://one.example/socket/websocket?apikey=x',
      }),
    );
    const b = src('b', (r) =>
      Object.assign(r.target, { builtin: false, url: 'wss://two.example/socket/websocket' }),
    );
    const c = src('c', (r) =>
      Object.assign(r.target, {
        builtin: false,
        url: 'wss://one.example/socket/websocket',
        instance: { vcpus: 4, memory_mb: 8192 },
      }),
    );
    const d = src('d', (r) => {
      Object.assign(r.target, { builtin: false, url: 'wss://one.example/socket/websocket' });
      r.rtcap_version = '1.0.0';
    });
    const e = src('e', (r) =>
      Object.assign(r.target, { builtin: false, url: 'wss://one.example/socket/websocket' }),
    );
    const reasons = checkLikeForLike([a, b, c, d, e]);
    expect(reasons).toEqual([
      'b measured wss://two.example/socket/websocket, a measured wss://one.example/socket/websocket: one table is one target',
      'c ran on 4 vCPU / 8192 MB (server CPUs 1), a on 2 vCPU / 4096 MB (server CPUs 1): one table is one instance size',
      'd: measured with rtcap 1.0.0, a with 0.1.0 (major versions differ)',
    ]);
    expect(reasons.join('\n')).not.toContain('apikey');
  });
});
