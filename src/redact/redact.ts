/**
 * The one place that decides what a secret looks like and hides it. Every writer of the run
 * directory, every log line and every error message rtcap prints goes through `redactText`;
 * the profile's structural redaction (profile/secrets.ts) uses `redactUrl` and
 * `isCredentialKey` from here, so a secret hidden in one place is hidden in all.
 *
 * Two nets: patterns (user:pass@ in any URL, credential-named query parameters, JWT-shaped
 * strings, Bearer tokens, `password=` in libpq strings, credential header lines of a quoted HTTP
 * head) catch secrets rtcap was never told about; the exact values it was told about (profile
 * secret fields, values the profile took from `${ENV}`, --url, token files, the built-in
 * server's JWT secret) are hidden wherever they turn up, whatever surrounds them, when
 * they are distinctive enough not to be a word of a name (isDistinctiveSecret); a short or
 * word-like one is hidden where it stands, by the patterns and the profile's structure.
 */

export const REDACTED = '***';

/** Keys whose values are credentials, in header maps, query-parameter maps and tenant configs. */
export function isCredentialKey(key: string): boolean {
  const k = key.toLowerCase().replace(/-/g, '_');
  return (
    [
      'authorization',
      'proxy_authorization',
      'cookie',
      'apikey',
      'api_key',
      'x_api_key',
      'jwt',
      'pwd',
      'passwd',
      'pass',
    ].includes(k) ||
    k.includes('secret') ||
    k.includes('password') ||
    k.endsWith('token')
  );
}

// scheme://user:password@ — the password goes, the user stays (it names the role, which helps).
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/[^\s:@/?#"'<>]*):[^\s@/?#"'<>]*@/gi;
// ?name=value or &name=value with a credential-like name; punctuation that ends a sentence
// ("…?apikey=x: refused") is not part of the value.
const QUERY_PARAM = /([?&;])([A-Za-z0-9_.-]+)=([^&#\s"'<>]*?)(?=[&#\s"'<>]|[:.,;)](?:\s|$)|$)/g;
const JWT_LIKE = /eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g;
// Token-shaped (10+ token characters), so prose such as "Bearer token for metrics_url" stays.
const BEARER = /\b(Bearer\s+)[A-Za-z0-9._~+/=-]{10,}/g;
// libpq keyword strings ("host=... password=...") and similar key=value text.
const KEYWORD_PASSWORD = /\b(password|passwd|pwd)(\s*=\s*)('[^']*'|"[^"]*"|[^\s&,;"']+)/gi;

// A quoted HTTP head: its request or status line names the version ("GET / HTTP/1.1").
const HTTP_HEAD = /\bHTTP\/\d/;
// A header whose value is a credential: cookies, Authorization, and any name that says token, key,
// secret, auth, session or password (X-Api-Token, X-Session-Id).
const CREDENTIAL_HEADER = /cookie|auth|token|key|secret|session|passw/i;
// "Name: value" on a line of its own; the value runs to the end of the line.
const HEADER_LINE = /^([ \t]*)([A-Za-z][A-Za-z0-9_-]*)([ \t]*:[ \t]*)(\S[^\r\n]*?)(?=[ \t]*$)/gm;
// The same head flattened onto one line ("… HTTP/1.1 Cookie: a=1; b=2 X-Api-Token: t"): the value
// is an optional scheme word and one run, or a cookie list of runs joined by ";".
const HEADER_INLINE =
  /(^|\s)([A-Za-z][A-Za-z0-9_-]*)(:[ \t]+)((?:(?:Bearer|Basic|Digest|Token)[ \t]+)?[^\s;]+(?:;[ \t]*[^\s;]+)*;?)/g;

/**
 * A server's quoted HTTP head (a refusal's status line and headers, an echoed request) with the
 * value of every credential-looking header line hidden where it stands, the names kept: a short
 * cookie ("sb=abc1") is no pattern and no registered secret, only its place says what it is.
 */
export function redactHttpHead(text: string): string {
  const hide = (m: string, ...[lead, name, sep, value]: string[]): string =>
    CREDENTIAL_HEADER.test(name) && value !== REDACTED ? `${lead}${name}${sep}${REDACTED}` : m;
  return text.replace(HEADER_LINE, hide).replace(HEADER_INLINE, hide);
}

/**
 * Hides the password of `user:pass@` and credential query parameters of a URL; keeps the rest
 * readable.
 */
export function redactUrl(url: string): string {
  return redactPatterns(url);
}

function redactPatterns(text: string): string {
  return (HTTP_HEAD.test(text) ? redactHttpHead(text) : text)
    .replace(USERINFO, `$1:${REDACTED}@`)
    .replace(QUERY_PARAM, (m, sep: string, name: string, value: string) =>
      value && value !== REDACTED && isCredentialKey(name) ? `${sep}${name}=${REDACTED}` : m,
    )
    .replace(JWT_LIKE, REDACTED)
    .replace(BEARER, `$1${REDACTED}`)
    .replace(KEYWORD_PASSWORD, `$1$2${REDACTED}`);
}

/**
 * Secret values rtcap was given, hidden verbatim. Process-wide on purpose: a secret is a fact
 * about the process, and every writer must know it without being handed it.
 */
const known = new Set<string>();
let knownSorted: string[] = [];

/**
 * Only a value that cannot be a word of anything else rtcap writes is hidden verbatim wherever it
 * turns up: 20 characters or more, or 12 or more with a capital or a symbol. A short or
 * word-like secret ("postgres" as a database password) would otherwise become "***" inside the
 * scenario postgres-changes and every run id that names it; such a value is hidden where it
 * stands instead (the URL's password, the secret fields, a header's value: the patterns above
 * and the profile's structural redaction).
 */
export function isDistinctiveSecret(value: string): boolean {
  return value.length >= 20 || (value.length >= 12 && /[^a-z0-9_-]/.test(value));
}

/** Adds values to hide wherever they appear, in the forms they take in URLs and JSON too. */
export function registerSecrets(values: Iterable<string | null | undefined>): void {
  let added = false;
  for (const v of values) {
    if (typeof v !== 'string') continue;
    const s = v.trim();
    if (!isDistinctiveSecret(s)) continue;
    for (const form of [s, encodeURIComponent(s), JSON.stringify(s).slice(1, -1)]) {
      if (!known.has(form)) {
        known.add(form);
        added = true;
      }
    }
  }
  // Longest first: a secret that contains another is replaced whole.
  if (added) knownSorted = [...known].sort((a, b) => b.length - a.length);
}

/** The secrets a URL carries: its password and the values of its credential query parameters. */
export function urlSecrets(url: string): string[] {
  const out: string[] = [];
  try {
    const u = new URL(url);
    if (u.password) out.push(decodeURIComponent(u.password), u.password);
    for (const [k, v] of u.searchParams) if (isCredentialKey(k) && v) out.push(v);
  } catch {
    const m = /^[a-z][a-z0-9+.-]*:\/\/[^:@/?#]*:([^@/?#]*)@/i.exec(url);
    if (m) out.push(m[1]);
  }
  return out;
}

/** Forgets every registered value (tests). */
export function clearSecrets(): void {
  known.clear();
  knownSorted = [];
}

/** `text` with every known secret and every secret-shaped substring replaced by "***". */
export function redactText(text: string): string {
  let out = text;
  for (const s of knownSorted) if (out.includes(s)) out = out.split(s).join(REDACTED);
  return redactPatterns(out);
}

/** The most of one value (a run of text without spaces) a message quotes. */
export const MAX_QUOTED_CHARS = 200;

/**
 * `text` with every run of more than `max` non-space characters cut to its first `max` and a
 * count of the rest: a 120 KB --set value or URL is named, not echoed whole.
 */
export function clipLongRuns(text: string, max = MAX_QUOTED_CHARS): string {
  return text.replace(
    new RegExp(`\\S{${max + 1},}`, 'g'),
    (run) => `${run.slice(0, max)}… (${run.length - max} more characters)`,
  );
}

/** An error's message, redacted, as one line: what a user is shown when something fails. */
export function errorLine(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  return clipLongRuns(redactText(msg.split('\n').find((l) => l.trim()) ?? msg).trim());
}
