// The sandbox's protocol edges, through real HTTP: the Bearer scheme in any case, nosniff on every answer, CORS for
// browser apps (on by default, restricted by --cors-origin), HEAD on every GET route (the event stream included), the
// fault settings' bounded refusal, /docs serving the reference page only, and a 401 that never waits for a body.
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routes } from "../../generated/routes.ts";
import { parseCorsOrigins } from "../src/http/cors.ts";
import { readEnv } from "../src/config.ts";
import { ACME, startApi, type Api } from "./helpers.ts";

let api: Api;
let restricted: Api;
let ids: Record<string, string>;
beforeAll(async () => {
  api = await startApi();
  restricted = await startApi({ corsOrigins: ["https://app.example.com"] });
  const first = async (path: string) => (await api.req(path)).body.data[0].id as string;
  ids = { studies: await first("/v1/studies"), interviews: await first("/v1/interviews"), releases: await first("/v1/releases"), chats: await first("/v1/chats") };
  ids["webhook-deliveries"] = "00000000-0000-4000-8000-000000000000";
});
afterAll(async () => {
  await api.server.close();
  await restricted.server.close();
});

describe("the Authorization scheme", () => {
  it("is matched case-insensitively (RFC 9110): bearer and BEARER are Bearer", async () => {
    for (const scheme of ["Bearer", "bearer", "BEARER", "bEaReR"]) {
      const reply = await api.req("/v1/studies", { key: null, headers: { authorization: `${scheme} ${ACME}` } });
      expect(reply.status, scheme).toBe(200);
    }
    expect((await api.req("/v1/studies", { key: null, headers: { authorization: `Basic ${ACME}` } })).status).toBe(401);
  });
});

describe("X-Content-Type-Options", () => {
  it("is nosniff on successes, errors, unknown routes and the docs", async () => {
    for (const [path, key] of [["/v1/studies", ACME], ["/v1/studies", null], ["/v1/nowhere", ACME]] as const) {
      const reply = await api.req(path, { key });
      expect(reply.headers.get("x-content-type-options"), path).toBe("nosniff");
    }
    const docs = await fetch(`${api.server.origin}/docs`);
    expect(docs.headers.get("x-content-type-options")).toBe("nosniff");
  });
});

describe("CORS", () => {
  const preflight = (base: Api, path: string, origin: string, method = "GET") =>
    fetch(`${base.server.baseUrl}${path}`, { method: "OPTIONS", headers: { origin, "access-control-request-method": method, "access-control-request-headers": "authorization, content-type" } });

  it("answers a preflight by default with the path's methods and the headers the API reads", async () => {
    const reply = await preflight(api, "/v1/webhooks", "http://localhost:5173", "PUT");
    expect(reply.status).toBe(204);
    expect(reply.headers.get("access-control-allow-origin")).toBe("*");
    expect(reply.headers.get("access-control-allow-methods")).toBe("DELETE, GET, HEAD, PUT");
    expect(reply.headers.get("access-control-allow-headers")).toMatch(/authorization.*content-type/);
    const get = await api.req("/v1/studies", { headers: { origin: "http://localhost:5173" } });
    expect(get.headers.get("access-control-allow-origin")).toBe("*");
    expect(get.headers.get("access-control-expose-headers")).toContain("Deprecation");
  });

  it("leaves a plain OPTIONS (no preflight) and unknown paths as they were", async () => {
    const plain = await fetch(`${api.server.baseUrl}/v1/studies`, { method: "OPTIONS" });
    expect(plain.status).toBe(405);
    expect((await preflight(api, "/v1/nowhere", "http://localhost:5173")).status).toBe(404);
  });

  it("--cors-origin restricts it: the listed origin is echoed (with Vary), another gets no CORS headers", async () => {
    const ok = await preflight(restricted, "/v1/studies", "https://app.example.com");
    expect(ok.status).toBe(204);
    expect(ok.headers.get("access-control-allow-origin")).toBe("https://app.example.com");
    expect(ok.headers.get("vary")).toContain("Origin");
    const other = await preflight(restricted, "/v1/studies", "https://evil.example.com");
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
    const get = await restricted.req("/v1/studies", { headers: { origin: "https://evil.example.com" } });
    expect(get.status).toBe(200);
    expect(get.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("CORS_ORIGIN is read as *, none or a list of origins, and anything else is refused clearly", () => {
    expect(readEnv({}).corsOrigins).toEqual(["*"]);
    expect(readEnv({ CORS_ORIGIN: "none" }).corsOrigins).toEqual([]);
    expect(parseCorsOrigins("https://a.example.com, http://localhost:3000")).toEqual(["https://a.example.com", "http://localhost:3000"]);
    expect(() => parseCorsOrigins("a.example.com")).toThrow(/is not an origin/);
    expect(() => parseCorsOrigins("https://a.example.com/path")).toThrow(/no path/);
  });
});

describe("HEAD", () => {
  it("answers on every GET route of the contract with the GET's status and headers and no body, the event stream included", async () => {
    await api.req("/v1/webhooks", { method: "PUT", body: { url: "https://hooks.example.com/head", events: ["interview.completed"] } });
    const gets = routes.filter((r) => r.method === "get");
    expect(gets.length).toBeGreaterThan(10);
    for (const r of gets) {
      const path = r.path.replace(/^\/(v1|_sim)\/([a-z-]+)\/\{id\}/, (_m, v, name) => `/${v}/${name}/${ids[name] ?? "00000000-0000-4000-8000-000000000000"}`);
      const headers = { authorization: `Bearer ${ACME}`, "x-public-key": "pk_live_acme_0123456789abcdef0123456789abcdef" };
      const head = await fetch(`${api.server.baseUrl}${path}`, { method: "HEAD", headers, signal: AbortSignal.timeout(5_000) });
      expect(await head.text(), path).toBe("");
      if (path === "/_sim/events") {
        expect(head.status).toBe(200);
        expect(head.headers.get("content-type")).toMatch(/^text\/event-stream/);
        continue;
      }
      const get = await fetch(`${api.server.baseUrl}${path}`, { headers });
      await get.arrayBuffer();
      expect(head.status, path).toBe(get.status);
      expect(head.headers.get("content-type"), path).toBe(get.headers.get("content-type"));
    }
  });
});

describe("fault settings", () => {
  it("refuse unknown operation ids with a bounded answer, however many and however long", async () => {
    const operations = Array.from({ length: 1500 }, (_, i) => `${"x".repeat(40)}${i}`);
    operations.push("listStudys");
    const reply = await api.req("/_sim/faults", { method: "PUT", body: { rate: 0.1, operations } });
    expect(reply.status).toBe(400);
    expect(reply.text.length).toBeLessThan(4_096);
    expect(reply.body.error.details[0]).toMatchObject({ location: "body", field: "operations/0" });
    expect(reply.body.error.details[0].message).toMatch(/is not one of the \d+ allowed values \(did you mean \w+\?\)$/);
    expect(reply.body.error.details.at(-1).field).toBe("(more)");
    const few = await api.req("/_sim/faults", { method: "PUT", body: { operations: Array.from({ length: 30 }, (_, i) => `op${i}`) } });
    expect(few.body.error.details).toHaveLength(21);
    expect(few.body.error.details[20]).toEqual({ location: "body", field: "(more)", message: "10 more invalid fields not listed" });
    const long = await api.req("/_sim/faults", { method: "PUT", body: { operations: ["y".repeat(5_000)] } });
    expect(long.body.error.details[0].message).toMatch(/^y{64}… \(5000 characters\) is not one of the \d+ allowed values \(did you mean \w+\?\)$/);
  });
});

describe("/docs", () => {
  it("serves the reference page and its bundle, and nothing else of docs/ (no tests, no screenshots)", async () => {
    for (const path of ["/docs", "/docs/", "/docs/index.html"]) {
      const page = await fetch(`${api.server.origin}${path}`);
      expect(page.status, path).toBe(200);
      expect(page.headers.get("content-type")).toMatch(/^text\/html/);
      await page.arrayBuffer();
    }
    const bundle = await fetch(`${api.server.origin}/docs/redoc.standalone.js`);
    expect(bundle.status).toBe(200);
    await bundle.arrayBuffer();
    for (const path of ["/docs/test/docs.test.ts", "/docs/screenshot.png", "/docs/../package.json"]) {
      const reply = await fetch(`${api.server.origin}${path}`);
      expect(reply.status, path).toBe(404);
      expect(await reply.text()).not.toContain("import");
    }
  });
});

describe("a 401 before the body", () => {
  it("answers a request without a key at once and closes the connection, without waiting for the body it announced", async () => {
    const { port } = new URL(api.server.origin);
    const socket = connect(Number(port), "127.0.0.1");
    let received = "";
    const closed = new Promise<number>((resolve) => socket.on("close", () => resolve(Date.now())));
    socket.on("data", (c) => (received += c.toString()));
    socket.on("error", () => undefined);
    const sent = Date.now();
    socket.write("POST /api/_sim/interviews HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{\"study_id\":");
    // The body never comes; the answer and the close must.
    const at = await Promise.race([closed, new Promise<number>((resolve) => setTimeout(() => resolve(-1), 5_000))]);
    socket.destroy();
    expect(received).toMatch(/^HTTP\/1\.1 401 /);
    expect(received.toLowerCase()).toContain("connection: close");
    expect(at).toBeGreaterThan(0);
    expect(at - sent).toBeLessThan(5_000);
  });
});
