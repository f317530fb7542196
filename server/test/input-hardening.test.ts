// Bad input found by an outside breaker run, each answered in the envelope with one stated rule: deep nesting (400
// past MAX_JSON_DEPTH, on every operation that takes a body), compression (br, gzip and deflate decoded; a corrupt or
// truncated body is a 400; another coding a 415), charsets (UTF-8 only: any other is a 415), a missing Host header
// (400), and a trailing slash (404, like any other unknown path).
import { connect } from "node:net";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH } from "../src/http/body.ts";
import { ACME, ACME_PK, startApi, type Api } from "./helpers.ts";

let api: Api;
beforeAll(async () => void (api = await startApi()));
afterAll(() => api.server.close());

const WEBHOOK = JSON.stringify({ url: "https://example.com/hook", events: ["interview.completed"] });
const nested = (depth: number) => `${'{"a":'.repeat(depth - 1)}{}${"}".repeat(depth - 1)}`;

async function send(path: string, body: Uint8Array<ArrayBuffer> | string, headers: Record<string, string>, method = "PUT") {
  const res = await fetch(`${api.server.baseUrl}${path}`, { method, body, headers: { authorization: `Bearer ${ACME}`, "x-public-key": ACME_PK, "content-type": "application/json", ...headers } });
  const text = await res.text();
  return { status: res.status, type: res.headers.get("content-type"), body: JSON.parse(text) };
}

const BODY_OPERATIONS: Array<[string, string]> = [
  ["PUT", "/v1/webhooks"],
  ["POST", "/v1/interview-participant/launches"],
  ["POST", "/v1/interview-participant/prompt-events"],
  ["POST", "/_sim/interviews"],
  ["POST", "/_sim/studies"],
  ["POST", "/_sim/chats"],
];

describe("nesting", () => {
  it.each(BODY_OPERATIONS)(`%s %s: a valid JSON body nested 5,000 deep is a 400 naming the limit, not a 500`, async (method, path) => {
    const r = await send(path, nested(5_000), {}, method);
    expect(r.status).toBe(400);
    expect(r.body.error.message).toBe("Invalid parameters");
    expect(JSON.stringify(r.body.error.details)).toContain(`deeper than ${MAX_JSON_DEPTH}`);
  });

  it("the limit is exact: MAX_JSON_DEPTH levels pass the depth rule (and meet the schema's), one more does not", async () => {
    const at = await send("/v1/webhooks", nested(MAX_JSON_DEPTH), {});
    expect(JSON.stringify(at.body)).not.toContain("deeper than");
    const over = await send("/v1/webhooks", nested(MAX_JSON_DEPTH + 1), {});
    expect(JSON.stringify(over.body)).toContain("deeper than");
  });
});

describe("Content-Encoding", () => {
  it.each([
    ["gzip", gzipSync(WEBHOOK)],
    ["deflate", deflateSync(WEBHOOK)],
    ["br", brotliCompressSync(WEBHOOK)],
  ])("%s is decoded", async (coding, bytes) => {
    const r = await send("/v1/webhooks", new Uint8Array(bytes), { "content-encoding": coding });
    expect([200, 201]).toContain(r.status);
    expect(r.body.url).toBe("https://example.com/hook");
  });

  it.each([
    ["br", Buffer.from("definitely not brotli")],
    ["gzip", gzipSync(WEBHOOK).subarray(0, 20)],
    ["deflate", Buffer.from("garbage")],
  ])("a corrupt or truncated %s body is a 400 in the envelope", async (coding, bytes) => {
    const r = await send("/v1/webhooks", new Uint8Array(bytes), { "content-encoding": coding });
    expect(r.status).toBe(400);
    expect(r.type).toMatch(/application\/json/);
    expect(r.body.error).toMatchObject({ type: "invalid_request_error", message: "Corrupt or truncated compressed body" });
  });

  it("an unsupported coding is a 415", async () => {
    const r = await send("/v1/webhooks", WEBHOOK, { "content-encoding": "zstd" });
    expect(r.status).toBe(415);
  });
});

describe("charset", () => {
  it.each(["utf-16", "iso-8859-1", "utf-16le", "us-ascii"])("charset=%s is a 415: JSON bodies are UTF-8", async (charset) => {
    const r = await send("/v1/webhooks", WEBHOOK, { "content-type": `application/json; charset=${charset}` });
    expect(r.status).toBe(415);
    expect(r.body.error.message).toContain("UTF-8");
  });

  it.each(["utf-8", "UTF-8", '"utf-8"'])("charset=%s is accepted", async (charset) => {
    const r = await send("/v1/webhooks", WEBHOOK, { "content-type": `application/json; charset=${charset}` });
    expect([200, 201]).toContain(r.status);
  });
});

describe("request line and path", () => {
  it("a request without a Host header gets a 400 in the envelope, not Node's bare 400", async () => {
    const url = new URL(api.server.origin);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname);
      let out = "";
      socket.on("data", (d) => (out += d));
      socket.on("end", () => resolve(out));
      socket.on("error", reject);
      socket.write(`GET /api/v1/studies HTTP/1.1\r\nAuthorization: Bearer ${ACME}\r\nConnection: close\r\n\r\n`);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4)).error).toMatchObject({ type: "invalid_request_error", message: "Missing Host header" });
  });

  it.each(["/v1/chats/", "/v1/studies/", "/v1/webhooks/"])("%s (trailing slash) is a 404 in the envelope, not the list", async (path) => {
    const res = await fetch(`${api.server.baseUrl}${path}`, { headers: { authorization: `Bearer ${ACME}` } });
    expect(res.status).toBe(404);
    expect((await res.json()).error.type).toBe("not_found_error");
  });
});
