/**
 * A profile asking for link loss where the kernel has no netem is refused before anything
 * starts: one line naming generator.link.loss and why, exit 2, for `rtcap run` and `rtcap sweep`.
 * Through main(), in this process, on real files; nothing here starts a run.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { netemUnavailable } from '../../src/link/netem.js';
import { cliInProcess } from '../support/cli-in-process.js';

const work = mkdtempSync(join(tmpdir(), 'rtcap-refuse-link-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
afterEach(() => {
  vi.restoreAllMocks();
  process.exitCode = 0;
});

const profile = (link: string) => {
  const p = join(work, `p-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(
    p,
    [
      'name: l',
      'scenario: broadcast-public',
      'load:',
      '  steps:',
      '    - { connections: 1, duration: 1s }',
      'generator:',
      `  link: ${link}`,
      '',
    ].join('\n'),
  );
  return p;
};

const noNetem = netemUnavailable();

describe('generator.link refusals', () => {
  it.skipIf(noNetem === null)(
    `loss without netem: one line, exit 2 (here: ${noNetem ?? 'netem works, so loss is accepted'})`,
    async () => {
      const p = profile('{ delay: 50ms, jitter: 5ms, loss: 0.5% }');
      const line = `generator.link.loss: needs the kernel's netem qdisc, which this host cannot give: ${noNetem}; loss on TCP cannot be emulated faithfully in userspace, delay and jitter can\n`;
      for (const cmd of ['run', 'sweep']) {
        const r = await cliInProcess(cmd, p, '--out', join(work, `out-${cmd}`));
        expect(r.err).toBe(line);
        expect(r.code).toBe(2);
      }
    },
  );

  it('a jitter above the delay, or a loss that is not a percentage, is a profile error', async () => {
    const jitter = await cliInProcess('run', profile('{ delay: 5ms, jitter: 10ms }'));
    expect(jitter.code).toBe(2);
    expect(jitter.err).toMatch(/generator\.link\.jitter.*10 ms is more than the delay \(5 ms\)/);
    const loss = await cliInProcess('run', profile('{ delay: 5ms, loss: lots }'));
    expect(loss.code).toBe(2);
    expect(loss.err).toMatch(/generator\.link\.loss.*not a percentage from 0 to 100: "lots"/);
  });
});
