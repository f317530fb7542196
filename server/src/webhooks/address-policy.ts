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

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet("127.0.0.0", 8, "ipv4");
LOOPBACK.addAddress("::1", "ipv6");

const BLOCKED = new BlockList();
for (const [net, bits] of [
  ["0.0.0.0", 8], ["10.0.0.0", 8], ["100.64.0.0", 10], ["169.254.0.0", 16], ["172.16.0.0", 12], ["192.0.0.0", 24], ["192.0.2.0", 24],
  ["192.88.99.0", 24], ["192.168.0.0", 16], ["198.18.0.0", 15], ["198.51.100.0", 24], ["203.0.113.0", 24], ["224.0.0.0", 4], ["240.0.0.0", 4],
] as const) BLOCKED.addSubnet(net, bits, "ipv4");
for (const [net, bits] of [["::", 128], ["100::", 64], ["2001:db8::", 32], ["fc00::", 7], ["fe80::", 10], ["fec0::", 10], ["ff00::", 8]] as const) BLOCKED.addSubnet(net, bits, "ipv6");

/** Names that reach instance metadata or internal services whatever DNS says. */
const BLOCKED_NAMES = /^(metadata|metadata\.google\.internal|metadata\.goog|instance-data|instance-data\.ec2\.internal|.+\.internal)$/i;

/** The IPv4 address an IPv6 address carries (IPv4-mapped ::ffff:0:0/96, IPv4-compatible, NAT64 64:ff9b::/96), if any. */
function embeddedV4(ip: string): string | null {
  const lower = ip.toLowerCase();
  const dotted = /^(?:::ffff:|::|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (!hex) return null;
  const [hi, lo] = [parseInt(hex[1], 16), parseInt(hex[2], 16)];
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

export function classifyAddress(ip: string): AddressClass {
  const family = isIP(ip);
  if (family === 0) return "blocked";
  if (family === 6) {
    const v4 = embeddedV4(ip);
    if (v4) return classifyAddress(v4);
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
