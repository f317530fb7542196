// The typed client against the reference server (paging, errors), against Prism (examples), and its retry
// rules against small local servers that fail on purpose.
import { execFileSync, type ChildProcess } from "node:child_process";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import express from "express";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../server/src/testing.ts";
import { freePort, startPrismProcess } from "../../test/support/processes.ts";
import { ApiConnectionError, ApiError, ApiTimeoutError, createApiClient, DEFAULT_TIMEOUT_MS, paginate, unwrap } from "../src/index.ts";

const KEY = "svc_live_acme_0123456789abcdef0123456789abcdef";
let server: RunningServer;
beforeAll(async () => void (server = await startServer()));
afterAll(() => server.close());

describe("against the reference server", () => {
  it("paginate walks every interview once, in the server's order", async () => {
    const client = createApiClient({ baseUrl: server.baseUrl, apiKey: KEY });
    const ids: string[] = [];
    for await (const interview of paginate(client, "/v1/interviews", { query: { limit: 37 } })) ids.push(interview.id);
    const manual: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await unwrap(client.GET("/v1/interviews", { params: { query: { limit: 100, starting_after: after } } }));
      manual.push(...page.data.map((i) => i.id));
      if (!page.has_more) break;
      after = page.data[page.data.length - 1].id;
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(manual);
    expect(ids.length).toBeGreaterThanOrEqual(300);
  });

  it("paginate follows a nested list with path parameters and filters", async () => {
    const client = createApiClient({ baseUrl: server.baseUrl, apiKey: KEY });
    const chats = await unwrap(client.GET("/v1/chats", { params: { query: { limit: 5 } } }));
    let n = 0;
    for await (const m of paginate(client, "/v1/chats/{id}/messages", { path: { id: chats.data[0].id }, query: { limit: 3 } })) {
      expect(m.chat_id).toBe(chats.data[0].id);
      n++;
    }
    const chat = await unwrap(client.GET("/v1/chats/{id}", { params: { path: { id: chats.data[0].id } } }));
    expect(n).toBe(chat.message_count);
    for await (const i of paginate(client, "/v1/interviews", { query: { status: "started", limit: 50 } })) expect(i.status).toBe("started");
  });

  it("turns error envelopes into ApiError", async () => {
    const client = createApiClient({ baseUrl: server.baseUrl, apiKey: KEY });
    const missing = await unwrap(client.GET("/v1/studies/{id}", { params: { path: { id: "00000000-0000-4000-8000-000000000000" } } })).catch((e) => e);
    expect(missing).toBeInstanceOf(ApiError);
    expect(missing).toMatchObject({ status: 404, type: "not_found_error" });
    const anonymous = createApiClient({ baseUrl: server.baseUrl, apiKey: "svc_live_wrong" });
    const denied = await unwrap(anonymous.GET("/v1/studies")).catch((e) => e);
    expect(denied).toMatchObject({ status: 401, type: "authentication_error" });
    const bad = await (async () => {
      for await (const _ of paginate(client, "/v1/interviews", { query: { limit: 500 } })) void _;
    })().catch((e) => e);
    expect(bad).toMatchObject({ status: 400, message: "Invalid parameters" });
    expect(bad.details[0].field).toBe("limit");
  });
});

describe("retries against the sandbox's real faults (/_sim/faults)", () => {
  const faults = (body: unknown) => fetch(`${server.baseUrl}/_sim/faults`, { method: "PUT", headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" }, body: JSON.stringify(body) });
  afterEach(async () => void (await fetch(`${server.baseUrl}/_sim/faults`, { method: "DELETE", headers: { authorization: `Bearer ${KEY}` } })));
  /** The client as an app builds it, with a fetch that counts what goes on the wire. */
  const counted = () => {
    const seen: number[] = [];
    const client = createApiClient({
      baseUrl: server.baseUrl, apiKey: KEY, retry: { retries: 2, baseDelayMs: 5, maxDelayMs: 50 },
      fetch: async (input, init) => {
        try {
          const res = await fetch(input, init);
          seen.push(res.status);
          return res;
        } catch (err) {
          seen.push(0);
          throw err;
        }
      },
    });
    return { client, seen };
  };

  it("a GET that meets two 503s (Retry-After: 1) is retried and succeeds", async () => {
    expect((await faults({ fail_next: 2, fail_next_kind: "503" })).status).toBe(200);
    const { client, seen } = counted();
    const page = await unwrap(client.GET("/v1/studies", { params: { query: { limit: 1 } } }));
    expect(page.data).toHaveLength(1);
    expect(seen).toEqual([503, 503, 200]);
  });

  it("a GET whose connection is reset twice is retried and succeeds", async () => {
    await faults({ fail_next: 2, fail_next_kind: "reset" });
    const { client, seen } = counted();
    const page = await unwrap(client.GET("/v1/chats", { params: { query: { limit: 1 } } }));
    expect(page.data).toHaveLength(1);
    expect(seen).toEqual([0, 0, 200]);
  });

  it("gives up after the last retry with the server's 500 as an ApiError", async () => {
    await faults({ fail_next: 5, fail_next_kind: "500" });
    const { client, seen } = counted();
    const err = await unwrap(client.GET("/v1/releases")).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 500, type: "api_error" });
    expect(seen).toEqual([500, 500, 500]);
  });
});

describe("retries", () => {
  const servers: Array<{ close(): void }> = [];
  afterAll(() => servers.forEach((s) => s.close()));
  async function flaky(answers: Array<[number, Record<string, string>?]>) {
    const hits: string[] = [];
    const app = express();
    app.use((req, res) => {
      hits.push(req.method);
      const [status, headers] = answers[Math.min(hits.length - 1, answers.length - 1)];
      res.status(status).set(headers ?? {}).json(status < 400 ? { object: "list", data: [], has_more: false } : { error: { type: "api_error", message: "try later" } });
    });
    const s = app.listen(0, "127.0.0.1");
    await new Promise((r) => s.once("listening", r));
    servers.push(s);
    return { base: `http://127.0.0.1:${(s.address() as AddressInfo).port}/api`, hits };
  }

  it("retries GET after 503s with backoff and succeeds", async () => {
    const { base, hits } = await flaky([[503], [503], [200]]);
    const waits: number[] = [];
    const client = createApiClient({ baseUrl: base, apiKey: KEY, retry: { retries: 2, sleep: async (ms) => void waits.push(ms), random: () => 1 } });
    const page = await unwrap(client.GET("/v1/studies"));
    expect(page.has_more).toBe(false);
    expect(hits).toEqual(["GET", "GET", "GET"]);
    expect(waits).toEqual([200, 400]);
  });

  it("honours Retry-After on 429, and gives up after the last retry", async () => {
    const { base, hits } = await flaky([[429, { "retry-after": "0" }], [429, { "retry-after": "0" }], [429, { "retry-after": "0" }]]);
    const waits: number[] = [];
    const client = createApiClient({ baseUrl: base, apiKey: KEY, retry: { retries: 2, sleep: async (ms) => void waits.push(ms) } });
    const err = await unwrap(client.GET("/v1/studies")).catch((e) => e);
    expect(err).toMatchObject({ status: 429 });
    expect(hits.length).toBe(3);
    expect(waits).toEqual([0, 0]);
  });

  it("never retries POST", async () => {
    const { base, hits } = await flaky([[503], [200]]);
    const client = createApiClient({ baseUrl: base, apiKey: KEY, retry: { retries: 3, sleep: async () => undefined } });
    // The typed client knows only the published API (no simulation surface): a POST of it is a participant one.
    const err = await unwrap(client.POST("/v1/interview-participant/prompt-events", { body: { eventId: "00000000-0000-4000-8000-000000000000", phase: "shown", referenceId: "u", occurredAt: "2026-03-02T00:00:00Z" } })).catch((e) => e);
    expect(err).toMatchObject({ status: 503 });
    expect(hits).toEqual(["POST"]);
  });

  it("retries a refused connection, then reports it", async () => {
    const closed = await freePort();
    let waits = 0;
    const client = createApiClient({ baseUrl: `http://127.0.0.1:${closed}/api`, apiKey: KEY, retry: { retries: 2, sleep: async () => void waits++ } });
    const err = await client.GET("/v1/studies").catch((e) => e);
    expect(waits).toBe(2);
    // The package's own class, the cause attached: never a bare TypeError.
    expect(err).toBeInstanceOf(ApiConnectionError);
    expect(err).not.toBeInstanceOf(TypeError);
    expect(err.code).toBe("ECONNREFUSED");
    expect(err.cause).toBeInstanceOf(TypeError);
    expect(err.message).toContain(`GET http://127.0.0.1:${closed}/api/v1/studies`);
  });
});

describe("connection failures and the timeout", () => {
  const servers: import("node:http").Server[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await new Promise((r) => (s.closeAllConnections(), s.close(r)));
  });
  const listen = async (handler: import("node:http").RequestListener) => {
    const { createServer } = await import("node:http");
    const s = createServer(handler);
    servers.push(s);
    await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
    return `http://127.0.0.1:${(s.address() as AddressInfo).port}/api`;
  };

  it("a reset connection rejects with ApiConnectionError carrying the cause", async () => {
    const base = await listen((req) => req.socket.destroy());
    const client = createApiClient({ baseUrl: base, apiKey: KEY, retry: false });
    const err = await client.GET("/v1/studies").catch((e) => e);
    expect(err).toBeInstanceOf(ApiConnectionError);
    expect(err.name).toBe("ApiConnectionError");
    expect(err.cause).toBeDefined();
    expect(["ECONNRESET", "UND_ERR_SOCKET"]).toContain(err.code);
  });

  it("an endpoint that never answers rejects with ApiTimeoutError after timeoutMs, and there is a default", async () => {
    const base = await listen(() => undefined);
    const client = createApiClient({ baseUrl: base, apiKey: KEY, retry: false, timeoutMs: 300 });
    const t = Date.now();
    const err = await client.GET("/v1/studies").catch((e) => e);
    expect(Date.now() - t).toBeLessThan(3_000);
    expect(err).toBeInstanceOf(ApiTimeoutError);
    expect(err).toBeInstanceOf(ApiConnectionError);
    expect(err.message).toContain("within 300 ms");
    expect(DEFAULT_TIMEOUT_MS).toBe(30_000);
  });

  it("a body that stalls half-way times out, and an answer cut mid-body is a connection error", async () => {
    const stall = await listen((_req, res) => (res.writeHead(200, { "content-type": "application/json" }), res.write('{"data": [')));
    const stalled = await createApiClient({ baseUrl: stall, apiKey: KEY, retry: false, timeoutMs: 300 }).GET("/v1/studies").catch((e) => e);
    expect(stalled).toBeInstanceOf(ApiTimeoutError);
    const cut = await listen((req, res) => (res.writeHead(200, { "content-type": "application/json", "content-length": "100" }), res.write('{"data": ['), setTimeout(() => req.socket.destroy(), 50)));
    const err = await createApiClient({ baseUrl: cut, apiKey: KEY, retry: false, timeoutMs: 5_000 }).GET("/v1/studies").catch((e) => e);
    expect(err).toBeInstanceOf(ApiConnectionError);
    expect(err).not.toBeInstanceOf(ApiTimeoutError);
  });

  it("an answer within the timeout keeps its status, headers, url and body", async () => {
    const base = await listen((_req, res) => (res.writeHead(201, { "content-type": "application/json", "x-request-id": "r1" }), res.end('{"id":"x"}')));
    const { data, response } = await createApiClient({ baseUrl: base, apiKey: KEY, retry: false, timeoutMs: 2_000 }).GET("/v1/studies");
    expect(response.status).toBe(201);
    expect(response.headers.get("x-request-id")).toBe("r1");
    expect(response.url).toBe(`${base}/v1/studies`);
    expect(data).toEqual({ id: "x" });
  });

  it("an event stream outlives the timeout once its headers arrived, and the caller's abort still ends it", async () => {
    const base = await listen((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      let n = 0;
      const tick = setInterval(() => (res.destroyed ? clearInterval(tick) : res.write(`data: ${n++}\n\n`)), 100);
      res.on("close", () => clearInterval(tick));
    });
    const controller = new AbortController();
    const { response } = await createApiClient({ baseUrl: base, apiKey: KEY, retry: false, timeoutMs: 200 }).GET("/v1/studies", { parseAs: "stream", signal: controller.signal });
    const reader = response.body!.getReader();
    const t = Date.now();
    let text = "";
    while (Date.now() - t < 700) text += new TextDecoder().decode((await reader.read()).value);
    expect(text).toContain("data: 5");
    controller.abort();
    await expect(reader.read()).rejects.toMatchObject({ name: "AbortError" });
  });

  it("the caller's abort ends the wait between retries", async () => {
    const base = await listen((_req, res) => (res.writeHead(503, { "retry-after": "60" }), res.end()));
    const t = Date.now();
    const err = await createApiClient({ baseUrl: base, apiKey: KEY, retry: { retries: 2 } }).GET("/v1/studies", { signal: AbortSignal.timeout(300) }).catch((e) => e);
    expect(err.name).toBe("TimeoutError");
    expect(Date.now() - t).toBeLessThan(3_000);
  });

  it("times out and aborts in a process that collects garbage every 50 ms (Node 20 dropped the signal)", () => {
    const out = execFileSync(process.execPath, ["--expose-gc", "--import", "tsx", "sdk/test/support/client-under-gc.mjs"], {
      cwd: resolve(fileURLToPath(import.meta.url), "../../.."),
      env: { ...process.env, CLIENT_MODULE: pathToFileURL(resolve(fileURLToPath(import.meta.url), "../../src/index.ts")).href },
      encoding: "utf8",
    });
    const { results } = JSON.parse(out);
    expect(results.timeout).toMatchObject({ outcome: "ApiTimeoutError" });
    expect(results.timeout.ms).toBeGreaterThanOrEqual(1_400);
    expect(results.timeout.ms).toBeLessThan(4_000);
    expect(results.retriedTimeout).toMatchObject({ outcome: "ApiTimeoutError", attempts: 2 });
    expect(results.stalledBody).toMatchObject({ outcome: "ApiTimeoutError" });
    expect(results.callerAbort).toMatchObject({ outcome: "TimeoutError" });
    expect(results.callerAbort.ms).toBeLessThan(4_000);
  }, 30_000);

  it("the caller's own abort is rethrown as it is", async () => {
    const base = await listen(() => undefined);
    const client = createApiClient({ baseUrl: base, apiKey: KEY, retry: false });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const err = await client.GET("/v1/studies", { signal: controller.signal }).catch((e) => e);
    expect(err.name).toBe("AbortError");
  });
});

describe("against Prism", () => {
  let prism: ChildProcess;
  let base = "";
  beforeAll(async () => {
    ({ child: prism, baseUrl: base } = await startPrismProcess());
  }, 90_000);
  afterAll(() => void prism?.kill("SIGTERM"));

  it("returns the contract's examples through typed calls", async () => {
    const client = createApiClient({ baseUrl: base, apiKey: KEY });
    const studies = await unwrap(client.GET("/v1/studies"));
    expect(studies.data[0].name).toBe("Onboarding friction, Q1");
    const study = await unwrap(client.GET("/v1/studies/{id}", { params: { path: { id: studies.data[0].id } } }));
    expect(study.questions.length).toBeGreaterThan(0);
  });

  it("turns a requested error example into ApiError", async () => {
    const client = createApiClient({ baseUrl: base, apiKey: KEY, retry: false });
    const err = await unwrap(client.GET("/v1/studies/{id}", { params: { path: { id: "00000000-0000-4000-8000-000000000000" } }, headers: { Prefer: "code=404" } })).catch((e) => e);
    expect(err).toMatchObject({ status: 404, type: "not_found_error" });
  });
});
