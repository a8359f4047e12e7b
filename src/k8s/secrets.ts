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
import {
  childSchema,
  fieldInfo,
  typeSchema,
  type PathSegment,
  type Schema,
} from '../profile/introspect.js';
import { isCredentialKey, urlSecrets } from '../redact/redact.js';

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

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
/** A value that is already an env reference is not a literal secret. */
const isLiteral = (v: unknown): v is string | number =>
  (typeof v === 'string' && v !== '' && !v.includes('${')) || typeof v === 'number';

/**
 * Values under credential keys (at any depth) of a map field; only a top-level string of an `env`
 * map is expanded.
 */
function keyedLeaves(
  value: unknown,
  path: PathSegment[],
  env: boolean,
  out: Leaf[],
  depth = 0,
): void {
  const entries: [PathSegment, unknown][] = Array.isArray(value)
    ? value.map((v, i) => [i, v])
    : isPlainObject(value)
      ? Object.entries(value)
      : [];
  for (const [k, v] of entries) {
    if (typeof k === 'string' && isCredentialKey(k) && isLiteral(v))
      out.push({
        path: [...path, k],
        value: String(v),
        env: env && depth === 0 && typeof v === 'string',
      });
    else keyedLeaves(v, [...path, k], env, out, depth + 1);
  }
}

/**
 * Every literal secret of a profile document, with where it is (mirrors profile/secrets
 * secretValues).
 */
export function secretLeaves(
  value: unknown,
  schema: Schema = profileSchema,
  path: PathSegment[] = [],
  out: Leaf[] = [],
): Leaf[] {
  const t = typeSchema(schema);
  const entries: [PathSegment, unknown][] = Array.isArray(value)
    ? value.map((v, i) => [i, v])
    : isPlainObject(value)
      ? Object.entries(value)
      : [];
  for (const [k, v] of entries) {
    const child = childSchema(t, k);
    const at = [...path, k];
    if (child === null) {
      keyedLeaves(v, at, false, out);
      continue;
    }
    const meta = fieldInfo(child).meta;
    switch (meta.secret) {
      case 'value':
        if (isLiteral(v))
          out.push({ path: at, value: String(v), env: meta.env === true && typeof v === 'string' });
        break;
      case 'url':
        if (typeof v === 'string' && !v.includes('${') && urlSecrets(v).length > 0)
          out.push({ path: at, value: v, env: meta.env === true });
        break;
      case 'keys':
        keyedLeaves(v, at, meta.env === true, out);
        break;
      default:
        secretLeaves(v, child, at, out);
    }
  }
  return out;
}

export function splitSecrets(
  profileYaml: string,
  url?: string,
  env: NodeJS.ProcessEnv = {},
): SplitSecrets {
  const doc = parseDocument(profileYaml);
  const leaves = secretLeaves(doc.toJS());
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
