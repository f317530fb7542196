// The server's deliveries and the receiver library (receiver/) agree: a receiver built with webhookMiddleware
// accepts them with the right secret, and one with a wrong secret answers 401, which the server retries.
import type { AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDeduplicator, verifiedWebhook, webhookMiddleware, type VerifiedWebhook } from "../../receiver/src/index.ts";
import { systemClock } from "../src/clock.ts";
import { startApi, type Api } from "./helpers.ts";
import { acceptingStudy, registerHook, simulate, waitForAttempts } from "./webhooks-helpers.ts";

const DELAYS = [50, 50, 50];

let api: Api;
let study: any;
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  api = await startApi({ clock: systemClock, simProcessingMs: 20, webhookRetryDelaysMs: DELAYS, webhookTimeoutMs: 2_000 });
  study = await acceptingStudy(api, undefined, 2);
});
afterAll(async () => {
  await api.server.close();
  await Promise.all(closers.map((close) => close()));
});

/** A receiver like receiver/examples/express.ts, keyed with whatever secret `secret()` gives when a request arrives. */
async function libraryReceiver(secret: () => string) {
  const received: VerifiedWebhook[] = [];
  const rejected: string[] = [];
  const dedupe = createDeduplicator();
  const app = express();
  app.post("/hook", (req, res, next) => webhookMiddleware({ secrets: secret(), onError: (reason) => rejected.push(reason) })(req, res, next), async (req, res) => {
    received.push(verifiedWebhook(req));
    res.status(200).json({ duplicate: await dedupe.seen(verifiedWebhook(req).payload) });
  });
  const server = app.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", resolve));
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received, rejected };
}

describe("deliveries through the receiver library", () => {
  it("verify with the signing secret and arrive parsed", async () => {
    let secret = "";
    const r = await libraryReceiver(() => secret);
    secret = await registerHook(api, r.url);
    const interview = await simulate(api, study.id);
    const attempts = await waitForAttempts(api, interview.id, "a success", (a) => a.length === 1 && a[0].status === "succeeded");
    expect(attempts[0].response_status).toBe(200);
    expect(r.rejected).toEqual([]);
    expect(r.received).toHaveLength(1);
    expect(r.received[0].event).toBe("interview.completed");
    expect(r.received[0].payload.data.session_id).toBe(interview.id);
  });

  it("are rejected with 401 under a wrong secret, and retried until dropped", async () => {
    const r = await libraryReceiver(() => "whsec_not_the_right_one");
    await registerHook(api, r.url);
    const interview = await simulate(api, study.id);
    const attempts = await waitForAttempts(api, interview.id, "4 failed attempts", (a) => a.length === 4 && a.every((x) => x.status === "failed"));
    expect(attempts.map((a) => a.error)).toEqual(["http_401", "http_401", "http_401", "http_401"]);
    expect(r.rejected).toEqual(["signature_mismatch", "signature_mismatch", "signature_mismatch", "signature_mismatch"]);
    expect(r.received).toEqual([]);
  });
});
