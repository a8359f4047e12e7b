import { describe, expect, it } from 'vitest';
import {
  Abort,
  AbortFunnel,
  interruptAbort,
  raceTimer,
  timeoutAfter,
  withinOrNull,
} from '../../src/run/abort.js';

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
    await expect(timeoutAfter(5, 'slow')).rejects.toMatchObject({
      status: 'aborted',
      message: 'slow',
    });
    expect(await withinOrNull(new Promise(() => undefined), 5)).toBeNull();
    expect(await withinOrNull(Promise.resolve(1), 1000)).toBe(1);
  });

  it('a race won by the promise clears its timer: nothing keeps the process alive afterwards', async () => {
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timers();
    // A 10 s stop grace left pending kept every run alive 10 s after it had written its results.
    expect(await raceTimer(Promise.resolve('gone'), 10_000, 'grace over')).toBe('gone');
    expect(await withinOrNull(Promise.resolve(2), 10_000)).toBe(2);
    expect(timers()).toBe(before);
    expect(await raceTimer(new Promise(() => undefined), 5, 'grace over')).toBe('grace over');
  });
});

describe('what cut the run short', () => {
  it('an interrupt names the signal the CLI aborted with; any other abort, its reason', () => {
    const ac = new AbortController();
    ac.abort('SIGINT');
    expect(interruptAbort(ac.signal)).toMatchObject({
      status: 'interrupted',
      message: 'interrupted by the user (SIGINT)',
      by: 'SIGINT',
    });
    // SIGTERM comes from whatever stops the process, not necessarily the user.
    const term = new AbortController();
    term.abort('SIGTERM');
    expect(interruptAbort(term.signal)).toMatchObject({
      status: 'interrupted',
      message: 'terminated by SIGTERM',
      by: 'SIGTERM',
    });
    // A signal aborted without a name (a library's own AbortController).
    const plain = new AbortController();
    plain.abort();
    expect(interruptAbort(plain.signal)).toMatchObject({
      message: 'interrupted by the user (SIGINT/SIGTERM)',
      by: 'an interrupt',
    });
    expect(new Abort('aborted', 'ramp did not finish within 610 s').by).toBe(
      'ramp did not finish within 610 s',
    );
  });
});
