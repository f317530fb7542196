// Inputs at the edges: every answer in the envelope (Node-level 400/431, OPTIONS, HEAD with Content-Length), bounded
// validation of huge bodies, integers as decimal digits only, and unknown body fields refused like unknown parameters.
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACME, ACME_PK, startApi, type Api } from "./helpers.ts";

let api: Api;
beforeAll(async () => void (api = await startApi()));
afterAll(() => api.server.close());

/** Sends raw bytes and returns the raw answer. */
function raw(text: string): Promise<string> {
  const url = new URL(api.server.origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    let out = "";
    socket.on("data", (d) => (out += d));
    socket.on("end", () => resolve(out));
    socket.on("error", reject);
    socket.write(text);
  });
}
const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4));

describe("answers outside the router are in the envelope", () => {
  it("a malformed request line is a 400 envelope, an oversized header block a 431 envelope", async () => {
    const bad = await raw("GARBAGE\r\n\r\n");
    expect(bad).toMatch(/^HTTP\/1\.1 400 /);
    expect(bad).toMatch(/content-type: application\/json/i);
    expect(bodyOf(bad).error).toMatchObject({ type: "invalid_request_error" });
    const big = await raw(`GET /api/v1/studies HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`);
    expect(big).toMatch(/^HTTP\/1\.1 431 /);
    expect(bodyOf(big).error.message).toMatch(/too large/);
    // As every answer of the app: never sniffed into something a browser would run.
    for (const answer of [bad, big]) expect(answer).toMatch(/\r\nX-Content-Type-Options: nosniff\r\n/i);
  });

  it("OPTIONS is a 405 envelope with Allow, not a plain-text answer", async () => {
    for (const path of ["/v1/studies", "/v1/webhooks"]) {
      const res = await api.req(path, { method: "OPTIONS", key: null });
      expect(res.status).toBe(405);
      expect(res.headers.get("content-type")).toMatch(/application\/json/);
      expect(res.body.error.type).toBe("method_not_allowed_error");
      expect(res.headers.get("allow")).toMatch(/GET/);
    }
    expect((await api.req("/v1/nothing-here", { method: "OPTIONS" })).status).toBe(404);
  });

  it("HEAD says the Content-Length of the GET it stands for", async () => {
    for (const path of ["/v1/studies?limit=3", "/v1/chats", `/v1/studies/00000000-0000-4000-8000-000000000000`]) {
      const get = await api.req(path);
      const head = await fetch(`${api.server.baseUrl}${path}`, { method: "HEAD", headers: { authorization: `Bearer ${ACME}` } });
      expect(head.status).toBe(get.status);
      expect(head.headers.get("content-length")).toBe(String(Buffer.byteLength(get.text)));
    }
  });
});

describe("validation", () => {
  it.each(["0x10", "1e2", "+5", " 5", "5.0", "١٢"])("refuses limit=%j: integers are decimal digits", async (limit) => {
    const res = await api.req(`/v1/studies?limit=${encodeURIComponent(limit)}`);
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ location: "query", field: "limit", message: "must be an integer" }]);
  });

  it("still takes plain integers, and still reports every offending field", async () => {
    expect((await api.req("/v1/studies?limit=5")).body.data).toHaveLength(5);
    const chats = (await api.req("/v1/chats?limit=1")).body.data;
    const res = await api.req(`/v1/chats/${chats[0].id}/messages?limit=0x10&starting_after=nope`);
    expect(res.body.error.details.map((d: any) => d.field).sort()).toEqual(["limit", "starting_after"]);
  });

  it("answers a 98 KB body of 49,000 bad items with a short, bounded 400", async () => {
    const body = JSON.stringify({ url: "https://hooks.example.com/x", events: Array.from({ length: 49_000 }, () => 1) });
    expect(Buffer.byteLength(body)).toBeLessThan(100 * 1024);
    const res = await api.req("/v1/webhooks", { method: "PUT", rawBody: body, headers: { "content-type": "application/json" } });
    expect(res.status).toBe(400);
    expect(res.text.length).toBeLessThan(2_000);
    expect(res.body.error.details.length).toBeLessThanOrEqual(21);
    expect(res.body.error.details.at(-1).field).toBe("(more)");
  });

  it("lists at most 20 issues of a small body, then counts the rest", async () => {
    const res = await api.req("/_sim/chats", { method: "POST", body: { messages: Array.from({ length: 30 }, () => ({ role: "robot", parts: [] })) } });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toHaveLength(21);
    expect(res.body.error.details[20]).toMatchObject({ field: "(more)", message: "10 more invalid fields not listed" });
  });

  it("refuses unknown body fields, as it refuses unknown query parameters", async () => {
    const res = await api.req("/v1/webhooks", { method: "PUT", body: { url: "https://hooks.example.com/x", events: ["interview.completed"], signing_secret: "mine" } });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ location: "body", field: "signing_secret", message: "is not a known parameter" }]);
    expect((await api.req("/v1/webhooks")).status).toBe(404);
  });

  // PostgreSQL cannot store or compare text holding U+0000: on that store a filter of it answered 503 ("retry after a
  // second"), which retrying never ends. Every store refuses it alike, naming the field.
  it("refuses text holding U+0000 in a query, a body, a key of a tool's input and a participant request: 400, the field named", async () => {
    const nul = { location: "query", field: "reference_id", message: "must not contain the NUL character (U+0000)" };
    const filter = await api.req("/v1/interviews?reference_id=a%00b");
    expect(filter.status).toBe(400);
    expect(filter.body.error).toMatchObject({ type: "invalid_request_error", message: "Invalid parameters", details: [nul] });
    const plant = await api.req("/_sim/chats", { method: "POST", body: { title: "t\u0000", messages: [{ role: "assistant", parts: [{ type: "tool_use", id: "t1", name: "q", summary: "s", input: { ok: "fine", "k\u0000": 1 }, state: "output_available" }] }] } });
    expect(plant.status).toBe(400);
    expect(plant.body.error.details).toEqual([{ ...nul, location: "body", field: "title" }, { ...nul, location: "body", field: "messages/0/parts/0/input/k\u0000" }]);
    const hook = await api.req("/v1/webhooks", { method: "PUT", body: { url: "https://example.com/a\u0000", events: ["interview.completed"] } });
    expect(hook.body.error.details).toEqual([{ ...nul, location: "body", field: "url" }]);
    expect((await api.req("/v1/webhooks")).status).toBe(404);
    const launch = await api.req("/v1/interview-participant/launches", { key: null, headers: { "x-public-key": ACME_PK }, method: "POST", body: { referenceId: "u\u0000" } });
    expect(launch.status).toBe(400);
    expect(launch.body.error.details).toEqual([{ ...nul, location: "body", field: "referenceId" }]);
    // Beside it, text of every other control character is still taken.
    expect((await api.req("/v1/interviews?reference_id=a%01b")).status).toBe(200);
  });
});

// A process's apps share the validators compiled from the contract (ValidatorFactory.of, sharedContractAjv): a second
// app builds in a fraction of the first's time. Sharing them must not mix answers: a compiled function keeps its last
// `errors`, read at once by each caller.
describe("apps in one process share the compiled validators", () => {
  it("two apps answer interleaved invalid requests each with its own issues, and validate responses alike", async () => {
    const other = await startApi({ validateResponses: true });
    try {
      const asks = Array.from({ length: 20 }, (_, k) => (k % 2 ? api : other).req(k % 4 < 2 ? `/v1/interviews?limit=${k}x` : "/v1/webhooks", k % 4 < 2 ? {} : { method: "PUT", body: { url: `https://hooks.example.com/${k}`, events: [`nope${k}`] } }));
      const answers = await Promise.all(asks);
      answers.forEach((res, k) => {
        expect(res.status, `request ${k}`).toBe(400);
        if (k % 4 < 2) expect(res.body.error.details, `request ${k}`).toEqual([{ location: "query", field: "limit", message: "must be an integer" }]);
        else expect(res.body.error.details.map((d: { field: string }) => d.field), `request ${k}`).toEqual(["events/0"]);
      });
      expect((await other.req("/v1/studies")).status).toBe(200);
    } finally {
      await other.server.close();
    }
  });
});
