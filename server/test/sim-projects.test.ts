// Projects on demand (POST /_sim/projects): empty, with their own keys, isolated from every other project, in the
// states that exist only before anything was configured.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_TENANT_LIMITS } from "../src/model/tenant-limits.ts";
const MAX_CREATED_PROJECTS = DEFAULT_TENANT_LIMITS.projects;
import { ACME, startApi, type Api } from "./helpers.ts";

let api: Api;
beforeAll(async () => void (api = await startApi()));
afterAll(() => api.server.close());

describe("POST /_sim/projects", () => {
  it("creates an empty project whose own keys work, in its never-configured states", async () => {
    const made = await api.req("/_sim/projects", { method: "POST", body: { name: "Scratch" } });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ object: "sim_project", name: "Scratch", api_key: expect.stringMatching(/^svc_live_sim_[0-9a-f]{32}$/), public_key: expect.stringMatching(/^pk_live_sim_[0-9a-f]{32}$/) });
    const key = made.body.api_key;
    for (const list of ["/v1/studies", "/v1/interviews", "/v1/releases", "/v1/chats", "/_sim/webhook-deliveries"]) {
      const r = await api.req(list, { key });
      expect([list, r.status, r.body.data, r.body.has_more]).toEqual([list, 200, [], false]);
    }
    const hook = await api.req("/v1/webhooks", { key });
    expect(hook.status).toBe(404);
    const experiments = await api.req("/v1/experiments", { key });
    expect(experiments.status).toBe(200);
    const config = await api.req("/v1/interview-participant/config", { key: null, headers: { "x-public-key": made.body.public_key } });
    expect(config.status).toBe(200);
  });

  it("is isolated both ways: nothing of another project is visible, and its data is invisible to others", async () => {
    const { body: mine } = await api.req("/_sim/projects", { method: "POST", body: {} });
    expect(mine.name).toBe("Simulated project");
    const acmeStudy = (await api.req("/v1/studies?limit=1")).body.data[0];
    expect((await api.req(`/v1/studies/${acmeStudy.id}`, { key: mine.api_key })).status).toBe(404);
    const planted = await api.req("/_sim/studies", { method: "POST", key: mine.api_key, body: { name: "Only mine", weekly_limit: 0 } });
    expect(planted.status).toBe(201);
    expect((await api.req(`/v1/studies/${planted.body.id}`)).status).toBe(404);
    expect((await api.req(`/v1/studies/${planted.body.id}`, { key: mine.api_key })).body.accepting_responses).toBe(false);
    const other = await api.req("/_sim/projects", { method: "POST", body: {} });
    expect(other.body.api_key).not.toBe(mine.api_key);
    expect((await api.req("/v1/studies", { key: other.body.api_key })).body.data).toEqual([]);
  });

  it("refuses unknown fields and a missing key, and stops at the per-run cap with a 409", async () => {
    expect((await api.req("/_sim/projects", { method: "POST", body: { bogus: 1 } })).status).toBe(400);
    expect((await api.req("/_sim/projects", { method: "POST", key: null, body: {} })).status).toBe(401);
    const fresh = await startApi();
    try {
      for (let i = 0; i < MAX_CREATED_PROJECTS; i++) expect((await fresh.req("/_sim/projects", { method: "POST", key: ACME, body: {} })).status).toBe(201);
      const over = await fresh.req("/_sim/projects", { method: "POST", key: ACME, body: {} });
      expect(over.status).toBe(409);
    } finally {
      await fresh.server.close();
    }
  });
});
