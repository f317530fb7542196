// Bearer auth on every endpoint: 401 for missing, malformed and unknown keys, before any 400 or 404.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routes } from "../../generated/routes.ts";
import { ACME, ACME_PK, NEVER, startApi, type Api } from "./helpers.ts";

let api: Api;
beforeAll(async () => void (api = await startApi()));
afterAll(() => api.server.close());

const concrete = (path: string) => path.replace("{id}", NEVER);
const project = routes.filter((r) => r.auth === "project");
const participant = routes.filter((r) => r.auth === "public");

const badAuth: Array<[string, Record<string, string>]> = [
  ["no header", {}],
  ["empty header", { authorization: "" }],
  ["other scheme", { authorization: `Basic ${Buffer.from(`${ACME}:`).toString("base64")}` }],
  ["empty bearer", { authorization: "Bearer " }],
  ["lowercase scheme with a space too many", { authorization: `Bearer  ${ACME}` }],
  ["unknown key", { authorization: "Bearer svc_live_nobody_0123456789abcdef0123456789abcdef" }],
  ["wrong prefix", { authorization: `Bearer ${ACME.replace("svc_live_", "svc_test_")}` }],
  ["trailing garbage", { authorization: `Bearer ${ACME}x` }],
  ["public key as API key", { authorization: `Bearer ${ACME_PK}` }],
];

describe("project key", () => {
  for (const route of project) {
    it.each(badAuth)(`${route.method.toUpperCase()} ${route.path}: %s -> 401`, async (_name, headers) => {
      const res = await api.req(concrete(route.path), { key: null, method: route.method.toUpperCase(), headers, body: route.requestBody ? {} : undefined });
      expect(res.status).toBe(401);
      expect(res.body.error.type).toBe("authentication_error");
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    });
  }

  it("401 wins over 400 (invalid parameters) and 404 (unknown id)", async () => {
    const bad = await api.req("/v1/studies?limit=0", { key: "svc_live_nobody" });
    expect(bad.status).toBe(401);
    const missing = await api.req(`/v1/interviews/${NEVER}`, { key: null });
    expect(missing.status).toBe(401);
    const badId = await api.req("/v1/chats/not-a-uuid/messages?limit=500", { key: null });
    expect(badId.status).toBe(401);
  });
});

describe("public SDK key", () => {
  for (const route of participant) {
    it(`${route.method.toUpperCase()} ${route.path} rejects a missing, unknown or project key`, async () => {
      const variants: Array<Record<string, string>> = [{}, { "x-public-key": "pk_live_nobody" }, { "x-public-key": ACME }, { authorization: `Bearer ${ACME}` }];
      for (const headers of variants) {
        const res = await api.req(route.path, { key: null, method: route.method.toUpperCase(), headers, body: route.requestBody ? {} : undefined });
        expect(res.status).toBe(401);
        expect(res.body.error.type).toBe("authentication_error");
      }
    });
  }
});
