/**
 * Socket URL building (docs/PROTOCOL.md §1.1–§1.2). Hiding the tokens it carries is
 * redact/redact.ts.
 */
import { VSN_1, type Vsn } from '../protocol/constants.js';

export interface UrlOptions {
  vsn: Vsn;
  params?: Record<string, string>;
  /** Put the token in the `apikey` query parameter. */
  apikey?: string | null;
}

export function buildSocketUrl(base: string, opts: UrlOptions): string {
  const u = new URL(base);
  // Phoenix defaults to 1.0.0 when vsn is absent (docs/PROTOCOL.md §1.2); send it anyway so the
  // choice is explicit.
  for (const [k, v] of Object.entries(opts.params ?? {})) u.searchParams.set(k, v);
  // Set after the params: a `vsn` among them must not override the serializer rtcap speaks.
  u.searchParams.set('vsn', opts.vsn ?? VSN_1);
  if (opts.apikey) u.searchParams.set('apikey', opts.apikey);
  return u.toString();
}

export function isLoopbackHost(url: string): boolean {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  // An IPv4 literal in 127/8, not any name that starts with "127." (127.example.com is remote).
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}
