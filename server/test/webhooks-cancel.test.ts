// Deleting or replacing the webhook cancels the pending retries to the old setting; an attempt in flight to the
// old setting is not retried; a PUT that changes nothing keeps the retries going.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../src/clock.ts";
import { ACME, startApi, type Api } from "./helpers.ts";
import {
  acceptingStudy, answer, deliveries, registerHook, simulate, sleep, startReceiver, waitFor, waitForAttempts, type Behaviour, type Receiver,
} from "./webhooks-helpers.ts";

const DELAYS = [250, 250, 250];
/** Long enough for every retry of an uncancelled event to have happened. */
const ALL_RETRIES_MS = DELAYS.reduce((a, b) => a + b, 0) + 300;

let api: Api;
let study: any;
const receivers: Receiver[] = [];

beforeAll(async () => {
  api = await startApi({ clock: systemClock, simProcessingMs: 20, webhookRetryDelaysMs: DELAYS, webhookTimeoutMs: 2_000 });
  study = await acceptingStudy(api, undefined, 6);
});
afterAll(async () => {
  await api.server.close();
  await Promise.all(receivers.map((r) => r.close()));
});

async function receiver(behaviour: Behaviour): Promise<Receiver> {
  const r = await startReceiver(behaviour);
  receivers.push(r);
  return r;
}

const put = (url: string) => api.req("/v1/webhooks", { method: "PUT", key: ACME, body: { url, events: ["interview.completed"] } });
const firstFailedSecondPending = (a: any[]) => a.length === 2 && a[0].status === "failed" && a[1].status === "pending";

describe("changing the webhook while retries are pending", () => {
  it("DELETE cancels the pending retry and the receiver gets nothing more", async () => {
    const r = await receiver(answer(500));
    await registerHook(api, r.url);
    const interview = await simulate(api, study.id);
    await waitForAttempts(api, interview.id, "a retry pending", firstFailedSecondPending);

    expect((await api.req("/v1/webhooks", { method: "DELETE" })).status).toBe(204);
    const attempts = await deliveries(api, interview.id);
    expect(attempts[1]).toMatchObject({ attempt: 2, status: "cancelled", error: "cancelled: webhook deleted", sent_at: null, response_status: null });
    expect(attempts[1].finished_at).not.toBeNull();

    await sleep(ALL_RETRIES_MS);
    expect(r.requests.length).toBe(1);
    expect(await deliveries(api, interview.id)).toEqual(attempts);
  });

  it("replacing the URL stops deliveries to the old URL; new events go to the new one", async () => {
    const oldR = await receiver(answer(500));
    const newR = await receiver(answer(200));
    await registerHook(api, oldR.url);
    const interview = await simulate(api, study.id);
    await waitForAttempts(api, interview.id, "a retry pending", firstFailedSecondPending);

    expect((await put(newR.url)).status).toBe(200);
    expect((await deliveries(api, interview.id))[1]).toMatchObject({ status: "cancelled", error: "cancelled: webhook replaced", url: oldR.url });

    const next = await simulate(api, study.id);
    await waitForAttempts(api, next.id, "delivery to the new URL", (a) => a.length === 1 && a[0].status === "succeeded");
    await sleep(ALL_RETRIES_MS);
    expect(oldR.requests.length).toBe(1);
    // Only the new event reached the new URL: the old event is not moved over.
    expect(newR.requests.map((q) => JSON.parse(q.body.toString()).data.interview_id)).toEqual([next.id]);
  });

  it("an attempt in flight when the webhook is deleted is not retried", async () => {
    let release: () => void = () => {};
    const answered = new Promise<void>((resolve) => (release = resolve));
    const r = await receiver((_n, _req, res) => void answered.then(() => res.writeHead(500).end()));
    await registerHook(api, r.url);
    const interview = await simulate(api, study.id);
    await waitFor("the request to arrive", () => (r.requests.length === 1 ? true : undefined));
    expect((await deliveries(api, interview.id))[0].status).toBe("in_flight");

    await api.req("/v1/webhooks", { method: "DELETE" });
    release();
    const attempts = await waitForAttempts(api, interview.id, "the attempt to finish", (a) => a[0].status !== "in_flight");
    await sleep(ALL_RETRIES_MS);
    expect(await deliveries(api, interview.id)).toEqual(attempts);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({ status: "failed", error: "http_500" });
    expect(r.requests.length).toBe(1);
  });

  it("a PUT with the same URL and events changes nothing: the retries go on", async () => {
    const r = await receiver((n, req, res) => answer(n < 3 ? 500 : 200)(n, req, res));
    await registerHook(api, r.url);
    const interview = await simulate(api, study.id);
    await waitForAttempts(api, interview.id, "a retry pending", firstFailedSecondPending);

    expect((await put(r.url)).status).toBe(200);
    const attempts = await waitForAttempts(api, interview.id, "a success", (a) => a.some((x) => x.status === "succeeded"));
    expect(attempts.map((a) => a.status)).toEqual(["failed", "failed", "succeeded"]);
    expect(r.requests.length).toBe(3);
  });
});
