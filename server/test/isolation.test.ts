// Each key sees only its project: another project's id answers exactly like an id that never existed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acme, expected, globex } from "./oracle.ts";
import { ACME, GLOBEX, NEVER, startApi, type Api } from "./helpers.ts";

let api: Api;
beforeAll(async () => void (api = await startApi()));
afterAll(() => api.server.close());

const a = expected(acme.id);
const g = expected(globex.id);
const samples: Array<[string, string, string]> = [
  ["studies", a.allStudies[0].id, g.allStudies[0].id],
  ["interviews", a.interviews[0].id, g.interviews[0].id],
  ["releases", a.releases[0].id, g.releases[0].id],
  ["chats", a.chats[0].id, g.chats[0].id],
];

describe("project isolation", () => {
  it.each(samples)("/v1/%s/:id of the other project is a 404 identical to a never-existing id", async (resource, acmeId, globexId) => {
    for (const [key, foreign] of [[GLOBEX, acmeId], [ACME, globexId]]) {
      const leak = await api.req(`/v1/${resource}/${foreign}`, { key });
      const none = await api.req(`/v1/${resource}/${NEVER}`, { key });
      expect(leak.status).toBe(404);
      expect(leak.text.replace(foreign, "<id>")).toBe(none.text.replace(NEVER, "<id>"));
      expect([...leak.headers.keys()].sort()).toEqual([...none.headers.keys()].sort());
    }
  });

  it("messages of the other project's chat are a 404", async () => {
    const res = await api.req(`/v1/chats/${a.chats[0].id}/messages`, { key: GLOBEX });
    expect(res.status).toBe(404);
  });

  it("lists never show the other project's items", async () => {
    for (const path of ["/v1/studies", "/v1/interviews", "/v1/releases", "/v1/chats"]) {
      const mine = new Set((await api.walk(path, 100, ACME)).items.map((i) => i.id));
      const theirs = (await api.walk(path, 100, GLOBEX)).items.map((i) => i.id);
      expect(theirs.filter((id) => mine.has(id))).toEqual([]);
      expect(mine.size).toBeGreaterThan(0);
      expect(theirs.length).toBeGreaterThan(0);
    }
  });

  it("filtering by another project's study gives an empty list, not its interviews", async () => {
    const res = await api.req(`/v1/interviews?study_id=${g.allStudies[0].id}`, { key: ACME });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
  });

  it("webhooks are per project", async () => {
    const put = await api.req("/v1/webhooks", { method: "PUT", key: ACME, body: { url: "https://hooks.acme.example/x", events: ["interview.completed"] } });
    expect(put.status).toBe(201);
    expect((await api.req("/v1/webhooks", { key: GLOBEX })).status).toBe(404);
    expect((await api.req("/v1/webhooks", { method: "DELETE", key: GLOBEX })).status).toBe(204);
    expect((await api.req("/v1/webhooks", { key: ACME })).status).toBe(200);
  });
});
