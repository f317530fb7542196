/** Interview links: `https://{host}/i/{code}` and `https://{host}/interviews/{code}`. */
const CODE = /^[A-Za-z0-9_-]{4,64}$/;

export function inviteCodeOf(link: string): string | null {
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    return null;
  }
  if (url.protocol !== "https:") return null;
  const m = /^\/(?:i|interviews)\/([^/]+)\/?$/.exec(url.pathname);
  return m && CODE.test(m[1]) ? m[1] : null;
}
