/**
 * Interview links: `https://{host}/i/{code}` and `https://{host}/interviews/{code}` on one of the service's link
 * hosts. Parsed by hand: React Native's URL has no `protocol`, `host` or `pathname`, so `new URL(...)` would throw
 * into the app there. An app's own `https://shop.example/i/profile` is not an interview link.
 */
const CODE = /^[A-Za-z0-9_-]{4,64}$/;
const HTTPS = /^https:\/\/([^/?#@\s]+)(\/[^?#\s]*)?(?:\?[^#\s]*)?(?:#\S*)?$/i;

/** The lowercase host (with a non-default port) and path of an https URL, or null. */
export function httpsParts(url: string): { host: string; path: string } | null {
  const m = HTTPS.exec(url.trim());
  if (!m) return null;
  const host = m[1].toLowerCase().replace(/:443$/, "");
  return { host, path: m[2] ?? "/" };
}

/** `https://host[:port]` of an https URL, or null. */
export function originOf(url: string): string | null {
  const parts = httpsParts(url);
  return parts ? `https://${parts.host}` : null;
}

/** The invite code of an interview link on one of `hosts` (any host when `hosts` is undefined), or null. */
export function inviteCodeOf(link: string, hosts?: readonly string[]): string | null {
  const parts = httpsParts(link);
  if (!parts) return null;
  if (hosts && !hosts.some((h) => h.toLowerCase() === parts.host)) return null;
  const m = /^\/(?:i|interviews)\/([^/]+)\/?$/.exec(parts.path);
  return m && CODE.test(m[1]) ? m[1] : null;
}
