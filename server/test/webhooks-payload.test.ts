// What a receiver gets for `interview.completed`: a signed POST whose body matches the contract's webhook schema
// and the REST resource of the interview, aliases included; and how the attempt is recorded.
import { createHmac, timingSafeEqual } from "node:crypto";
import { systemClock } from "../src/clock.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACME, GLOBEX, startApi, type Api } from "./helpers.ts";
import {
  acceptingStudy, answer, assertValid, contract, deliveries, registerHook, simulate, startReceiver, waitFor, waitForAttempts,
  WEBHOOK_BODY, type Receiver,
} from "./webhooks-helpers.ts";
import { sleep } from "../../test/support/wait.ts";

let api: Api;
let receiver: Receiver;
let secret: string;
let study: any;

beforeAll(async () => {
  api = await startApi({ clock: systemClock, simProcessingMs: 30, webhookRetryDelaysMs: [100, 100, 100], webhookTimeoutMs: 2_000 });
  receiver = await startReceiver(answer(204));
  secret = await registerHook(api, receiver.url);
  study = await acceptingStudy(api, ACME, 3);
});
afterAll(async () => {
  await api.server.close();
  await receiver.close();
});

/** Simulates one interview and returns it with the request the receiver got for it. */
async function completeOne(extra: Record<string, unknown> = {}) {
  const before = receiver.requests.length;
  const created = await simulate(api, study.id, extra);
  const request = await waitFor("the webhook", () => receiver.requests.slice(before).find((r) => JSON.parse(r.body.toString()).data.interview_id === created.id));
  return { created, request, body: JSON.parse(request.body.toString("utf8")) };
}

describe("interview.completed delivery", () => {
  it("is a POST to the registered URL with the seed's headers and a signature over the raw body", async () => {
    const { request } = await completeOne();
    expect(request.method).toBe("POST");
    expect(request.path).toBe("/hook");
    expect(request.headers["content-type"]).toBe("application/json");
    expect(request.headers["x-webhook-event"]).toBe("interview.completed");
    expect(request.headers["user-agent"]).toMatch(/\S/);
    expect(Number(request.headers["content-length"])).toBe(request.body.length);

    const signature = String(request.headers["x-webhook-signature"]);
    expect(signature).toMatch(/^sha256=[0-9a-f]{64}$/);
    const expected = Buffer.from(`sha256=${createHmac("sha256", secret).update(request.body).digest("hex")}`);
    expect(timingSafeEqual(Buffer.from(signature), expected)).toBe(true);
    // A signature keyed with another secret must not verify: the check above is not vacuous.
    const other = Buffer.from(`sha256=${createHmac("sha256", `${secret}x`).update(request.body).digest("hex")}`);
    expect(timingSafeEqual(Buffer.from(signature), other)).toBe(false);

    // Header values follow the contract's parameter schemas of the webhook.
    for (const p of contract.doc.webhooks["interview.completed"].post.parameters) {
      const validate = contract.compile(p.schema);
      expect(validate(request.headers[p.name.toLowerCase()]), p.name).toBe(true);
    }
  });

  it("carries a body valid against the contract and equal to the REST resource, aliases included", async () => {
    const language = study.supported_languages.at(-1);
    const { created, body } = await completeOne({ reference_id: "user_42", respondent_email: "r@example.org", language });
    assertValid(WEBHOOK_BODY, body);
    assertValid("#/components/schemas/InterviewCompletedEvent", body);

    const interview = (await api.req(`/v1/interviews/${created.id}`)).body;
    const studyDetail = (await api.req(`/v1/studies/${study.id}`)).body;
    expect(interview.status).toBe("completed");
    expect(body.event).toBe("interview.completed");
    expect(Object.keys(body)).toEqual(["event", "timestamp", "data"]);
    expect(body.data).toEqual({
      interview_id: interview.id,
      study_id: interview.study_id,
      study_name: studyDetail.name,
      session_id: interview.id,
      experiment_id: interview.study_id,
      experiment_name: studyDetail.name,
      interview_link: studyDetail.interview_link,
      status: "completed",
      started_at: interview.started_at,
      completed_at: interview.completed_at,
      duration_secs: interview.duration_secs,
      quality_score: interview.quality_score,
      language,
      reference_id: "user_42",
      respondent_email: "r@example.org",
      respondent_id: null,
    });
    expect(interview.language).toBe(language);
    expect(body.data.quality_score).not.toBeNull();
    expect(body.data.completed_at).not.toBeNull();
  });

  it("carries null for a reference id the link did not carry and an email not collected (the REST read has \"\" and null)", async () => {
    const { created, body } = await completeOne({});
    const interview = (await api.req(`/v1/interviews/${created.id}`)).body;
    expect(interview).toMatchObject({ reference_id: "", respondent_email: null });
    expect(body.data).toMatchObject({ reference_id: null, respondent_email: null, respondent_id: null });
  });

  it("records the attempt, scheduled at the event's timestamp and sent at once", async () => {
    const { created, body } = await completeOne();
    const [attempt] = await waitForAttempts(api, created.id, "a finished attempt", (a) => a.length === 1 && a[0].status === "succeeded");
    expect(attempt).toEqual({
      id: expect.any(String),
      object: "webhook_delivery",
      event_id: expect.any(String),
      event: "interview.completed",
      interview_id: created.id,
      attempt: 1,
      trigger: "event",
      url: receiver.url,
      status: "succeeded",
      response_status: 204,
      error: null,
      scheduled_at: body.timestamp,
      sent_at: expect.any(String),
      finished_at: expect.any(String),
    });
    // Taken from the queue as soon as it is written: a few milliseconds at most on a machine this test shares.
    expect(Date.parse(attempt.sent_at)).toBeGreaterThanOrEqual(Date.parse(body.timestamp));
    expect(Date.parse(attempt.sent_at) - Date.parse(body.timestamp)).toBeLessThan(1_000);
    expect(attempt.id).not.toBe(attempt.event_id);
    expect(Date.parse(attempt.finished_at)).toBeGreaterThanOrEqual(Date.parse(attempt.sent_at));
  });

  it("lists deliveries oldest scheduled first, per project, and pages through them", async () => {
    const all = await deliveries(api);
    expect(all.length).toBeGreaterThanOrEqual(3);
    const keys = all.map((d) => `${d.scheduled_at}|${d.id}`);
    expect(keys).toEqual([...keys].sort());
    const firstPage = await api.req("/_sim/webhook-deliveries?limit=1");
    expect(firstPage.body.has_more).toBe(true);
    const second = await api.req(`/_sim/webhook-deliveries?limit=1&starting_after=${firstPage.body.data[0].id}`);
    expect(second.body.data[0].id).toBe(all[1].id);
    // Globex has no webhook: none of Acme's attempts show up for its key, and an Acme attempt is no cursor there.
    expect(await deliveries(api, undefined, GLOBEX)).toEqual([]);
    expect((await api.req(`/_sim/webhook-deliveries?starting_after=${all[0].id}`, { key: GLOBEX })).status).toBe(400);
  });

  it("sends nothing for a project without a webhook", async () => {
    const globexStudy = await acceptingStudy(api, GLOBEX);
    const before = receiver.requests.length;
    const created = await simulate(api, globexStudy.id, {}, GLOBEX);
    await waitFor("completion", async () => ((await api.req(`/v1/interviews/${created.id}`, { key: GLOBEX })).body.status === "completed" ? true : undefined));
    await sleep(100);
    expect(receiver.requests.length).toBe(before);
    expect(await deliveries(api, created.id, GLOBEX)).toEqual([]);
  });
});
