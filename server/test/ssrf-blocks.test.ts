// SSRF, table-driven: every block of IANA's IPv4 and IPv6 special-purpose registries is refused as a webhook
// receiver, at its first, a middle and its last address, in every spelling the WHATWG URL parser accepts for a host
// (IPv4: dotted, one number, hex, octal, short forms; IPv6: compressed, expanded, upper case, dotted tail). The
// IPv6 forms that embed an IPv4 address (mapped, compatible, translated, NAT64) are judged by the IPv4 rules; 6to4
// and Teredo are refused whole. Checked at PUT (urlProblem) and at delivery (resolveReceiver), and through the API.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BLOCKED_V4, BLOCKED_V6, classifyAddress, resolveReceiver, urlProblem } from "../src/webhooks/address-policy.ts";
import { startApi, type Api } from "./helpers.ts";

const OFF = { allowLoopback: false };
const ON = { allowLoopback: true };

const v4ToInt = (ip: string) => ip.split(".").reduce((n, b) => n * 256 + Number(b), 0);
const intToV4 = (n: number) => [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join(".");
const v4Block = (net: string, bits: number) => {
  const first = v4ToInt(net);
  const size = 2 ** (32 - bits);
  return [...new Set([first, first + Math.floor(size / 2), first + size - 1])].map(intToV4);
};
/** The spellings of one IPv4 address that the URL parser turns into it. */
const v4Spellings = (ip: string) => {
  const [a, b, c, d] = ip.split(".").map(Number);
  const n = v4ToInt(ip);
  return [ip, String(n), `0x${n.toString(16)}`, `0${a.toString(8)}.0${b.toString(8)}.0${c.toString(8)}.0${d.toString(8)}`, `${a}.${b}.${c * 256 + d}`, `${a}.${b * 65536 + c * 256 + d}`, `0x${a.toString(16)}.${b}.${c}.${d}`];
};

const v6ToBig = (ip: string) => {
  const [head, tail = ""] = ip.split("::");
  const h = head ? head.split(":") : [];
  const t = tail ? tail.split(":") : [];
  const words = [...h, ...new Array(8 - h.length - t.length).fill("0"), ...t];
  return words.reduce((n, w) => (n << 16n) | BigInt(parseInt(w, 16)), 0n);
};
const bigToWords = (n: bigint) => Array.from({ length: 8 }, (_, i) => Number((n >> BigInt(16 * (7 - i))) & 0xffffn).toString(16));
const v6Block = (net: string, bits: number) => {
  const first = v6ToBig(net);
  const size = 1n << BigInt(128 - bits);
  return [...new Set([first, first + size / 2n, first + size - 1n])].map(bigToWords);
};
/** Expanded, compressed (the longest zero run), upper case. */
const v6Spellings = (words: string[]) => {
  const expanded = words.join(":");
  const padded = words.map((w) => w.padStart(4, "0")).join(":");
  let best = [-1, 0];
  for (let i = 0; i < 8; ) {
    if (words[i] !== "0") { i++; continue; }
    let j = i;
    while (j < 8 && words[j] === "0") j++;
    if (j - i > best[1]) best = [i, j - i];
    i = j;
  }
  const compressed = best[1] > 1 ? `${words.slice(0, best[0]).join(":")}::${words.slice(best[0] + best[1]).join(":")}` : expanded;
  return [...new Set([expanded, padded, compressed, compressed.toUpperCase()])];
};

/** Every IPv6 spelling that embeds `ip` in a form judged by the IPv4 rules. */
const embeddings = (ip: string) => {
  const [a, b, c, d] = ip.split(".").map(Number);
  const hi = ((a << 8) | b).toString(16);
  const lo = ((c << 8) | d).toString(16);
  return [`::ffff:${ip}`, `::ffff:${hi}:${lo}`, `0:0:0:0:0:ffff:${ip}`, `::${ip}`, `::${hi}:${lo}`, `::ffff:0:${ip}`, `::ffff:0:${hi}:${lo}`, `64:ff9b::${ip}`, `64:ff9b::${hi}:${lo}`];
};

describe("IPv4 special-purpose blocks", () => {
  for (const [net, bits] of BLOCKED_V4) {
    it(`${net}/${bits} is refused in every spelling, alone and embedded in IPv6`, async () => {
      for (const ip of v4Block(net, bits)) {
        expect(classifyAddress(ip), ip).toBe("blocked");
        for (const host of v4Spellings(ip)) expect(urlProblem(`https://${host}/hook`, ON), host).toMatch(/private|reserved/);
        for (const host of embeddings(ip)) {
          expect(urlProblem(`https://[${host}]/hook`, ON), host).toMatch(/private|reserved/);
          expect(await resolveReceiver(`[${host}]`, ON), host).toEqual({ ok: false, reason: "address not allowed" });
        }
        expect(await resolveReceiver(ip, ON), ip).toEqual({ ok: false, reason: "address not allowed" });
      }
    });
  }

  it("127.0.0.0/8 is loopback: refused in every spelling and embedding when the exception is off, allowed over http when on", async () => {
    for (const ip of v4Block("127.0.0.0", 8)) {
      for (const host of v4Spellings(ip)) {
        expect(urlProblem(`http://${host}/hook`, OFF), host).toMatch(/loopback/);
        expect(urlProblem(`http://${host}/hook`, ON), host).toBeNull();
      }
      for (const host of embeddings(ip)) {
        expect(urlProblem(`https://[${host}]/hook`, OFF), host).toMatch(/loopback/);
        expect(await resolveReceiver(`[${host}]`, OFF), host).toEqual({ ok: false, reason: "address not allowed" });
      }
    }
  });
});

describe("IPv6 special-purpose blocks", () => {
  for (const [net, bits] of BLOCKED_V6) {
    it(`${net}/${bits} is refused in every spelling`, async () => {
      for (const words of v6Block(net, bits)) {
        for (const host of v6Spellings(words)) {
          expect(urlProblem(`https://[${host}]/hook`, ON), host).toMatch(/private|reserved/);
          expect(await resolveReceiver(`[${host}]`, ON), host).toEqual({ ok: false, reason: "address not allowed" });
        }
      }
    });
  }

  it("6to4 and Teredo addresses are refused whatever IPv4 address they carry", () => {
    for (const host of ["2002:a00:1::", "2002:808:808::1", "2001:0:4136:e378:8000:63bf:3fff:fdd2", "2001::1"]) {
      expect(urlProblem(`https://[${host}]/hook`, ON), host).toMatch(/private|reserved/);
    }
  });

  it("::1 is loopback: refused when the exception is off", () => {
    for (const host of ["::1", "0:0:0:0:0:0:0:1", "0000:0000:0000:0000:0000:0000:0000:0001"]) {
      expect(urlProblem(`http://[${host}]/hook`, OFF), host).toMatch(/loopback/);
      expect(urlProblem(`http://[${host}]/hook`, ON), host).toBeNull();
    }
  });
});

describe("public addresses stay allowed", () => {
  it.each(["8.8.8.8", "1.1.1.1", "[2606:4700:4700::1111]", "[::ffff:8.8.8.8]", "[64:ff9b::8.8.8.8]", "[2a00:1450:4001:82b::200e]"])("https://%s is accepted", (host) => {
    expect(urlProblem(`https://${host}/hook`, OFF)).toBeNull();
  });
});

describe("through the API", () => {
  let api: Api;
  beforeAll(async () => void (api = await startApi({ webhookAllowLoopback: false })));
  afterAll(() => api.server.close());

  it.each(["[::10.0.0.1]", "[::127.0.0.1]", "[::ffff:0:a00:1]", "[2002:a00:1::]", "[2001:0:4136:e378:8000:63bf:3fff:fdd2]", "[::ffff:169.254.169.254]", "0x7f.1", "2130706433", "[fd00:ec2::254]"])("PUT /v1/webhooks refuses https://%s/hook", async (host) => {
    const r = await api.req("/v1/webhooks", { method: "PUT", body: { url: `https://${host}/hook`, events: ["interview.completed"] } });
    expect(r.status).toBe(400);
  });
});
