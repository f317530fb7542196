// Faults on demand, observed by real clients over HTTP: per request (`Prefer: fault=500|503|reset|timeout`,
// `Prefer: delay=N`), per project (`PUT /_sim/faults`: a rate within a stated tolerance over 1,000 requests, fixed and
// jittered latency, chosen operations, the next N requests), never unless asked, never before the 401, and only
// statuses the contract declares for the operation.
import { request } from "node:http";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createContractAjv } from "../../lib/openapi-ajv.ts";
import { ACME, GLOBEX, startApi, type Api } from "./helpers.ts";

let api: Api;
beforeAll(async () => void (api = await startApi({ faultTimeoutHoldMs: 1_000 })));
afterAll(() => api.server.close());
afterEach(async () => {
  await api.req("/_sim/faults", { method: "DELETE" });
});

const contract = createContractAjv();
const ERROR = "#/components/schemas/ErrorEnvelope";

/** A raw GET that reports what a client sees: a status, or the connection's fate. */
function raw(path: string, headers: Record<string, string>, timeoutMs = 5_000): Promise<{ status?: number; headers?: Record<string, unknown>; body?: string; error?: string; ms: number }> {
  const started = performance.now();
  const url = new URL(`${api.server.baseUrl}${path}`);
  return new Promise((resolve) => {
    const req = request({ host: url.hostname, port: url.port, path: url.pathname + url.search, headers: { authorization: `Bearer ${ACME}`, ...headers }, agent: false }, (res) => {
      let body = "";
      res.on("data", (d) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body, ms: performance.now() - started }));
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error("client timeout")));
    req.on("error", (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message, ms: performance.now() - started }));
    req.end();
  });
}

describe("per request: Prefer", () => {
  it("fault=500 is a 500 in the envelope", async () => {
    const r = await raw("/v1/studies", { prefer: "fault=500" });
    expect(r.status).toBe(500);
    expect(contract.validator(ERROR)(JSON.parse(r.body!))).toBe(true);
  });

  it("fault=503 is a 503 with Retry-After", async () => {
    const r = await raw("/v1/chats", { prefer: "fault=503" });
    expect(r.status).toBe(503);
    expect(r.headers!["retry-after"]).toBe("1");
    expect(JSON.parse(r.body!).error.type).toBe("api_error");
  });

  it("fault=reset closes the connection without an answer", async () => {
    const r = await raw("/v1/studies", { prefer: "fault=reset" });
    expect(r.status).toBeUndefined();
    expect(["ECONNRESET", "socket hang up"]).toContain(r.error);
  });

  it("fault=timeout leaves the request unanswered: the client times out, and the server closes it later", async () => {
    const client = await raw("/v1/studies", { prefer: "fault=timeout" }, 300);
    expect(client.error).toBe("client timeout");
    const patient = await raw("/v1/studies", { prefer: "fault=timeout" }, 5_000);
    expect(patient.status).toBeUndefined();
    expect(patient.ms).toBeGreaterThanOrEqual(900);
  });

  it("delay=N answers normally after at least N ms, and combines with a fault", async () => {
    const r = await raw("/v1/studies?limit=1", { prefer: "delay=300" });
    expect(r.status).toBe(200);
    expect(r.ms).toBeGreaterThanOrEqual(295);
    const both = await raw("/v1/studies?limit=1", { prefer: "fault=503, delay=200" });
    expect([both.status, both.ms >= 195]).toEqual([503, true]);
  });

  it("comes after authentication, and a malformed preference is a 400", async () => {
    const noKey = await fetch(`${api.server.baseUrl}/v1/studies`, { headers: { prefer: "fault=500" } });
    expect(noKey.status).toBe(401);
    expect((await raw("/v1/studies", { prefer: "fault=418" })).status).toBe(400);
    expect((await raw("/v1/studies", { prefer: "delay=-5" })).status).toBe(400);
    // Prism's own preferences are not ours: ignored.
    expect((await raw("/v1/studies", { prefer: "code=404" })).status).toBe(200);
  });

  it("the deprecated endpoint keeps its Deprecation and Sunset headers on a fault", async () => {
    const r = await raw("/v1/experiments", { prefer: "fault=500" });
    expect(r.status).toBe(500);
    expect(r.headers!.deprecation).toBeDefined();
    expect(r.headers!.sunset).toBeDefined();
  });
});

describe("per project: /_sim/faults", () => {
  it("never applies unless asked for: 300 plain requests all succeed", async () => {
    const statuses = await Promise.all(Array.from({ length: 300 }, () => raw("/v1/studies?limit=1", {})));
    expect(statuses.filter((s) => s.status !== 200)).toEqual([]);
  });

  it("holds the rate within ±4.5 standard deviations over 1,000 requests, on the chosen operations only", async () => {
    const set = await api.req("/_sim/faults", { method: "PUT", body: { rate: 0.2, kinds: ["500"], operations: ["listStudies"], seed: 7 } });
    expect(set.status).toBe(200);
    let failed = 0;
    for (let batch = 0; batch < 10; batch++) {
      const replies = await Promise.all(Array.from({ length: 100 }, () => raw("/v1/studies?limit=1", {})));
      failed += replies.filter((r) => r.status === 500).length;
      expect(replies.every((r) => r.status === 200 || r.status === 500)).toBe(true);
    }
    // Binomial(1000, 0.2): mean 200, standard deviation 12.6.
    expect(failed).toBeGreaterThanOrEqual(143);
    expect(failed).toBeLessThanOrEqual(257);
    const other = await Promise.all(Array.from({ length: 100 }, () => raw("/v1/chats?limit=1", {})));
    expect(other.every((r) => r.status === 200)).toBe(true);
  }, 60_000);

  it("adds fixed and jittered latency", async () => {
    await api.req("/_sim/faults", { method: "PUT", body: { latency_ms: 100, jitter_ms: 100 } });
    const times = (await Promise.all(Array.from({ length: 20 }, () => raw("/v1/releases?limit=1", {})))).map((r) => r.ms);
    expect(Math.min(...times)).toBeGreaterThanOrEqual(95);
    expect(Math.max(...times)).toBeGreaterThan(Math.min(...times) + 10);
    expect(Math.max(...times)).toBeLessThan(1_000);
  });

  it("fails the next N requests, then answers normally; the settings are the caller's project's only", async () => {
    await api.req("/_sim/faults", { method: "PUT", body: { fail_next: 2, fail_next_kind: "503" } });
    const other = await api.req("/v1/studies?limit=1", { key: GLOBEX });
    expect(other.status).toBe(200);
    const seq = [];
    for (let i = 0; i < 3; i++) seq.push((await raw("/v1/studies?limit=1", {})).status);
    expect(seq).toEqual([503, 503, 200]);
    // The settings operations themselves are never faulted, so a sandbox can always be set right.
    await api.req("/_sim/faults", { method: "PUT", body: { rate: 1 } });
    expect((await api.req("/_sim/faults")).status).toBe(200);
    expect((await api.req("/_sim/faults", { method: "DELETE" })).status).toBe(204);
    expect((await raw("/v1/studies?limit=1", {})).status).toBe(200);
  });

  it("refuses settings outside their ranges", async () => {
    for (const body of [{ rate: 2 }, { kinds: ["418"] }, { latency_ms: -1 }, { webhook_failure_status: 200 }, { bogus: 1 }, { operations: ["listStudys"] }]) {
      expect((await api.req("/_sim/faults", { method: "PUT", body })).status, JSON.stringify(body)).toBe(400);
    }
    const typo = await api.req("/_sim/faults", { method: "PUT", body: { operations: ["listStudies", "listStudys"] } });
    expect(typo.body.error.details).toEqual([{ location: "body", field: "operations/1", message: "listStudys is not one of the 34 allowed values (did you mean listStudies?)" }]);
  });
});

describe("the contract declares every fault the sandbox returns", () => {
  it("every operation declares 500 and 503 (with Retry-After), in the error envelope", () => {
    const missing: string[] = [];
    for (const [path, item] of Object.entries<any>(contract.doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        for (const status of ["500", "503"]) if (!op.responses?.[status]) missing.push(`${method.toUpperCase()} ${path} ${status}`);
        if (op.responses?.["503"] && !op.responses["503"].headers?.["Retry-After"]) missing.push(`${method.toUpperCase()} ${path} 503 Retry-After`);
      }
    }
    expect(missing).toEqual([]);
  });
});
