/**
 * What `rtcap init --force` may overwrite: only a profile, never any other file a user names by
 * mistake (`--out package.json --force`). A profile is a YAML mapping with a `target` field, the
 * one field every rtcap profile has; a symbolic link is never written through, since its target
 * could be anything.
 */
import { lstatSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';

/** Why `path` may not be replaced by init, in a few words; null when it is an rtcap profile. */
export function notReplaceable(path: string): string | null {
  const st = lstatSync(path);
  if (st.isSymbolicLink()) return 'is a symbolic link';
  if (!st.isFile()) return 'is not a regular file';
  let doc: unknown;
  try {
    doc = parse(readFileSync(path, 'utf8'));
  } catch {
    return 'is not YAML, so not an rtcap profile';
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc) || !('target' in doc)) {
    return 'is not an rtcap profile (it has no target field)';
  }
  return null;
}
