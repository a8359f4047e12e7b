/**
 * Secrets out of the manifests (`rtcap k8s`): every literal secret of the profile (the fields
 * the schema marks `secret`: API key, JWT secret, tokens, credential headers, a URL's password
 * or token parameter) and a --url that carries one are moved into a Kubernetes Secret. The
 * ConfigMap's profile refers to them as `${RTCAP_SECRET_n}` (profile env expansion, fields marked
 * `env`) and the args as `$(RTCAP_URL)` (Kubernetes expands it from the container's env), the
 * env coming from the Secret by secretKeyRef. A secret in a field that cannot take `${ENV}` is
 * refused in one line rather than written into a ConfigMap. A `${NAME}` the profile already
 * refers to is passed to the pods the same way, from the environment `rtcap k8s` runs in.
 */
import { parseDocument } from 'yaml';
import { profileSchema } from '../profile/schema.js';
import type { PathSegment } from '../profile/introspect.js';
import { secretLeaves } from '../profile/secrets.js';
import { urlSecrets } from '../redact/redact.js';

/** The env var the --url is passed in when it carries a secret. */
export const URL_ENV = 'RTCAP_URL';
const secretEnv = (n: number) => `RTCAP_SECRET_${n}`;

export interface SplitSecrets {
  /** The profile as written, each literal secret replaced by `${RTCAP_SECRET_n}`. */
  profileYaml: string;
  /** The --url for the args: `$(RTCAP_URL)` when it carries a secret. */
  url?: string;
  /** Env var name → secret value: the Secret's data (empty: no Secret needed). */
  secrets: Record<string, string>;
  /** `${NAME}` references of the profile not set where `rtcap k8s` ran: the pods will lack them. */
  missingEnv: string[];
}

/** The `${NAME}` references of a profile text (`$${` is a literal). */
export function envReferences(text: string): string[] {
  const names = new Set<string>();
  for (const m of text.matchAll(/\$?\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g))
    if (!m[0].startsWith('$$')) names.add(m[1]);
  return [...names];
}

export class SecretPlacementError extends Error {}

interface Leaf {
  path: PathSegment[];
  value: string;
  /** The profile expands `${ENV}` here. */
  env: boolean;
}

/** A value that is already an env reference is not a literal secret. */
const isLiteral = (v: unknown): v is string | number =>
  (typeof v === 'string' && v !== '' && !v.includes('${')) || typeof v === 'number';

/** Every literal secret of a profile document, with where it is (profile/secrets secretLeaves). */
export function literalSecrets(value: unknown): Leaf[] {
  return secretLeaves(value, profileSchema).flatMap(({ path, value: v, kind, env }): Leaf[] => {
    if (kind === 'url')
      return typeof v === 'string' && !v.includes('${') && urlSecrets(v).length > 0
        ? [{ path, value: v, env }]
        : [];
    return isLiteral(v) ? [{ path, value: String(v), env: env && typeof v === 'string' }] : [];
  });
}

export function splitSecrets(
  profileYaml: string,
  url?: string,
  env: NodeJS.ProcessEnv = {},
): SplitSecrets {
  const doc = parseDocument(profileYaml);
  const leaves = literalSecrets(doc.toJS());
  const secrets: Record<string, string> = {};
  leaves.forEach((leaf, n) => {
    const where = leaf.path.join('.');
    if (!leaf.env)
      throw new SecretPlacementError(
        `${where}: a secret in a field that cannot take \${ENV}; it would be written into the ConfigMap. Move it to a field that can (target.auth.apikey, target.auth.jwt_secret, target.headers, target.url) or leave it out`,
      );
    secrets[secretEnv(n)] = leaf.value;
    doc.setIn(leaf.path, `\${${secretEnv(n)}}`);
  });
  const text = doc.toString();
  // A secret value elsewhere in the text (a comment, an anchor) would still reach the ConfigMap.
  for (const leaf of leaves)
    if (text.includes(leaf.value))
      throw new SecretPlacementError(
        `${leaf.path.join('.')}: its secret value also appears elsewhere in the profile (a comment?); remove it there`,
      );
  // References the user wrote stay references; their values travel like the secrets.
  const missingEnv: string[] = [];
  for (const name of envReferences(profileYaml)) {
    const v = env[name];
    if (v === undefined) missingEnv.push(name);
    else secrets[name] = v;
  }
  let urlArg = url;
  if (url && urlSecrets(url).length > 0) {
    secrets[URL_ENV] = url;
    urlArg = `$(${URL_ENV})`;
  }
  return {
    profileYaml: text,
    ...(urlArg !== undefined ? { url: urlArg } : {}),
    secrets,
    missingEnv,
  };
}
