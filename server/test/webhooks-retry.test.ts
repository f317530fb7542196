// The retry schedule through real HTTP: a non-2xx answer, a timeout, a reset or a refused connection is retried
// after each configured delay, at most 4 attempts with byte-identical bodies and signatures; a 2xx stops it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../src/clock.ts";
import { startApi, type Api } from "./helpers.ts";
import {
  acceptingStudy, answer, closedPort, deliveries, gapMs, registerHook, simulate, sleep, startReceiver, waitFor, waitForAttempts,
  type Behaviour, type Receiver,
} from "./webhooks-helpers.ts";

const DELAYS = [150, 300, 450];
const TIMEOUT_MS = 300;
/** Timers may fire a millisecond early by performance.now(); the schedule itself is asserted exactly on the record. */
const SLACK_MS = 2;

let api: Api;
let study: any;
const receivers: Receiver[] = [];

beforeAll(async () => {
  api = await startApi({ clock: systemClock, simProcessingMs: 20, webhookRetryDelaysMs: DELAYS, webhookTimeoutMs: TIMEOUT_MS });
  study = await acceptingStudy(api, undefined, 8);
});
afterAll(async () => {
  await api.server.close();
  await Promise.all(receivers.map((r) => r.close()));
});

async function receiverFor(behaviour: Behaviour): Promise<Receiver> {
  const r = await startReceiver(behaviour);
  receivers.push(r);
  await registerHook(api, r.url);
  return r;
}

const finished = (a: any) => a.status === "succeeded" || a.status === "failed" || a.status === "cancelled";
const exhausted = (a: any[]) => a.length === 4 && a.every(finished);

/** Every attempt of one event went out with the same bytes and the same signature. */
function expectIdenticalBodies(receiver: Receiver) {
  const [first, ...rest] = receiver.requests;
  for (const r of rest) {
    expect(r.body.equals(first.body)).toBe(true);
    expect(r.headers["x-webhook-signature"]).toBe(first.headers["x-webhook-signature"]);
  }
}

/** The record's schedule: each retry is due exactly its delay after the failure before it, and sent no earlier. */
function expectScheduled(attempts: any[]) {
  expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3, 4]);
  expect(new Set(attempts.map((a) => a.event_id)).size).toBe(1);
  for (let i = 1; i < attempts.length; i++) {
    expect(gapMs(attempts[i - 1].finished_at, attempts[i].scheduled_at)).toBe(DELAYS[i - 1]);
    expect(gapMs(attempts[i].scheduled_at, attempts[i].sent_at)).toBeGreaterThanOrEqual(0);
  }
}

describe("a receiver answering 500", () => {
  let receiver: Receiver;
  let interview: any;
  let attempts: any[];

  beforeAll(async () => {
    receiver = await receiverFor(answer(500, "boom"));
    interview = await simulate(api, study.id);
    attempts = await waitForAttempts(api, interview.id, "4 finished attempts", exhausted);
    // Well past the last delay: a 5th attempt would have been due by now.
    await sleep(DELAYS.at(-1)! + 300);
  });

  it("gets 4 attempts, spaced by the configured delays, with byte-identical bodies, and no 5th", () => {
    expect(receiver.requests.length).toBe(4);
    for (let i = 1; i < 4; i++) expect(receiver.requests[i].at - receiver.requests[i - 1].at).toBeGreaterThanOrEqual(DELAYS[i - 1] - SLACK_MS);
    expectIdenticalBodies(receiver);
  });

  it("Done when: GET /api/_sim/webhook-deliveries shows four attempts at the configured delays and then none", async () => {
    const now = await deliveries(api, interview.id);
    expect(now).toEqual(attempts);
    expectScheduled(now);
    for (const a of now) expect(a).toMatchObject({ status: "failed", response_status: 500, error: "http_500", url: receiver.url, interview_id: interview.id });
  });
});

describe("a receiver that never answers", () => {
  it("times out each attempt after the timeout, closes the socket, and retries 3 times", async () => {
    const receiver = await receiverFor(() => {}); // reads the request, never answers
    const interview = await simulate(api, study.id);
    const attempts = await waitForAttempts(api, interview.id, "4 timed-out attempts", exhausted);
    expectScheduled(attempts);
    for (const a of attempts) {
      expect(a).toMatchObject({ status: "failed", response_status: null, error: "timeout" });
      expect(gapMs(a.sent_at, a.finished_at)).toBeGreaterThanOrEqual(TIMEOUT_MS - SLACK_MS);
    }
    await waitFor("every socket closed", () => (receiver.requests.every((r) => r.closedAt !== null) ? true : undefined));
    for (const r of receiver.requests) expect(r.closedAt! - r.at).toBeLessThan(TIMEOUT_MS + 500);
    for (let i = 1; i < 4; i++) expect(receiver.requests[i].at - receiver.requests[i - 1].at).toBeGreaterThanOrEqual(TIMEOUT_MS + DELAYS[i - 1] - 50);
    expectIdenticalBodies(receiver);
    await sleep(DELAYS.at(-1)! + TIMEOUT_MS);
    expect(receiver.requests.length).toBe(4);
  });
});

describe("connection failures", () => {
  it("retries a connection reset 3 times", async () => {
    const receiver = await receiverFor((_n, req) => req.socket.destroy());
    const interview = await simulate(api, study.id);
    const attempts = await waitForAttempts(api, interview.id, "4 reset attempts", exhausted);
    expectScheduled(attempts);
    for (const a of attempts) expect(a).toMatchObject({ status: "failed", response_status: null, error: "connection_error: ECONNRESET" });
    expect(receiver.requests.length).toBe(4);
    expectIdenticalBodies(receiver);
  });

  it("retries a refused connection 3 times", async () => {
    const url = `http://127.0.0.1:${await closedPort()}/hook`;
    await registerHook(api, url);
    const interview = await simulate(api, study.id);
    const attempts = await waitForAttempts(api, interview.id, "4 refused attempts", exhausted);
    expectScheduled(attempts);
    for (const a of attempts) expect(a).toMatchObject({ status: "failed", response_status: null, error: "connection_error: ECONNREFUSED", url });
  });
});

describe("a 2xx answer", () => {
  it("stops the retries: 500 then 200 is exactly 2 attempts", async () => {
    const receiver = await receiverFor((n, req, res) => answer(n === 1 ? 500 : 200)(n, req, res));
    const interview = await simulate(api, study.id);
    const attempts = await waitForAttempts(api, interview.id, "a success", (a) => a.some((x) => x.status === "succeeded"));
    await sleep(DELAYS[1] + 200);
    expect(await deliveries(api, interview.id)).toEqual(attempts);
    expect(attempts.map((a) => [a.attempt, a.status, a.response_status, a.error])).toEqual([[1, "failed", 500, "http_500"], [2, "succeeded", 200, null]]);
    expect(gapMs(attempts[0].finished_at, attempts[1].scheduled_at)).toBe(DELAYS[0]);
    expect(receiver.requests.length).toBe(2);
    expectIdenticalBodies(receiver);
  });

  it("is any 2xx, and a 3xx or 4xx is a failure", async () => {
    const statuses = [302, 401, 202];
    const receiver = await receiverFor((n, req, res) => answer(statuses[n - 1] ?? 599)(n, req, res));
    const interview = await simulate(api, study.id);
    const attempts = await waitForAttempts(api, interview.id, "a success", (a) => a.some((x) => x.status === "succeeded"));
    expect(attempts.map((a) => a.error)).toEqual(["http_302", "http_401", null]);
    expect(receiver.requests.length).toBe(3);
  });
});
