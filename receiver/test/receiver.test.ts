// The receiver library through real HTTP: verification over raw bytes, rotation, malformed input,
// re-serialised bodies, a middleware mounted too late, and de-duplication.
import { createHash } from "node:crypto";
import type { AddressInfo } from "node:net";
import express from "express";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { createDeduplicator, signWebhookBody, verifiedWebhook, verifyWebhookSignature, webhookMiddleware } from "../src/index.ts";

const GITHUB = { secret: "It's a Secret to Everybody", body: "Hello, World!", signature: "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17" };

describe("verifyWebhookSignature", () => {
  it("matches GitHub's public test vector", () => {
    expect(signWebhookBody(GITHUB.body, GITHUB.secret)).toBe(GITHUB.signature);
    expect(verifyWebhookSignature(Buffer.from(GITHUB.body), GITHUB.signature, GITHUB.secret)).toEqual({ ok: true, secretIndex: 0 });
  });

  it("signs multi-byte UTF-8 bodies over their bytes", () => {
    const body = '{"summary":"Ich hätte gern eine Checkliste 日本語 😀"}';
    const sig = signWebhookBody(body, "s3cret");
    expect(verifyWebhookSignature(Buffer.from(body, "utf8"), sig, "s3cret").ok).toBe(true);
    // The same text encoded differently is other bytes, so it must not verify.
    expect(verifyWebhookSignature(Buffer.from(body, "latin1"), sig, "s3cret")).toEqual({ ok: false, reason: "signature_mismatch" });
  });

  it("accepts any secret of a rotation and says which", () => {
    const sig = signWebhookBody(GITHUB.body, "new");
    expect(verifyWebhookSignature(GITHUB.body, sig, ["old", "new"])).toEqual({ ok: true, secretIndex: 1 });
    expect(verifyWebhookSignature(GITHUB.body, sig, ["old"])).toEqual({ ok: false, reason: "signature_mismatch" });
  });

  it.each([
    [[], "no_secrets"],
    [[""], "empty_secret"],
    [["ok", ""], "empty_secret"],
  ])("rejects secrets %j as %s", (secrets, reason) => {
    expect(verifyWebhookSignature(GITHUB.body, GITHUB.signature, secrets)).toEqual({ ok: false, reason });
  });

  it.each([
    [undefined, "missing_signature"],
    ["", "missing_signature"],
    [GITHUB.signature.slice(7), "malformed_signature"],
    [GITHUB.signature.toUpperCase(), "malformed_signature"],
    ["sha256=" + GITHUB.signature.slice(7).toUpperCase(), "malformed_signature"],
    [GITHUB.signature.slice(0, -2), "malformed_signature"],
    [GITHUB.signature + "00", "malformed_signature"],
    ["sha256=" + "z".repeat(64), "malformed_signature"],
    ["sha1=" + createHash("sha1").update("x").digest("hex"), "malformed_signature"],
    [[GITHUB.signature, GITHUB.signature], "malformed_signature"],
    ["sha256=" + "0".repeat(64), "signature_mismatch"],
  ])("header %j -> %s, without throwing", (header, reason) => {
    expect(verifyWebhookSignature(GITHUB.body, header as string, GITHUB.secret)).toEqual({ ok: false, reason });
  });

  it("a re-serialised body does not verify", () => {
    const raw = '{"event":"interview.completed",  "data": {"interview_id":"x"}}';
    const sig = signWebhookBody(raw, "k");
    expect(verifyWebhookSignature(JSON.stringify(JSON.parse(raw)), sig, "k").ok).toBe(false);
  });

  it("property: sign then verify round-trips; any single bit flip of body or signature fails", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 512 }), fc.string({ minLength: 1 }), fc.nat(), (bytes, secret, at) => {
        const body = Buffer.from(bytes);
        const sig = signWebhookBody(body, secret);
        expect(verifyWebhookSignature(body, sig, secret).ok).toBe(true);
        const flipped = Buffer.from(body);
        flipped[at % flipped.length] ^= 1 << (at % 8);
        expect(verifyWebhookSignature(flipped, sig, secret).ok).toBe(false);
        const hex = sig.slice(7).split("");
        const i = at % 64;
        hex[i] = hex[i] === "0" ? "1" : "0";
        expect(verifyWebhookSignature(body, `sha256=${hex.join("")}`, secret).ok).toBe(false);
      }),
      { numRuns: 300, seed: 4 },
    );
  });
});

describe("webhookMiddleware over HTTP", () => {
  const servers: Array<{ close(): void }> = [];
  afterEach(() => servers.splice(0).forEach((s) => s.close()));

  async function serve(configure: (app: express.Express) => void) {
    const app = express();
    configure(app);
    const server = app.listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    servers.push(server);
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  }
  const post = (url: string, body: string, headers: Record<string, string>) => fetch(url, { method: "POST", body, headers: { "content-type": "application/json", ...headers } });

  it("verifies before parsing and hands over the event", async () => {
    const url = await serve((app) => app.post("/hook", webhookMiddleware({ secrets: ["old", "new"] }), (req, res) => void res.json({ event: verifiedWebhook(req).event, id: verifiedWebhook(req).payload.data.interview_id, bytes: verifiedWebhook(req).rawBody.length })));
    const body = '{"event":"interview.completed","data":{"interview_id":"b3e2","session_id":"b3e2","study_name":"Über 日本 😀"}}';
    const ok = await post(url, body, { "x-webhook-event": "interview.completed", "x-webhook-signature": signWebhookBody(body, "new") });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ event: "interview.completed", id: "b3e2", bytes: Buffer.byteLength(body) });

    const bad = await post(url, body, { "x-webhook-signature": signWebhookBody(body + " ", "new") });
    expect(bad.status).toBe(401);
    expect((await bad.json()).error.message).toMatch(/does not match/);
    const none = await post(url, body, {});
    expect((await none.json()).error.message).toMatch(/Missing/);
    const notJson = await post(url, "{oops", { "x-webhook-signature": signWebhookBody("{oops", "old") });
    expect(notJson.status).toBe(400);
    const form = await fetch(url, { method: "POST", body: "a=1", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(form.status).toBe(415);
  });

  it("refuses a body over the limit", async () => {
    const url = await serve((app) => app.post("/hook", webhookMiddleware({ secrets: "k", maxBodyBytes: 100 }), (_req, res) => void res.end()));
    const body = JSON.stringify({ pad: "x".repeat(500) });
    const res = await post(url, body, { "x-webhook-signature": signWebhookBody(body, "k") });
    expect(res.status).toBe(413);
  });

  it("works after express.raw, and refuses clearly when express.json ran first", async () => {
    const rawUrl = await serve((app) => app.post("/hook", express.raw({ type: "application/json" }), webhookMiddleware({ secrets: "k" }), (_req, res) => void res.end("ok")));
    const body = '{"event":"interview.completed","data":{}}';
    expect((await post(rawUrl, body, { "x-webhook-signature": signWebhookBody(body, "k") })).status).toBe(200);
    const jsonUrl = await serve((app) => app.post("/hook", express.json(), webhookMiddleware({ secrets: "k" }), (_req, res) => void res.end("ok")));
    const res = await post(jsonUrl, body, { "x-webhook-signature": signWebhookBody(body, "k") });
    expect(res.status).toBe(500);
    expect((await res.json()).error.message).toContain("mount webhookMiddleware before express.json()");
  });

  it("takes the event type from the signed payload, never from the unsigned X-Webhook-Event header", async () => {
    const url = await serve((app) => app.post("/hook", webhookMiddleware({ secrets: "k" }), (req, res) => void res.json({ event: verifiedWebhook(req).event })));
    const body = '{"event":"interview.completed","data":{"interview_id":"i1"}}';
    const forged = await post(url, body, { "x-webhook-event": "study.deleted", "x-webhook-signature": signWebhookBody(body, "k") });
    expect(await forged.json()).toEqual({ event: "interview.completed" });
    for (const signed of ["null", "42", "[]", '{"data":{}}']) {
      const res = await post(url, signed, { "x-webhook-signature": signWebhookBody(signed, "k") });
      expect(res.status, signed).toBe(400);
      expect((await res.json()).error.type).toBe("invalid_payload");
    }
  });

  it("rejects a signed timestamp outside toleranceMs (replay), and accepts one inside it", async () => {
    const now = Date.parse("2026-03-02T12:00:00Z");
    const url = await serve((app) => app.post("/hook", webhookMiddleware({ secrets: "k", toleranceMs: 600_000, now: () => now }), (_req, res) => void res.end("ok")));
    const at = (iso: unknown) => JSON.stringify({ event: "interview.completed", timestamp: iso, data: {} });
    for (const [iso, status] of [["2026-03-02T11:55:00Z", 200], ["2026-03-02T12:09:00Z", 200], ["2026-03-02T11:49:59Z", 401], ["2026-03-02T12:10:01Z", 401], ["not a date", 401], [null, 401]] as const) {
      const body = at(iso);
      const res = await post(url, body, { "x-webhook-signature": signWebhookBody(body, "k") });
      expect(res.status, String(iso)).toBe(status);
    }
  });

  it("refuses to start without a usable secret", () => {
    expect(() => webhookMiddleware({ secrets: [] })).toThrow(/non-empty/);
    expect(() => webhookMiddleware({ secrets: "" })).toThrow(/non-empty/);
  });
});

describe("createDeduplicator", () => {
  it("recognises repeats by session_id (or interview_id) until the TTL passes", async () => {
    let now = 0;
    const d = createDeduplicator({ ttlMs: 1000, clock: { now: () => now } });
    const a = { event: "interview.completed", data: { session_id: "s1", interview_id: "s1" } };
    expect(await d.seen(a)).toBe(false);
    expect(await d.seen(structuredClone(a))).toBe(true);
    expect(await d.seen({ event: "interview.completed", data: { interview_id: "i2" } })).toBe(false);
    expect(await d.seen({ event: "interview.completed", data: { interview_id: "i2" } })).toBe(true);
    now = 1001;
    expect(await d.seen(a)).toBe(false);
    expect(await d.seen({ event: "interview.completed", data: {} })).toBe(false);
  });

  it("never treats a signed null, a number or an object without data as a duplicate, and never crashes on them", async () => {
    const dedupe = createDeduplicator();
    for (const odd of [null, undefined, 42, "x", [], {}, { data: null }, { data: { session_id: 7 } }]) {
      expect(await dedupe.seen(odd)).toBe(false);
      expect(await dedupe.seen(odd)).toBe(false);
    }
  });

  it("keeps at most maxEntries ids", async () => {
    const d = createDeduplicator({ maxEntries: 2, ttlMs: 60_000, clock: { now: () => 0 } });
    for (const id of ["a", "b", "c"]) await d.seen({ event: "e", data: { session_id: id } });
    expect(await d.seen({ event: "e", data: { session_id: "a" } })).toBe(false);
    expect(await d.seen({ event: "e", data: { session_id: "c" } })).toBe(true);
  });
});
