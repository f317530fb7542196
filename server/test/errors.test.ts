// Every error leaves in the one envelope: unknown routes, wrong methods, malformed JSON, wrong content
// type, oversized bodies, bad parameters, and a handler that breaks the contract (caught as a 500).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Writable } from "node:stream";
import { pino } from "pino";
import { createContractAjv } from "../../lib/openapi-ajv.ts";
import { StoreUnavailable } from "../src/stores/postgres/backend.ts";
import { NEVER, startApi, type Api } from "./helpers.ts";

const envelope = createContractAjv().validator("#/components/schemas/ErrorEnvelope");
let api: Api;
beforeAll(async () => void (api = await startApi()));
afterAll(() => api.server.close());

const cases: Array<{ name: string; path: string; method?: string; init?: any; status: number; type: string; message?: RegExp }> = [
  { name: "unknown route under /api", path: "/v1/nothing", status: 404, type: "not_found_error", message: /No such route/ },
  { name: "unknown route outside /api", path: "/../../etc/passwd", status: 404, type: "not_found_error" },
  { name: "wrong method", path: "/v1/studies", method: "POST", status: 405, type: "method_not_allowed_error" },
  { name: "non-UUID id", path: "/v1/studies/123", status: 400, type: "invalid_request_error", message: /^Invalid parameters$/ },
  { name: "unknown query parameter", path: "/v1/interviews?studyId=x", status: 400, type: "invalid_request_error" },
  { name: "repeated query parameter", path: "/v1/interviews?limit=1&limit=2", status: 400, type: "invalid_request_error" },
  { name: "bad enum", path: "/v1/interviews?quality_score=excellent", status: 400, type: "invalid_request_error" },
  { name: "malformed JSON", path: "/v1/webhooks", method: "PUT", init: { rawBody: "{\"url\":", headers: { "content-type": "application/json" } }, status: 400, type: "invalid_request_error", message: /Malformed JSON/ },
  { name: "JSON that is not an object", path: "/v1/webhooks", method: "PUT", init: { rawBody: "\"x\"", headers: { "content-type": "application/json" } }, status: 400, type: "invalid_request_error" },
  { name: "wrong content type", path: "/v1/webhooks", method: "PUT", init: { rawBody: "url=x", headers: { "content-type": "application/x-www-form-urlencoded" } }, status: 415, type: "unsupported_media_type_error" },
  { name: "no content type", path: "/v1/webhooks", method: "PUT", init: { rawBody: "{}" }, status: 415, type: "unsupported_media_type_error" },
  { name: "oversized body", path: "/v1/webhooks", method: "PUT", init: { body: { url: `https://x.example/${"a".repeat(200_000)}`, events: ["interview.completed"] } }, status: 413, type: "payload_too_large_error" },
  { name: "malformed percent-encoding", path: "/v1/interviews?reference_id=%E0%A4%A", status: 400, type: "invalid_request_error" },
];

describe("error envelope", () => {
  it.each(cases)("$name -> $status", async ({ path, method, init, status, type, message }) => {
    const res = await api.req(path, { method, ...init });
    expect(res.status).toBe(status);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(envelope(res.body), res.text).toBe(true);
    expect(res.body.error.type).toBe(type);
    if (message) expect(res.body.error.message).toMatch(message);
    expect(res.text).not.toMatch(/at .*\.ts:\d+|<html|<pre/i);
  });

  it("405 names the allowed methods", async () => {
    const res = await api.req("/v1/webhooks", { method: "PATCH" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("DELETE, GET, HEAD, PUT");
  });

  it("details has one issue per offending field", async () => {
    const res = await api.req(`/v1/interviews?limit=0&status=done&study_id=x&extra=1`);
    expect(res.status).toBe(400);
    const fields = res.body.error.details.map((d: any) => d.field).sort();
    expect(fields).toEqual(["extra", "limit", "status", "study_id"]);
    for (const d of res.body.error.details) expect(d.location).toBe("query");
  });

  it("body validation issues point into the body", async () => {
    const res = await api.req("/v1/webhooks", { method: "PUT", body: { url: 42, events: ["interview.started"] } });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual(expect.arrayContaining([
      expect.objectContaining({ location: "body", field: "url" }),
      expect.objectContaining({ location: "body", field: "events/0" }),
    ]));
  });
});

describe("response validation", () => {
  it("a handler answering outside the contract is a 500 naming the field", async () => {
    const broken = await startApi({
      handlers: {
        getStudy: () => ({ status: 200, body: { id: "not-a-uuid", object: "study" } as never }),
      },
    });
    try {
      const res = await broken.req(`/v1/studies/${NEVER}`);
      expect(res.status).toBe(500);
      expect(res.body.error.type).toBe("api_error");
      expect(res.body.error.message).toContain("getStudy 200");
      expect(res.body.error.message).toContain("/id");
      expect(res.body.error.message).toContain("name");
    } finally {
      await broken.server.close();
    }
  });

  it("is off when disabled, as npm start runs it", async () => {
    const lax = await startApi({ validateResponses: false, handlers: { getStudy: () => ({ status: 200, body: { id: "x" } as never }) } });
    try {
      const res = await lax.req(`/v1/studies/${NEVER}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id: "x" });
    } finally {
      await lax.server.close();
    }
  });

  it("a database that is away is a 503 telling the client to retry, its address and the driver's words in the log only", async () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _enc, done) => void (lines.push(String(chunk)), done()) });
    const cause = "connect ECONNREFUSED 10.20.30.40:6543";
    const away = await startApi({
      logger: pino({ level: "info" }, sink),
      handlers: { listChats: () => { throw new StoreUnavailable(`the database is unavailable: ${cause}`); } },
    });
    try {
      const res = await away.req("/v1/chats");
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("1");
      expect(res.body).toEqual({ error: { type: "api_error", message: "Service unavailable: the service is briefly unavailable; retry after a second" } });
      expect(res.text).not.toMatch(/ECONNREFUSED|10\.20\.30\.40|6543/);
      const logged = lines.map((l) => JSON.parse(l)).find((l) => l.msg === "store unavailable");
      expect(logged).toMatchObject({ level: 40, status: 503, detail: `the database is unavailable: ${cause}` });
    } finally {
      await away.server.close();
    }
  });

  it("a handler that throws is a 500 in the envelope without internals", async () => {
    const boom = await startApi({ handlers: { listChats: () => { throw new Error("secret internal detail"); } } });
    try {
      const res = await boom.req("/v1/chats");
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ error: { type: "api_error", message: "Internal server error" } });
    } finally {
      await boom.server.close();
    }
  });
});
