/**
 * Whether a target URL can be dialled at all, checked when the profile or `--url` is read: a
 * URL that WHATWG parsing refuses (a port above 65535, a space in the host) would otherwise pass
 * validation and abort the run later with "Invalid URL", after the server and generator started.
 */

/** Why `url` is not a usable WebSocket URL (one phrase), or null. */
export function wsUrlProblem(url: string): string | null {
  if (!/^wss?:\/\//.test(url)) return 'must start with ws:// or wss://';
  // The port as written (after any user:password@): WHATWG only says "Invalid URL", so the
  // commonest slip is named here.
  const authority = url.replace(/^wss?:\/\//, '').split(/[/?#]/)[0];
  const hostPort = authority.slice(authority.lastIndexOf('@') + 1);
  const port = /:([^:\]]*)$/.exec(hostPort.replace(/^\[[^\]]*\]/, ''))?.[1];
  if (
    port !== undefined &&
    port !== '' &&
    (!/^\d+$/.test(port) || Number(port) < 1 || Number(port) > 65535)
  ) {
    return `port ${JSON.stringify(port)} is not a port number (1–65535)`;
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not a valid URL';
  }
  if (parsed.hostname === '') return 'has no host';
  return null;
}
