// The suite's transport (conformance/src/transport.ts) sends what fetch sent and reads answers as fetch read them: the
// same request through both to a server that records what arrives, and the same answers read by both.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync, brotliCompressSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RequestTimeout, send, textOf } from "../../conformance/src/transport.ts";

interface Seen {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

let server: Server;
let origin = "";
const seen: Seen[] = [];
/** Requests per connection: /reset-reused resets a connection it arrives on second, as a server past its keep-alive timeout does. */
const perSocket = new WeakMap<import("node:net").Socket, number>();

/** What the server answers, by path. */
function answer(req: IncomingMessage, body: string, res: import("node:http").ServerResponse): void {
  const path = new URL(req.url ?? "/", "http://x").pathname;
  if (path === "/reset-reused" && (perSocket.get(req.socket) ?? 0) > 1) return void req.socket.resetAndDestroy();
  if (path === "/gzip") return void res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" }).end(gzipSync('{"a":"é"}'));
  if (path === "/br") return void res.writeHead(200, { "content-type": "application/json", "content-encoding": "br" }).end(brotliCompressSync('{"b":1}'));
  if (path === "/bom") return void res.writeHead(200, { "content-type": "application/json" }).end(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"c":1}'), Buffer.from([0xff])]));
  if (path === "/repeated") {
    res.setHeader("x-many", ["one", "two"]);
    res.setHeader("set-cookie", ["a=1", "b=2"]);
    return void res.writeHead(200, { "content-type": "text/plain" }).end("ok");
  }
  if (path === "/redirect") return void res.writeHead(302, { location: "/elsewhere" }).end("moved");
  if (path === "/stream") {
    res.writeHead(200, { "content-type": "text/event-stream" });
    return void res.write(": open\n\n");
  }
  if (path === "/slow") return void setTimeout(() => res.end("late"), 2_000);
  res.writeHead(201, { "content-type": "application/json" }).end(JSON.stringify({ echo: body }));
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("latin1");
      perSocket.set(req.socket, (perSocket.get(req.socket) ?? 0) + 1);
      seen.push({ method: req.method ?? "", url: req.url ?? "", headers: { ...req.headers }, body });
      answer(req, body, res);
    });
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((ok) => server.close(ok));
});

/** What the server saw of one request sent with fetch and then with send (headers fetch adds for browsers aside). */
async function both(path: string, init: { method?: string; headers?: Record<string, string>; body?: string | Uint8Array<ArrayBuffer> }) {
  seen.length = 0;
  await (await fetch(`${origin}${path}`, { ...init, redirect: "manual" })).arrayBuffer();
  await send(`${origin}${path}`, { ...init, timeoutMs: 5_000 });
  const [viaFetch, viaSend] = seen.map((s) => {
    const { "user-agent": _ua, "accept-language": _al, "sec-fetch-mode": _sf, "accept-encoding": _ae, connection: _c, ...headers } = s.headers;
    return { ...s, headers };
  });
  return { viaFetch, viaSend, raw: seen.map((s) => s.headers) };
}

describe("the suite's transport sends what fetch sent", () => {
  const cases: Array<[string, string, { method?: string; headers?: Record<string, string>; body?: string | Uint8Array<ArrayBuffer> }]> = [
    ["a GET with a key", "/v1/studies?limit=20&starting_after=%41", { headers: { authorization: "Bearer svc_live_x" } }],
    ["a GET with its own Accept", "/v1/studies", { headers: { Accept: "text/csv" } }],
    ["a JSON POST", "/v1/webhooks", { method: "POST", headers: { "content-type": "application/json" }, body: '{"url":"https://e.example/é"}' }],
    ["a string body without a Content-Type", "/v1/webhooks", { method: "POST", body: "not json" }],
    ["bytes that are not UTF-8", "/v1/webhooks", { method: "PUT", headers: { "content-type": "application/json" }, body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]) }],
    ["a POST without a body", "/_sim/complete", { method: "POST" }],
    ["a PATCH without a body", "/v1/webhooks", { method: "PATCH" }],
    ["a DELETE without a body", "/v1/webhooks", { method: "DELETE" }],
    ["a method no server knows", "/v1/studies", { method: "PURGE" }],
    ["a method in small letters", "/v1/studies", { method: "delete" }],
    ["a path with dot segments and a space", "/v1/a/../studies/ x", {}],
  ];
  for (const [name, path, init] of cases) {
    it(name, async () => {
      const { viaFetch, viaSend, raw } = await both(path, init);
      expect(viaSend).toEqual(viaFetch);
      // The dropped ones: fetch's browser headers, and its compression (the suite asks for none).
      expect(raw[1]["accept-encoding"]).toBeUndefined();
      expect(raw[1]["transfer-encoding"]).toBeUndefined();
    });
  }
});

describe("the suite's transport reads answers as fetch read them", () => {
  for (const path of ["/gzip", "/br", "/bom", "/repeated", "/redirect", "/x"]) {
    it(path, async () => {
      const f = await fetch(`${origin}${path}`, { redirect: "manual" });
      const fText = await f.text();
      const s = await send(`${origin}${path}`, { timeoutMs: 5_000 });
      expect(s.status).toBe(f.status);
      expect(textOf(s.bytes)).toBe(fText);
      const drop = (h: Headers) => [...h].filter(([k]) => !["date", "content-encoding", "content-length", "keep-alive", "connection", "transfer-encoding"].includes(k));
      expect(drop(s.headers)).toEqual(drop(f.headers));
      expect(s.headers.getSetCookie()).toEqual(f.headers.getSetCookie());
    });
  }

  it("returns a stream at its headers when told not to read it", async () => {
    const s = await send(`${origin}/stream`, { timeoutMs: 3_000, keepBody: (h) => h.get("content-type") !== "text/event-stream" });
    expect(s.status).toBe(200);
    expect(s.bytes.length).toBe(0);
  });

  it("fails a request past its time with fetch's words", async () => {
    // The evidence is the error, not a stopwatch: a request that waited for /slow's answer (2 s) would have resolved.
    const err = await send(`${origin}/slow`, { timeoutMs: 300 }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(RequestTimeout);
    expect((err as Error).message).toMatch(/aborted due to timeout/);
  });

  it("sends an idempotent request again on a fresh connection when a reused one is reset, and never a POST", async () => {
    await send(`${origin}/x`, { timeoutMs: 3_000 });
    seen.length = 0;
    const again = await send(`${origin}/reset-reused`, { timeoutMs: 3_000 });
    expect(again.status).toBe(201);
    expect(seen.map((s) => s.url)).toEqual(["/reset-reused", "/reset-reused"]);
    // A POST the server may have acted on is not sent twice (RFC 9110, 9.2.2): its failure is the suite's to report.
    await send(`${origin}/x`, { timeoutMs: 3_000 });
    seen.length = 0;
    await expect(send(`${origin}/reset-reused`, { method: "POST", body: "{}", timeoutMs: 3_000 })).rejects.toThrow(/ECONNRESET|socket hang up/);
    expect(seen).toHaveLength(1);
  });
});
