import { describe, expect, it } from 'vitest';
import { Abort, AbortFunnel, timeoutAfter, withinOrNull } from '../../src/run/abort.js';

describe('abort funnel', () => {
  it('an abort ends every wait raced against it, with its status and reason', async () => {
    const f = new AbortFunnel();
    const waiting = f.race(new Promise(() => undefined));
    const sleeping = f.sleep(60_000);
    f.abort('interrupted', 'Ctrl-C');
    await expect(waiting).rejects.toMatchObject({ status: 'interrupted', message: 'Ctrl-C' });
    await expect(sleeping).rejects.toBeInstanceOf(Abort);
  });

  it('passes values through until then; timeouts abort; withinOrNull gives null', async () => {
    const f = new AbortFunnel();
    expect(await f.race(Promise.resolve(7))).toBe(7);
    await expect(timeoutAfter(5, 'slow')).rejects.toMatchObject({ status: 'aborted', message: 'slow' });
    expect(await withinOrNull(new Promise(() => undefined), 5)).toBeNull();
    expect(await withinOrNull(Promise.resolve(1), 1000)).toBe(1);
  });
});
