// The runtime-neutral verifier (Web Crypto, Web Request) and the Hono example run as a real server.
import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { freePort, root, waitUntilUp } from "../../test/support/processes.ts";
import { signWebhookBody } from "../src/index.ts";
import { rejectionResponse, verifyWebhookBytes, verifyWebhookRequest } from "../src/web.ts";

const body = JSON.stringify({ event: "interview.completed", timestamp: "2026-03-02T10:00:00.000Z", data: { interview_id: "i-1", session_id: "i-1", study_name: "Über 日本 😀" } });
const request = (raw: string, headers: Record<string, string>) => new Request("http://receiver.test/hook", { method: "POST", body: raw, headers: { "content-type": "application/json", ...headers } });

describe("verifyWebhookRequest", () => {
  it("accepts the exact signed bytes with any secret of a rotation, and hands over the signed event", async () => {
    const result = await verifyWebhookRequest(request(body, { "x-webhook-signature": signWebhookBody(body, "new") }), { secrets: ["old", "new"] });
    expect(result).toMatchObject({ ok: true, event: "interview.completed", secretIndex: 1, payload: { data: { interview_id: "i-1" } } });
    if (result.ok) expect(new TextDecoder().decode(result.rawBody)).toBe(body);
  });

  it("refuses, in order: the content type (415), the size (413), the signature (401), the signed body (400)", async () => {
    const sig = signWebhookBody(body, "k");
    const type = await verifyWebhookRequest(new Request("http://x/", { method: "POST", body, headers: { "content-type": "text/plain", "x-webhook-signature": sig } }), { secrets: "k" });
    expect(type).toMatchObject({ ok: false, status: 415, reason: "unsupported_media_type" });
    const big = await verifyWebhookRequest(request(body, { "x-webhook-signature": sig }), { secrets: "k", maxBodyBytes: 10 });
    expect(big).toMatchObject({ ok: false, status: 413, reason: "payload_too_large" });
    const forged = await verifyWebhookRequest(request(body.replace("i-1", "i-2"), { "x-webhook-signature": sig }), { secrets: "k" });
    expect(forged).toMatchObject({ ok: false, status: 401, reason: "signature_mismatch" });
    const missing = await verifyWebhookRequest(request(body, {}), { secrets: "k" });
    expect(missing).toMatchObject({ ok: false, status: 401, reason: "missing_signature" });
    const notJson = await verifyWebhookRequest(request("not json", { "x-webhook-signature": signWebhookBody("not json", "k") }), { secrets: "k" });
    expect(notJson).toMatchObject({ ok: false, status: 400, reason: "invalid_json" });
    const nul = await verifyWebhookRequest(request("null", { "x-webhook-signature": signWebhookBody("null", "k") }), { secrets: "k" });
    expect(nul).toMatchObject({ ok: false, status: 400, reason: "invalid_payload" });
  });

  it("rejects a signed timestamp outside the tolerance, and answers refusals with the JSON error body", async () => {
    const result = await verifyWebhookRequest(request(body, { "x-webhook-signature": signWebhookBody(body, "k") }), { secrets: "k", toleranceMs: 60_000, now: () => Date.parse("2026-03-02T10:05:00Z") });
    expect(result).toMatchObject({ ok: false, status: 401, reason: "stale_timestamp" });
    if (result.ok) throw new Error("unreachable");
    const res = rejectionResponse(result);
    expect(res.status).toBe(401);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.json()).toEqual({ error: { type: "stale_timestamp", message: expect.stringContaining("2026-03-02T10:00:00.000Z") } });
  });

  it("agrees with the node:crypto signer on random bodies and secrets, and refuses malformed headers", async () => {
    for (let i = 0; i < 50; i++) {
      const bytes = crypto.getRandomValues(new Uint8Array(i * 7));
      const secret = `s${i}-${Math.random()}`;
      expect(await verifyWebhookBytes(bytes, signWebhookBody(bytes, secret), secret)).toEqual({ ok: true, secretIndex: 0 });
      expect(await verifyWebhookBytes(bytes, signWebhookBody(bytes, secret), `${secret}x`)).toEqual({ ok: false, reason: "signature_mismatch" });
    }
    for (const header of ["sha256=ABC", `sha1=${"0".repeat(64)}`, `sha256=${"0".repeat(63)}`]) {
      expect(await verifyWebhookBytes(body, header, "k")).toEqual({ ok: false, reason: "malformed_signature" });
    }
    expect(await verifyWebhookBytes(body, [signWebhookBody(body, "k"), signWebhookBody(body, "k")], "k")).toEqual({ ok: false, reason: "malformed_signature" });
    expect(await verifyWebhookBytes(body, signWebhookBody(body, "k"), [])).toEqual({ ok: false, reason: "no_secrets" });
  });
});

describe("examples/hono.ts, run as its README says", () => {
  let child: ChildProcess | undefined;
  afterAll(() => void child?.kill("SIGKILL"));

  it("answers 200 to a signed delivery, 200 with duplicate to its retry, and 401 to a forged one", async () => {
    const port = await freePort();
    child = spawn(process.execPath, ["--import", "tsx", "receiver/examples/hono.ts"], { cwd: root, env: { ...process.env, PORT: String(port), WEBHOOK_SECRET: "whsec_test" }, stdio: "ignore" });
    const url = `http://127.0.0.1:${port}/hook`;
    await waitUntilUp(url, 30_000, child);
    const send = (sig: string) => fetch(url, { method: "POST", body, headers: { "content-type": "application/json", "x-webhook-signature": sig } });
    const first = await send(signWebhookBody(body, "whsec_test"));
    expect([first.status, await first.json()]).toEqual([200, { received: true, duplicate: false }]);
    const again = await send(signWebhookBody(body, "whsec_test"));
    expect(await again.json()).toEqual({ received: true, duplicate: true });
    const forged = await send(signWebhookBody(body, "wrong"));
    expect(forged.status).toBe(401);
    expect((await forged.json()).error.type).toBe("invalid_signature");
  }, 40_000);
});
