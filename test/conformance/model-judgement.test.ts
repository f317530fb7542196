// The model's judgement of deliveries (model/commands/base.ts settle), without a server: each delivery a receiver
// could get after a sequence's steps, and the one rule it must break or keep. A change to how the model judges shows
// here first, deterministically.
import { createHmac } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { Contract } from "../../conformance/src/contract.ts";
import { Http } from "../../conformance/src/http.ts";
import { settle } from "../../conformance/src/model/commands/base.ts";
import { judgeTimestamps, TIMEOUT, watchSchedule } from "../../conformance/src/model/interview-steps.ts";
import { newModel, type Judge, type Model, type World } from "../../conformance/src/model/world.ts";
import { RESET, type Delivery } from "../../conformance/src/receiver.ts";
import type { Rule } from "../../conformance/src/rules.ts";

const contract = new Contract();
const ID = "3f6c1c3e-2b8a-4c55-9d0e-6a1b2c3d4e5f";
const STUDY = "9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d";
const at = "2026-11-27T10:00:00.000Z";

function payload(id = ID) {
  return {
    event: "interview.completed", timestamp: at,
    data: {
      interview_id: id, study_id: STUDY, study_name: "Study", session_id: id, experiment_id: STUDY, experiment_name: "Study",
      interview_link: "https://i.example.com/i/x", status: "completed", started_at: at, completed_at: at, duration_secs: 60,
      quality_score: "successful", language: "en", reference_id: "r", respondent_email: null, respondent_id: null,
    },
  };
}

function delivery(path: string, secret: string, body = payload()): Delivery {
  const raw = Buffer.from(JSON.stringify(body));
  const rest = { status: 200, body: { id: body.data.interview_id, study_id: STUDY, status: "completed", started_at: at, completed_at: at, reference_id: "r", respondent_email: null, language: "en", quality_score: "successful", duration_secs: 60 } };
  return {
    at: Date.now(), startedAt: Date.now(), path, method: "POST", raw, interviewId: body.data.interview_id, sessionId: body.data.session_id, observed: rest, lagMs: 0,
    headers: { "content-type": "application/json", "x-webhook-event": "interview.completed", "x-webhook-signature": `sha256=${createHmac("sha256", secret).update(raw).digest("hex")}` },
  };
}

/** Judges `deliveries` after the model `setup` made; returns the rules that failed. */
function judged(setup: (m: Model) => void, deliveries: Delivery[]): string[] {
  const failed: string[] = [];
  const judge: Judge = { expect: (rule: Rule, ok) => (ok ? true : (failed.push(rule.id), false)), conforms: () => undefined, reached: () => undefined };
  const m = newModel(1);
  setup(m);
  const w = { ctx: { contract, expect: judge.expect }, judge, receiver: { deliveries }, completedAt: new Map() } as unknown as World;
  settle(m, w, "the test");
  return failed;
}

const expectedAt = (path: string, secret: string) => (m: Model) => void m.expected.set(ID, { path, secret });

/**
 * A real service that answers each request after its `ms` query parameter, for the judgements that read how long the
 * service left its API unanswered; `fn` gets an Http to it, and the service is closed afterwards.
 */
async function withSlowService(fn: (http: Http) => Promise<void>): Promise<void> {
  const service = createServer((req, res) => void setTimeout(() => res.end("{}"), Number(new URL(req.url!, "http://x").searchParams.get("ms"))));
  await new Promise<void>((ok) => service.listen(0, "127.0.0.1", ok));
  try {
    await fn(new Http(`http://127.0.0.1:${(service.address() as AddressInfo).port}`, "k", contract, 10_000));
  } finally {
    service.close();
  }
}

/**
 * The retry schedule (300 ms, a 2000 ms timeout) judged over two attempts the receiver saw; the rules that failed
 * (and the notes the judgement wrote, into `notes`).
 */
async function scheduleJudged(http: Http, first: Delivery, retry: Delivery, answer: number | typeof TIMEOUT | typeof RESET, notes: string[] = []): Promise<string[]> {
  const failed: string[] = [];
  const judge: Judge = { expect: (rule: Rule, ok) => (ok ? true : (failed.push(rule.id), false)), conforms: () => undefined, reached: () => undefined };
  const w = { ctx: { contract, expect: judge.expect, note: (n: string) => void notes.push(n), options: { webhookRetryDelaysMs: [300], webhookTimeoutMs: 2_000, webhookWaitMs: 0 } }, judge, http, receiver: { deliveries: [first, retry] } } as unknown as World;
  await watchSchedule(newModel(1), w, ID, [answer]);
  return failed;
}

describe("the model's judgement of deliveries", () => {
  it("keeps a delivery to the webhook of the completion, signed with its secret, that agrees with the resource", () => {
    expect(judged(expectedAt("/hook/m1/a", "s1"), [delivery("/hook/m1/a", "s1")])).toEqual([]);
  });

  it("fails one to an earlier URL (sent-to-current), one signed with another secret (current-secret)", () => {
    expect(judged(expectedAt("/hook/m1/b", "s1"), [delivery("/hook/m1/a", "s1")])).toEqual(["model.sent-to-current"]);
    expect(judged(expectedAt("/hook/m1/a", "s2"), [delivery("/hook/m1/a", "s1")])).toEqual(expect.arrayContaining(["model.current-secret"]));
  });

  it("fails any delivery of an interview that completed with no webhook, or was abandoned", () => {
    expect(judged((m) => void m.forbidden.add(ID), [delivery("/hook/m1/a", "s1")])).toEqual(["model.none-without-webhook"]);
    expect(judged((m) => void m.interviews.set(ID, { status: "started", created: 0, reference: "r", abandoned: true }), [delivery("/hook/m1/a", "s1")])).toEqual(["model.abandoned-silent"]);
  });

  it("fails a delivery whose payload differs from the resource read when it arrived (rest-at-delivery)", () => {
    const body = payload();
    body.data.reference_id = "another";
    expect(judged(expectedAt("/hook/m1/a", "s1"), [delivery("/hook/m1/a", "s1", body)])).toEqual(["model.rest-at-delivery"]);
  });

  it("leaves another sequence's deliveries alone, and fails this project's interview at another project's webhook", () => {
    expect(judged(() => undefined, [delivery("/hook/m2/a", "s1")])).toEqual([]);
    expect(judged((m) => void (m.otherWebhook = { path: "/hook/m1/other" }), [delivery("/hook/m1/other", "s1")])).toEqual(["model.isolation"]);
  });

  it("allows a retry's timing the suite's own event-loop stall, and no more", async () => {
    // An attempt left unanswered (the 2000 ms receiver timeout), its retry 250 ms before the timeout ends: 50 ms before
    // the window for a 300 ms delay opens, past the 400 ms a service may have started its clock before it connected
    // (timeoutSlack). Read by a receiver that stalled 150 ms, that is the suite's doing; without a stall, the service
    // retried early.
    // A service the suite sent nothing to: it never answered late.
    const quiet = new Http("http://127.0.0.1:9", "k", contract, 1_000);
    const run = async (lagMs: number) => {
      const first = { ...delivery("/hook/m1/a", "s1"), at: 1_000_000, startedAt: 1_000_000, lagMs };
      const retry = { ...delivery("/hook/m1/a", "s1"), at: 1_000_000 + 2_000 - 250, startedAt: 1_000_000 + 2_000 - 250, lagMs: 0 };
      return scheduleJudged(quiet, first, retry, TIMEOUT);
    };
    expect(await run(0)).toEqual(["model.timeout-retried"]);
    expect(await run(150)).toEqual([]);
  });

  it("allows a retry late by as long as the service left its API unanswered meanwhile, and no more", async () => {
    // The counterexample from CI (seed 1053354942): the foreign server, one of five runs at once on two cores, sent a
    // retry 2005 ms after the receiver closed the connection, for a 300 ms delay. Its own clock was right (its 2 s
    // timeout fired first when a starved process woke, and the retry followed 300 ms later); the suite could not see
    // that, but it could see the service answer its API as late. A real request to a service that answers in `serviceMs`.
    await withSlowService(async (http) => {
      const run = async (serviceMs: number) => {
        const failedAt = Date.now();
        await http.req(`/v1/interviews/${ID}?ms=${serviceMs}`);
        const first = { ...delivery("/hook/m1/a", "s1"), at: failedAt - 5, startedAt: failedAt - 5, answeredAt: failedAt };
        const retry = { ...delivery("/hook/m1/a", "s1"), at: failedAt + 2_005, startedAt: failedAt + 2_005 };
        return scheduleJudged(http, first, retry, RESET);
      };
      expect(await run(10)).toEqual(["model.retries"]);
      expect(await run(1_700)).toEqual([]);
    });
  });

  it("adds up the service's stalls one after another, and counts a time two requests waited together once", async () => {
    // The counterexample from a stores run under load (a reference server on PostgreSQL): a retry 2305 ms after a 404,
    // for a 300 ms delay, while one request waited 980 ms and others waited after it: each step of a starved service's
    // retry queues behind the rest. Here the retry comes 2005 ms on (705 ms past the window): two reads of 600 ms one
    // after the other explain it; two at once do not.
    const run = (together: boolean) => withSlowService(async (http) => {
      const failedAt = Date.now();
      if (together) await Promise.all([http.req(`/v1/interviews/${ID}?ms=600`), http.req(`/v1/interviews/${ID}?ms=600`)]);
      else for (let k = 0; k < 2; k++) await http.req(`/v1/interviews/${ID}?ms=600`);
      const first = { ...delivery("/hook/m1/a", "s1"), at: failedAt - 5, startedAt: failedAt - 5, answeredAt: failedAt };
      const retry = { ...delivery("/hook/m1/a", "s1"), at: failedAt + 2_005, startedAt: failedAt + 2_005 };
      expect(await scheduleJudged(http, first, retry, RESET)).toEqual(together ? ["model.retries"] : []);
    });
    await run(true);
    await run(false);
  });

  it("allows a retry after no answer early by the clock started before connecting and the service's slowness, together", async () => {
    // The counterexample from a hidden-set run (three copies of the foreign server at once on two cores): a correct
    // retry came 208 ms before the 2000 ms timeout had run from the connection, for a 300 ms delay, while the service
    // had left its API unanswered 395 ms just before; the window took the larger of that and the 400 ms timeoutSlack,
    // not both. Here the retry comes 500 ms early: past either alone, inside the two together.
    await withSlowService(async (http) => {
      const run = async (serviceMs: number) => {
        await http.req(`/v1/interviews/${ID}?ms=${serviceMs}`);
        const startedAt = Date.now();
        const first = { ...delivery("/hook/m1/a", "s1"), at: startedAt, startedAt, lagMs: 0 };
        const retry = { ...delivery("/hook/m1/a", "s1"), at: startedAt + 2_000 - 500, startedAt: startedAt + 2_000 - 500, lagMs: 0 };
        return scheduleJudged(http, first, retry, TIMEOUT);
      };
      expect(await run(10)).toEqual(["model.timeout-retried"]);
      expect(await run(420)).toEqual([]);
    });
  });

  it("does not count an attempt after a 2xx from a service that left its API unanswered until its timeout was due", async () => {
    // As the covering phase's receiver-answers (CI of 77445cf: on PostgreSQL, under load, a 200 answered at once was
    // retried at a 1000 ms timeout): a starved process that wakes past its timer runs the timer before it reads the
    // answer. Here a 200 sent 5 ms after the connection is attempted again 2.1 s on; a service that answered a read in
    // 10 ms meanwhile broke the rule, one that left it 1.7 s of the 2 s timeout unanswered shows nothing about it.
    await withSlowService(async (http) => {
      const run = async (serviceMs: number) => {
        const startedAt = Date.now();
        await http.req(`/v1/interviews/${ID}?ms=${serviceMs}`);
        const first = { ...delivery("/hook/m1/a", "s1"), at: startedAt, startedAt, answeredAt: startedAt + 5, lagMs: 0 };
        const again = { ...delivery("/hook/m1/a", "s1"), at: startedAt + 2_100, startedAt: startedAt + 2_100, lagMs: 0 };
        const notes: string[] = [];
        return { failed: await scheduleJudged(http, first, again, 200, notes), notes };
      };
      expect(await run(10)).toEqual({ failed: ["model.retries"], notes: [] });
      const stalled = await run(1_700);
      expect(stalled.failed).toEqual([]);
      expect(stalled.notes).toEqual([expect.stringMatching(/^model: interview .+: the 200 to attempt 1 went 5 ms after the attempt's connection and was retried, but the service had our requests unanswered 1\d{3} ms of the time from that connection until its 2000 ms timeout was due: not judged$/)]);
    });
  });

  it("reads the service itself while it waits on retries, so a stall with no request of the run in flight is seen", async () => {
    // The counterexample from CI (seed 1734729283): a retry 7.1 s late for a 1.2 s delay while the whole machine
    // stalled, and no request of the sequence was in flight to show it. Here the service answers every read `stallMs`
    // late and the run sends none of its own: only watchSchedule's pulse can see it.
    let stallMs = 0;
    const service = createServer((_req, res) => void setTimeout(() => res.end("{}"), stallMs));
    await new Promise<void>((ok) => service.listen(0, "127.0.0.1", ok));
    try {
      const http = new Http(`http://127.0.0.1:${(service.address() as AddressInfo).port}`, "k", contract, 10_000);
      const run = async (ms: number) => {
        stallMs = ms;
        const failed: string[] = [];
        const judge: Judge = { expect: (rule: Rule, ok) => (ok ? true : (failed.push(rule.id), false)), conforms: () => undefined, reached: () => undefined };
        const failedAt = Date.now();
        const first = { ...delivery("/hook/m1/a", "s1"), at: failedAt - 5, startedAt: failedAt - 5, answeredAt: failedAt };
        const retry = { ...delivery("/hook/m1/a", "s1"), at: failedAt + 2_005, startedAt: failedAt + 2_005 };
        const w = { ctx: { contract, expect: judge.expect, options: { webhookRetryDelaysMs: [300], webhookTimeoutMs: 2_000, webhookWaitMs: 0 } }, judge, http, receiver: { deliveries: [first, retry] } } as unknown as World;
        await watchSchedule(newModel(1), w, ID, [RESET]);
        return { failed, requests: http.count };
      };
      expect(await run(10)).toEqual({ failed: ["model.retries"], requests: 0 });
      expect(await run(1_700)).toEqual({ failed: [], requests: 0 });
    } finally {
      service.close();
    }
  });
});

// A counterexample kept (CI, seed 1131821677, the allowed copy of ../shared/foreign): an interview read with created_at
// "...Z" in one step and "...+00:00" in a later one was judged a changed creation time.
describe("the model's timestamps of an interview", () => {
  const judgedTimes = (reads: any[]): string[] => {
    const failed: string[] = [];
    const judge: Judge = { expect: (rule: Rule, ok, message) => (ok ? true : (failed.push(`${rule.id}: ${message}`), false)), conforms: () => undefined, reached: () => undefined };
    const w = { judge } as unknown as World;
    const model = { status: "completed" } as any;
    for (const read of reads) judgeTimestamps(w, ID, model, read, undefined);
    return failed;
  };
  const read = (created: string, completed: string) => ({ id: ID, status: "completed", created_at: created, started_at: "2026-11-29T23:00:00.000Z", completed_at: completed });

  it("holds one instant however each read writes it", () => {
    expect(judgedTimes([read("2026-11-29T23:00:00.000Z", "2026-11-29T23:05:00.000Z"), read("2026-11-29T23:00:00.000+00:00", "2026-11-29T23:05:00.000+00:00")])).toEqual([]);
  });

  it("fails a created_at or a completed_at that moved", () => {
    expect(judgedTimes([read("2026-11-29T23:00:00.000Z", "2026-11-29T23:05:00.000Z"), read("2026-11-29T23:00:00.001Z", "2026-11-29T23:05:00.000Z")])).toHaveLength(1);
    expect(judgedTimes([read("2026-11-29T23:00:00.000Z", "2026-11-29T23:05:00.000Z"), read("2026-11-29T23:00:00.000Z", "2026-11-29T23:05:01.000Z")])).toHaveLength(1);
  });
});
