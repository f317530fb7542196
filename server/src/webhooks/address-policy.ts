/**
 * Which receiver addresses the server may call (server-side request forgery). Private, shared, link-local,
 * unspecified, multicast, reserved and documentation ranges, and cloud metadata names, are never called. Loopback
 * is the documented local-development exception (`WEBHOOK_ALLOW_LOOPBACK`, on by default in the sandbox), so a
 * client team can point the sandbox at a receiver on its own machine. Checked at PUT (literal addresses and known
 * names) and again at every delivery after DNS resolution, with the connection pinned to the address checked, so
 * a name cannot resolve to a public address at PUT and a private one at delivery.
 */
import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

export interface AddressPolicy {
  /** Allow loopback receivers (127.0.0.0/8, ::1, localhost); http:// is accepted only for them. */
  allowLoopback: boolean;
}

export type AddressClass = "public" | "loopback" | "blocked";

/**
 * IANA's IPv4 special-purpose address registry (RFC 6890 and its updates), plus multicast and the limited broadcast:
 * none of it is a place for a webhook receiver. Loopback (127.0.0.0/8) is classified apart, for the exception.
 */
export const BLOCKED_V4: ReadonlyArray<readonly [string, number]> = [
  ["0.0.0.0", 8], ["10.0.0.0", 8], ["100.64.0.0", 10], ["169.254.0.0", 16], ["172.16.0.0", 12], ["192.0.0.0", 24],
  ["192.0.2.0", 24], ["192.31.196.0", 24], ["192.52.193.0", 24], ["192.88.99.0", 24], ["192.168.0.0", 16], ["192.175.48.0", 24],
  ["198.18.0.0", 15], ["198.51.100.0", 24], ["203.0.113.0", 24], ["224.0.0.0", 4], ["240.0.0.0", 4], ["255.255.255.255", 32],
];

/**
 * IANA's IPv6 special-purpose address registry, whole blocks refused. The blocks that carry an IPv4 address and that a
 * real receiver may sit behind (IPv4-mapped, IPv4-compatible, IPv4-translated, NAT64 64:ff9b::/96) are not listed:
 * their IPv4 address is judged by the IPv4 rules instead. 6to4 (2002::/16) and Teredo (2001::/32, inside 2001::/23)
 * are refused whole: they tunnel to an IPv4 address of their own choosing.
 */
export const BLOCKED_V6: ReadonlyArray<readonly [string, number]> = [
  ["::", 128], ["100::", 64], ["100:0:0:1::", 64], ["64:ff9b:1::", 48], ["2001::", 23], ["2001:db8::", 32], ["2002::", 16],
  ["3fff::", 20], ["5f00::", 16], ["fc00::", 7], ["fe80::", 10], ["fec0::", 10], ["ff00::", 8],
];

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet("127.0.0.0", 8, "ipv4");
LOOPBACK.addAddress("::1", "ipv6");

const BLOCKED = new BlockList();
for (const [net, bits] of BLOCKED_V4) BLOCKED.addSubnet(net, bits, "ipv4");
for (const [net, bits] of BLOCKED_V6) BLOCKED.addSubnet(net, bits, "ipv6");

/** Names that reach instance metadata or internal services whatever DNS says. */
const BLOCKED_NAMES = /^(metadata|metadata\.google\.internal|metadata\.goog|instance-data|instance-data\.ec2\.internal|.+\.internal)$/i;

/** The eight 16-bit words of an IPv6 address in any spelling (`::` compression, a trailing dotted IPv4). */
export function ipv6Words(ip: string): number[] | null {
  let text = ip.toLowerCase().replace(/%.*$/, "");
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const b = dotted.slice(1).map(Number);
    if (b.some((x) => x > 255)) return null;
    text = `${text.slice(0, dotted.index)}${((b[0] << 8) | b[1]).toString(16)}:${((b[2] << 8) | b[3]).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const part = (h: string) => (h === "" ? [] : h.split(":").map((w) => (/^[0-9a-f]{1,4}$/.test(w) ? parseInt(w, 16) : NaN)));
  const head = part(halves[0]);
  const tail = halves.length === 2 ? part(halves[1]) : [];
  const fill = 8 - head.length - tail.length;
  if (halves.length === 1 ? head.length !== 8 : fill < 1) return null;
  const words = [...head, ...new Array(halves.length === 2 ? fill : 0).fill(0), ...tail];
  return words.some(Number.isNaN) ? null : words;
}

const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/**
 * The IPv4 address an IPv6 address carries where a receiver may really sit behind it: IPv4-mapped (::ffff:0:0/96),
 * IPv4-compatible (::/96, deprecated), IPv4-translated (::ffff:0:0:0/96) and NAT64 (64:ff9b::/96).
 */
export function embeddedV4(ip: string): string | null {
  const w = ipv6Words(ip);
  if (!w) return null;
  const zero = (from: number, to: number) => w.slice(from, to).every((x) => x === 0);
  if (zero(0, 5) && w[5] === 0xffff) return v4(w[6], w[7]); // ::ffff:a.b.c.d
  if (zero(0, 4) && w[4] === 0xffff && w[5] === 0) return v4(w[6], w[7]); // ::ffff:0:a.b.c.d
  if (w[0] === 0x64 && w[1] === 0xff9b && zero(2, 6)) return v4(w[6], w[7]); // 64:ff9b::a.b.c.d
  if (zero(0, 6) && (w[6] !== 0 || w[7] > 1)) return v4(w[6], w[7]); // ::a.b.c.d (not :: or ::1)
  return null;
}

export function classifyAddress(ip: string): AddressClass {
  const family = isIP(ip);
  if (family === 0) return "blocked";
  if (family === 6) {
    const inner = embeddedV4(ip);
    if (inner) return classifyAddress(inner);
  }
  const type = family === 4 ? "ipv4" : "ipv6";
  if (LOOPBACK.check(ip, type)) return "loopback";
  return BLOCKED.check(ip, type) ? "blocked" : "public";
}

const bare = (hostname: string) => hostname.replace(/^\[|\]$/g, "").replace(/\.$/, "").toLowerCase();

/** What a hostname is before DNS: a literal address's class, loopback names, blocked names, or null (resolve it). */
export function classifyHost(hostname: string): AddressClass | null {
  const host = bare(hostname);
  if (isIP(host)) return classifyAddress(host);
  if (host === "localhost" || host.endsWith(".localhost")) return "loopback";
  if (BLOCKED_NAMES.test(host)) return "blocked";
  return null;
}

/** Why a webhook URL may not be registered, or null. */
export function urlProblem(raw: string, policy: AddressPolicy): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "must be an absolute URL";
  }
  if (url.username || url.password) return "must not contain credentials";
  if (url.protocol !== "https:" && url.protocol !== "http:") return "must be an https:// URL";
  const kind = classifyHost(url.hostname);
  if (kind === "blocked") return "must not point to a private, link-local, metadata or reserved address";
  if (kind === "loopback") return policy.allowLoopback ? null : "must not point to a loopback address (the local-development exception is off)";
  return url.protocol === "https:" ? null : "must be an https:// URL (http:// is accepted only for loopback hosts)";
}

export type Resolution = { ok: true; address: string; family: 4 | 6 } | { ok: false; reason: string };

/** Resolves a receiver's host and checks every address it has; the first allowed one is where to connect. */
export async function resolveReceiver(hostname: string, policy: AddressPolicy): Promise<Resolution> {
  const host = bare(hostname);
  const named = classifyHost(host);
  if (named === "blocked") return { ok: false, reason: "address not allowed" };
  let addresses: Array<{ address: string; family: number }>;
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = await lookup(host, { all: true, verbatim: true });
    } catch {
      return { ok: false, reason: "name not resolved" };
    }
  }
  // Every address must be allowed: a name with one private address among public ones is refused.
  for (const a of addresses) {
    const kind = classifyAddress(a.address);
    if (kind === "blocked" || (kind === "loopback" && !policy.allowLoopback)) return { ok: false, reason: "address not allowed" };
  }
  if (!addresses.length) return { ok: false, reason: "name not resolved" };
  return { ok: true, address: addresses[0].address, family: addresses[0].family === 6 ? 6 : 4 };
}
