// PUT/GET/DELETE /v1/webhooks: 201 with the secret on creation, 200 without it on update, HTTPS only
// (plain http for loopback hosts), 404 when none, 204 on delete.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GLOBEX, startApi, type Api } from "./helpers.ts";

let api: Api;
beforeAll(async () => void (api = await startApi()));
afterAll(() => api.server.close());

const put = (url: string, events: string[] = ["interview.completed"], key = GLOBEX) => api.req("/v1/webhooks", { method: "PUT", key, body: { url, events } });

describe("webhook configuration", () => {
  it("runs the whole lifecycle", async () => {
    expect((await api.req("/v1/webhooks", { key: GLOBEX })).status).toBe(404);

    const created = await put("https://hooks.globex.example/a");
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ url: "https://hooks.globex.example/a", events: ["interview.completed"], signing_secret: expect.stringMatching(/^whsec_[0-9a-f]{48}$/) });

    const updated = await put("https://hooks.globex.example/b", ["interview.completed", "interview.completed"]);
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ url: "https://hooks.globex.example/b", events: ["interview.completed"] });

    const got = await api.req("/v1/webhooks", { key: GLOBEX });
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ url: "https://hooks.globex.example/b", events: ["interview.completed"] });
    expect(got.text).not.toContain("whsec_");

    const deleted = await api.req("/v1/webhooks", { method: "DELETE", key: GLOBEX });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe("");
    expect((await api.req("/v1/webhooks", { key: GLOBEX })).status).toBe(404);
    expect((await api.req("/v1/webhooks", { method: "DELETE", key: GLOBEX })).status).toBe(204);

    const again = await put("https://hooks.globex.example/c");
    expect(again.status).toBe(201);
    expect(again.body.signing_secret).not.toBe(created.body.signing_secret);
    await api.req("/v1/webhooks", { method: "DELETE", key: GLOBEX });
  });

  it.each([
    "http://127.0.0.1:9/hook", "http://localhost:8080/hook", "http://[::1]:8080/hook", "http://127.9.9.9/x", "https://hooks.example.com/x",
  ])("accepts %s", async (url) => {
    const res = await put(url);
    expect([200, 201]).toContain(res.status);
  });

  it.each([
    ["http://hooks.example.com/x", "https"],
    ["http://10.0.0.1/x", "private"],
    ["https://10.0.0.1/x", "private"],
    ["https://169.254.169.254/latest/meta-data/", "private"],
    ["https://[fd00::1]/x", "private"],
    ["https://[::ffff:169.254.169.254]/x", "private"],
    ["https://[::ffff:10.1.2.3]/x", "private"],
    ["https://metadata.google.internal/computeMetadata/v1/", "metadata"],
    ["https://0.0.0.0/x", "private"],
    ["https://192.168.1.10:8443/x", "private"],
    ["https://[fe80::1]/x", "private"],
    ["http://127.0.0.1.example.com/x", "https"],
    ["ftp://127.0.0.1/x", "https"],
    ["https://user:pass@hooks.example.com/x", "credentials"],
    ["not a url", "uri"],
  ])("rejects %s", async (url, why) => {
    const res = await put(url);
    expect(res.status).toBe(400);
    expect(res.body.error.details[0]).toMatchObject({ location: "body", field: "url" });
    expect(res.body.error.details[0].message).toContain(why);
  });

  it.each([[[]], [["interview.started"]], [[42]]])("rejects events %j", async (events) => {
    const res = await put("https://hooks.example.com/x", events as string[]);
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].field).toMatch(/^events/);
  });

  it("requires both fields", async () => {
    const res = await api.req("/v1/webhooks", { method: "PUT", key: GLOBEX, body: {} });
    expect(res.body.error.details.map((d: any) => d.field).sort()).toEqual(["events", "url"]);
  });
});
