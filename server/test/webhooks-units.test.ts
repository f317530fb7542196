// The webhook building blocks on their own: the signature against a published HMAC vector, the schedule's
// arithmetic, timers on a manual clock, the bounded attempt log, the payload without a study, and one POST.
import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { StoredInterview } from "../../fixtures/types.ts";
import { AttemptLog } from "../src/webhooks/attempt-log.ts";
import { injectedFields, retryAfter, staleAttempt, type EventDelivery } from "../src/webhooks/attempt-outcome.ts";
import { Project } from "../src/model/project.ts";
import { postWebhook, USER_AGENT } from "../src/webhooks/delivery.ts";
import { interviewCompletedEvent, serializeEvent } from "../src/webhooks/payload.ts";
import { DEFAULT_RETRY_DELAYS_MS, maxAttempts, retryDelayAfter, TimerSet } from "../src/webhooks/schedule.ts";
import { signWebhookBody } from "../src/webhooks/signing.ts";
import type { WebhookDelivery } from "../src/webhooks/types.ts";
import { assertValid, closedPort, manualClock, startReceiver } from "./webhooks-helpers.ts";

describe("signWebhookBody", () => {
  it("is sha256= and the lowercase hex HMAC-SHA256 (RFC 4231 test case 2)", () => {
    expect(signWebhookBody("Jefe", Buffer.from("what do ya want for nothing?"))).toBe(
      "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
    );
  });

  it("signs the exact bytes: a re-serialised body with other whitespace gets another signature", () => {
    const raw = Buffer.from('{"a": 1}');
    const reserialised = Buffer.from(JSON.stringify(JSON.parse(raw.toString())));
    expect(signWebhookBody("s", raw)).toBe(`sha256=${createHmac("sha256", "s").update(raw).digest("hex")}`);
    expect(signWebhookBody("s", raw)).not.toBe(signWebhookBody("s", reserialised));
  });
});

describe("the rules the delivery core calls (attempt-outcome.ts)", () => {
  const ev = { id: "evt", url: "https://example.com/h" };
  const failed = (attempt: number, trigger: WebhookDelivery["trigger"] = attempt === 1 ? "event" : "retry") => ({ status: "failed" as const, trigger, attempt, error: "http_500" });
  const delays = [10_000, 60_000, 300_000];

  const fresh = async () => false;
  const stale = async () => true;
  it("a failed attempt asks for the next one, due its delay after the failure, until the schedule is spent", async () => {
    expect(await retryAfter(failed(1), ev, 1_000, delays, fresh)).toEqual({ attempt: 2, dueMs: 11_000 });
    expect(await retryAfter(failed(2), ev, 1_000, delays, fresh)).toEqual({ attempt: 3, dueMs: 61_000 });
    expect(await retryAfter(failed(3), ev, 1_000, delays, fresh)).toEqual({ attempt: 4, dueMs: 301_000 });
    expect(await retryAfter(failed(4), ev, 1_000, delays, fresh)).toBeNull();
    expect(await retryAfter(failed(1), ev, 1_000, [], fresh)).toBeNull();
  });

  it("asks for none after a success, a cancellation, a resend, or once the webhook changed", async () => {
    expect(await retryAfter({ ...failed(1), status: "succeeded" }, ev, 0, delays, fresh)).toBeNull();
    expect(await retryAfter({ ...failed(1), status: "cancelled" }, ev, 0, delays, fresh)).toBeNull();
    expect(await retryAfter(failed(5, "resend"), ev, 0, delays, fresh)).toBeNull();
    expect(await retryAfter(failed(1), ev, 0, delays, stale)).toBeNull();
  });

  it("cancels an attempt whose webhook was deleted, unsubscribed or replaced, not one kept by an identical PUT; a resend by its own URL", () => {
    const project = new Project({ id: "p", name: "p", api_key: "", public_key: "" });
    const first = project.setWebhook("https://example.com/h", ["interview.completed"], "whsec_1");
    const event = { id: "evt", project, url: first.url, secret: first.signing_secret, version: first.version } as EventDelivery;
    const retry = { trigger: "retry" as const, url: first.url };
    expect(staleAttempt(event, retry, first)).toBeNull();
    expect(staleAttempt(event, retry, null)).toBe("cancelled: webhook deleted");
    expect(staleAttempt(event, retry, { ...first, events: [] })).toBe("cancelled: event unsubscribed");
    const same = project.setWebhook(first.url, ["interview.completed"], "whsec_1");
    expect(same.version).not.toBe(first.version);
    expect(staleAttempt(event, retry, same)).toBeNull();
    const newSecret = project.setWebhook(first.url, ["interview.completed"], "whsec_2");
    expect(staleAttempt(event, retry, newSecret)).toBe("cancelled: webhook replaced");
    // A resend goes to the URL configured when it was made, signed as its event was: a new secret there keeps it.
    expect(staleAttempt(event, { trigger: "resend", url: first.url }, newSecret)).toBeNull();
    expect(staleAttempt(event, { trigger: "resend", url: first.url }, project.setWebhook("https://example.com/other", ["interview.completed"], "whsec_2"))).toBe("cancelled: webhook replaced");
    expect(staleAttempt(event, { trigger: "resend", url: first.url }, null)).toBe("cancelled: webhook deleted");
  });

  it("records an injected failure as the endpoint's answer, marked as simulated; an injected 2xx as a success", () => {
    expect(injectedFields(503)).toEqual({ status: "failed", response_status: 503, error: "http_503 (simulated: /_sim/faults webhook_failures)" });
    expect(injectedFields(404)).toEqual({ status: "failed", response_status: 404, error: "http_404 (simulated: /_sim/faults webhook_failures)" });
    expect(injectedFields(204)).toEqual({ status: "succeeded", response_status: 204, error: null });
  });
});

describe("retry schedule", () => {
  it("is 10 s, 1 min, 5 min by default: 4 attempts, then nothing", () => {
    expect(DEFAULT_RETRY_DELAYS_MS).toEqual([10_000, 60_000, 300_000]);
    expect(maxAttempts(DEFAULT_RETRY_DELAYS_MS)).toBe(4);
    expect([1, 2, 3, 4].map((n) => retryDelayAfter(DEFAULT_RETRY_DELAYS_MS, n))).toEqual([10_000, 60_000, 300_000, null]);
    expect(retryDelayAfter([], 1)).toBeNull();
  });

  it("runs timers on the clock and never runs a cancelled one", () => {
    const clock = manualClock(0);
    const timers = new TimerSet(clock);
    const ran: string[] = [];
    timers.at(100, () => ran.push("a"));
    const cancelB = timers.at(50, () => ran.push("b"));
    timers.at(200, () => ran.push("c"));
    cancelB();
    cancelB(); // twice is harmless
    clock.advance(99);
    expect(ran).toEqual([]);
    clock.advance(1);
    expect(ran).toEqual(["a"]);
    expect(timers.size).toBe(1);
    timers.clearAll();
    clock.advance(1_000);
    expect(ran).toEqual(["a"]);
    expect(clock.pending).toBe(0);
  });

  it("waits out a timer that wakes up before the clock reaches the due time", () => {
    let now = 1_000;
    const armed: Array<{ fn: () => void; ms: number }> = [];
    const timers = new TimerSet({ now: () => now, setTimeout: (fn, ms) => armed.push({ fn, ms }), clearTimeout: () => {} });
    let ran = 0;
    timers.at(1_100, () => ran++);
    expect(armed.map((t) => t.ms)).toEqual([100]);
    now = 1_099; // woke up a millisecond early by the clock
    armed[0].fn();
    expect(ran).toBe(0);
    expect(armed.map((t) => t.ms)).toEqual([100, 1]);
    now = 1_100;
    armed[1].fn();
    expect(ran).toBe(1);
    expect(timers.size).toBe(0);
  });

  it("is not stalled by a frozen clock without timers of its own", async () => {
    const timers = new TimerSet({ now: () => 5_000 });
    const fired = new Promise<number>((resolve) => {
      const t0 = performance.now();
      timers.at(5_030, () => resolve(performance.now() - t0));
    });
    const waited = await fired;
    expect(waited).toBeGreaterThanOrEqual(25);
    expect(waited).toBeLessThan(500);
  });
});

describe("AttemptLog", () => {
  const record = (id: string, scheduledAt: string): WebhookDelivery => ({
    id, object: "webhook_delivery", event_id: id, event: "interview.completed", interview_id: id, attempt: 1, trigger: "event", url: "http://127.0.0.1/x",
    status: "pending", response_status: null, error: null, scheduled_at: scheduledAt, sent_at: null, finished_at: null,
  });

  it("keeps each project's attempts oldest scheduled first, ties by id; past the newest N, forgets the finished ones", () => {
    const log = new AttemptLog(3);
    const finished = (id: string, at: string): WebhookDelivery => ({ ...record(id, at), status: "succeeded", response_status: 200 });
    log.add("p", finished("b", "2026-01-01T00:00:02.000Z"));
    log.add("p", finished("c", "2026-01-01T00:00:01.000Z"));
    log.add("p", finished("a", "2026-01-01T00:00:02.000Z"));
    log.add("q", record("z", "2026-01-01T00:00:00.000Z"));
    expect(log.list("p").map((r) => r.id)).toEqual(["c", "a", "b"]);
    expect(log.add("p", finished("d", "2026-01-01T00:00:03.000Z")).map((r) => r.id)).toEqual(["c"]);
    expect(log.list("p").map((r) => r.id)).toEqual(["a", "b", "d"]);
    expect(log.list("q").map((r) => r.id)).toEqual(["z"]);
    expect(log.list("nobody")).toEqual([]);
  });

  it("never forgets an attempt still pending or in flight, and forgets it once finished, at the next one added", () => {
    const log = new AttemptLog(2);
    const first = record("a", "2026-01-01T00:00:01.000Z");
    log.add("p", first);
    log.add("p", { ...record("b", "2026-01-01T00:00:02.000Z"), status: "failed" });
    expect(log.add("p", { ...record("c", "2026-01-01T00:00:03.000Z"), status: "in_flight" }).map((r) => r.id)).toEqual([]);
    expect(log.list("p").map((r) => r.id)).toEqual(["a", "b", "c"]);
    // Past the newest two: a (pending, kept) and b (failed, forgotten).
    expect(log.add("p", record("d", "2026-01-01T00:00:04.000Z")).map((r) => r.id)).toEqual(["b"]);
    expect(log.list("p").map((r) => r.id)).toEqual(["a", "c", "d"]);
    log.update("p", first, { status: "succeeded", response_status: 200 });
    expect(log.add("p", record("e", "2026-01-01T00:00:05.000Z")).map((r) => r.id)).toEqual(["a"]);
    expect(log.list("p").map((r) => r.id)).toEqual(["c", "d", "e"]);
  });

  it("updates by replacing the record with a new object, never by mutating it", () => {
    const log = new AttemptLog(10);
    const first = record("a", "2026-01-01T00:00:01.000Z");
    log.add("p", first);
    log.add("p", record("b", "2026-01-01T00:00:02.000Z"));
    const next = log.update("p", first, { status: "failed", error: "http_500", response_status: 500 });
    expect(next).not.toBe(first);
    expect(first.status).toBe("pending");
    expect(log.list("p")[0]).toBe(next);
    expect(log.list("p").map((r) => [r.id, r.status])).toEqual([["a", "failed"], ["b", "pending"]]);
  });
});

describe("interviewCompletedEvent", () => {
  const interview: StoredInterview = {
    id: "0b7e2a1c-3d4f-4a5b-8c6d-7e8f9a0b1c2d", object: "interview", study_id: "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f", status: "completed",
    reference_id: "u1", respondent_email: null, language: "en", quality_score: "successful", duration_secs: 61, headline: "h", summary: "s",
    started_at: "2026-01-01T00:00:00.000Z", completed_at: "2026-01-01T00:01:01.000Z", created_at: "2026-01-01T00:00:00.000Z",
    transcript: [], question_answers: [], project_id: "p", respondent_id: "resp_1",
  };

  it("is valid without the study record: study name and link are null, the ids come from the interview", () => {
    const event = interviewCompletedEvent(interview, undefined, "2026-01-01T00:01:02.000Z");
    assertValid("#/components/schemas/InterviewCompletedEvent", event);
    expect(event.data).toMatchObject({
      study_id: interview.study_id, experiment_id: interview.study_id, study_name: null, experiment_name: null, interview_link: null,
      session_id: interview.id, respondent_id: "resp_1",
    });
    expect(JSON.parse(serializeEvent(event).toString("utf8"))).toEqual(event);
  });
});

describe("postWebhook", () => {
  const body = Buffer.from('{"x":1}');

  it("sends the body with its headers and the user agent, and reports the status without following redirects", async () => {
    const r = await startReceiver((_n, _req, res) => res.writeHead(301, { location: "http://127.0.0.1:1/elsewhere" }).end());
    try {
      const outcome = await postWebhook({ url: r.url, body, headers: { "X-Test": "1" }, timeoutMs: 2_000 });
      expect(outcome).toEqual({ kind: "answered", status: 301 });
      expect(r.requests).toHaveLength(1);
      expect(r.requests[0].body.equals(body)).toBe(true);
      expect(r.requests[0].headers).toMatchObject({ "x-test": "1", "user-agent": USER_AGENT, "content-length": String(body.length) });
    } finally {
      await r.close();
    }
  });

  it("reports a refused connection, a bad URL and an abort as outcomes, never as a rejection", async () => {
    expect(await postWebhook({ url: `http://127.0.0.1:${await closedPort()}/`, body, headers: {}, timeoutMs: 2_000 }))
      .toEqual({ kind: "connection_error", code: "ECONNREFUSED" });
    expect(await postWebhook({ url: "not a url", body, headers: {}, timeoutMs: 2_000 })).toEqual({ kind: "connection_error", code: "invalid_url" });
    const hanging = await startReceiver(() => {});
    try {
      const controller = new AbortController();
      const pending = postWebhook({ url: hanging.url, body, headers: {}, timeoutMs: 60_000, signal: controller.signal });
      setTimeout(() => controller.abort(), 50);
      const t0 = performance.now();
      expect(await pending).toEqual({ kind: "aborted" });
      // Ended by the abort, long before the 60 s timeout.
      expect(performance.now() - t0).toBeLessThan(10_000);
    } finally {
      await hanging.close();
    }
  });

  it("gives up after the timeout even when the answer's headers never come", async () => {
    const hanging = await startReceiver(() => {});
    try {
      const t0 = performance.now();
      expect(await postWebhook({ url: hanging.url, body, headers: {}, timeoutMs: 150 })).toEqual({ kind: "timeout" });
      expect(performance.now() - t0).toBeGreaterThanOrEqual(145);
      // Given up, not left waiting (the bound leaves a loaded machine its spread).
      expect(performance.now() - t0).toBeLessThan(5_000);
    } finally {
      await hanging.close();
    }
  });
});
