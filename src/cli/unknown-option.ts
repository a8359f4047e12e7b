/**
 * An option the command does not know, found in the arguments when yargs complains of something
 * else first. yargs reads an unknown `--nope` as taking the next argument as its value, so in
 * `rtcap run --nope profile.yaml` the profile is taken and yargs says "Not enough non-option
 * arguments: got 0, need at least 1" before its strict check could name `--nope`: the message
 * would send the user looking for a missing profile that is there.
 */

/** `foo-bar` for `fooBar`: yargs accepts both spellings of a declared option. */
function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/**
 * The first long option in `argv` (before a lone `--`) that is none of `known` (option names as
 * declared, with their aliases), nor `--no-` one of them; its name without dashes, or null.
 */
export function unknownLongOption(argv: readonly string[], known: Iterable<string>): string | null {
  const names = new Set<string>();
  for (const k of known) names.add(kebab(k));
  for (const arg of argv) {
    if (arg === '--') return null;
    if (!arg.startsWith('--') || arg.length < 3) continue;
    const name = kebab(arg.slice(2).split('=', 1)[0]);
    if (names.has(name)) continue;
    if (name.startsWith('no-') && names.has(name.slice(3))) continue;
    return name;
  }
  return null;
}
