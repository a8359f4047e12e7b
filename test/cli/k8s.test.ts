/**
 * Split runs that cannot be right are refused: `rtcap k8s` and `rtcap run --segment` without
 * a shared target (each pod or segment would start its own built-in server), and `rtcap k8s`
 * of a profile `rtcap run` would refuse. Through main(), in this process: nothing starts.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { cliInProcess } from '../support/cli-in-process.js';
import { tempDir } from '../support/temp-dir.js';

const work = tempDir('rtcap-k8s-cli-');
afterAll(() => rmSync(work, { recursive: true, force: true }));
const STEPS = 'load:\n  steps:\n    - { connections: 2, duration: 1s }\n';
const file = (name: string, text: string) => {
  const p = join(work, name);
  writeFileSync(p, text);
  return p;
};
const builtin = file('builtin.yaml', `name: b\nscenario: broadcast-public\n${STEPS}`);
const shared = file(
  'shared.yaml',
  `name: s\nscenario: broadcast-public\ntarget: { url: ws://10.0.0.5:4000/socket/websocket }\n${STEPS}`,
);
const fromEnv = file(
  'env.yaml',
  `name: e\nscenario: broadcast-public\ntarget: { url: "\${RTCAP_K8S_TEST_URL}" }\n${STEPS}`,
);

afterEach(() => {
  vi.restoreAllMocks();
  process.exitCode = 0;
});
const cli = cliInProcess;
const K8S = ['--agents', '3', '--image', 'rtcap:1'];
const REASON = 'a split run needs one shared target: give --url or target.url';

describe('rtcap k8s', () => {
  it('without --url or target.url: exit 2, the reason, no manifests', async () => {
    const r = await cli('k8s', builtin, ...K8S);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(
      new RegExp(`^rtcap k8s: ${REASON} \\(without one, each part starts its own built-in server`),
    );
    expect(r.out).toBe('');
  });

  it('with --url, target.url, or a target.url whose variable is set where the pods run: manifests', async () => {
    for (const args of [
      [builtin, '--url', 'ws://10.0.0.5:4000/socket/websocket'],
      [shared],
      [fromEnv],
    ]) {
      const r = await cli('k8s', ...args, ...K8S);
      expect({ args, code: r.code }).toEqual({ args, code: 0 });
      expect(r.out).toContain('kind: Job');
    }
  });

  it('validates the profile as run does: no ConfigMap of a profile run would refuse', async () => {
    const bad = file(
      'bad.yaml',
      `name: x\nscenario: broadcast-public\ntarget: { url: ws://h/socket }\nload:\n  join_rte: 5\n  steps:\n    - { connections: 2, duration: fast }\n`,
    );
    const r = await cli('k8s', bad, ...K8S);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toContain(`${bad}:5:3: load.join_rte: unknown field (did you mean "join_rate"?)`);
    expect(r.err).toContain(`${bad}:7:35: load.steps.0.duration: not a duration: "fast"`);
  });
});

describe('rtcap run --segment', () => {
  it('without --url or target.url: exit 2 before anything starts', async () => {
    const r = await cli(
      'run',
      builtin,
      '--segment',
      '0/2',
      '--run-name',
      'r1',
      '--out',
      join(work, 'seg'),
    );
    expect(r.code).toBe(2);
    expect(r.err).toMatch(new RegExp(`^rtcap run --segment: ${REASON}`));
    expect(r.err.trimEnd().split('\n')).toHaveLength(1);
  });
});

describe('rtcap k8s says only what is true', () => {
  it('refuses a loopback target: exit 2, one line, no manifests', async () => {
    const loop = file(
      'loop.yaml',
      `name: l\nscenario: broadcast-public\ntarget: { url: ws://127.0.0.1:4000/socket/websocket }\n${STEPS}`,
    );
    for (const args of [[loop], [builtin, '--url', 'ws://localhost:4000/socket/websocket']]) {
      const r = await cli('k8s', ...args, ...K8S);
      expect(r.code).toBe(2);
      expect(r.out).toBe('');
      expect(r.err).toMatch(
        /^rtcap k8s: (127\.0\.0\.1|localhost):4000 is a loopback address: no pod can reach this machine's 127\.0\.0\.1 /,
      );
      expect(r.err.trimEnd().split('\n')).toHaveLength(1);
    }
  });

  it('names a file in "kubectl apply -f" only when it wrote one', async () => {
    const printed = await cli('k8s', shared, ...K8S);
    expect(printed.out).toContain('kind: Job');
    expect(printed.err).not.toContain('kubectl apply -f manifests.yaml');
    expect(printed.err).toContain('kubectl apply -f -   # the manifests printed above, piped');
    const path = join(work, 'written.yaml');
    const written = await cli('k8s', shared, ...K8S, '--out', path);
    expect(written.out).toBe('');
    expect(written.err).toContain(`kubectl apply -f ${path}\n`);
    expect(readFileSync(path, 'utf8')).toContain('kind: Job');
  });
});
