// Server-side request forgery: receivers on private, link-local, metadata and reserved addresses are refused at PUT
// and again at delivery after DNS resolution (a name is resolved and every address checked, and the connection is
// pinned to the checked one); loopback is the local-development exception, and switches off. The delivery log never
// shows an internal address or port.
import { describe, expect, it } from "vitest";
import { classifyAddress, resolveReceiver, urlProblem } from "../src/webhooks/address-policy.ts";
import { postWebhook } from "../src/webhooks/delivery.ts";
import { ACME, startApi } from "./helpers.ts";
import { answer, startReceiver } from "./webhooks-helpers.ts";
import { sleep } from "../../test/support/wait.ts";

describe("address policy", () => {
  it.each([
    ["10.0.0.1", "blocked"], ["172.16.5.4", "blocked"], ["192.168.0.1", "blocked"], ["169.254.169.254", "blocked"], ["100.64.0.1", "blocked"],
    ["0.0.0.0", "blocked"], ["224.0.0.1", "blocked"], ["255.255.255.255", "blocked"], ["fd00::1", "blocked"], ["fe80::1", "blocked"], ["::", "blocked"],
    ["::ffff:169.254.169.254", "blocked"], ["::ffff:a9fe:a9fe", "blocked"], ["64:ff9b::a00:1", "blocked"], ["::ffff:127.0.0.1", "loopback"],
    ["127.0.0.1", "loopback"], ["127.8.9.10", "loopback"], ["::1", "loopback"], ["8.8.8.8", "public"], ["2606:4700::1111", "public"],
  ])("classifies %s as %s", (ip, kind) => expect(classifyAddress(ip)).toBe(kind));

  it("refuses loopback when the local-development exception is off, at PUT and at delivery", async () => {
    expect(urlProblem("http://127.0.0.1:9/h", { allowLoopback: true })).toBeNull();
    expect(urlProblem("http://localhost/h", { allowLoopback: false })).toMatch(/loopback/);
    expect(urlProblem("https://[::1]/h", { allowLoopback: false })).toMatch(/loopback/);
    expect(await resolveReceiver("localhost", { allowLoopback: false })).toEqual({ ok: false, reason: "address not allowed" });
    expect(await resolveReceiver("127.0.0.1", { allowLoopback: true })).toEqual({ ok: true, address: "127.0.0.1", family: 4 });
  });

  it("checks the resolved addresses of a name at delivery, and sends nothing to a refused one", async () => {
    const receiver = await startReceiver(answer(200));
    const port = new URL(receiver.url).port;
    // localhost resolves to loopback: refused with the exception off, delivered with it on.
    const off = await postWebhook({ url: `http://localhost:${port}/h`, body: Buffer.from("{}"), headers: {}, timeoutMs: 2000, addressPolicy: { allowLoopback: false } });
    expect(off).toEqual({ kind: "blocked", reason: "address not allowed" });
    expect(receiver.requests).toHaveLength(0);
    const on = await postWebhook({ url: `http://localhost:${port}/h`, body: Buffer.from("{}"), headers: {}, timeoutMs: 2000, addressPolicy: { allowLoopback: true } });
    expect(on).toEqual({ kind: "answered", status: 200 });
    expect(receiver.requests).toHaveLength(1);
    await receiver.close();
  });

  it("never shows an address or port in the delivery log", async () => {
    const api = await startApi({ webhookAllowLoopback: true });
    try {
      await api.req("/v1/webhooks", { method: "PUT", body: { url: "http://127.0.0.1:1/hook", events: ["interview.completed"] } });
      const study = (await api.req("/v1/studies?limit=100")).body.data.find((s: any) => s.accepting_responses);
      await api.req("/_sim/interviews", { method: "POST", key: ACME, body: { study_id: study.id, hold: true } }).then((r) => api.req(`/_sim/interviews/${r.body.id}/complete`, { method: "POST" }));
      let log: any[] = [];
      for (let i = 0; i < 100 && !log.some((d) => d.status === "failed"); i++) {
        await sleep(20);
        log = (await api.req("/_sim/webhook-deliveries?limit=100")).body.data;
      }
      const failed = log.find((d) => d.status === "failed");
      expect(failed.error).toBe("connection_error: ECONNREFUSED");
      expect(JSON.stringify(log.map((d) => d.error))).not.toMatch(/127\.0\.0\.1|:1\b/);
    } finally {
      await api.server.close();
    }
  });
});
