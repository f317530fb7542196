/**
 * webhooks (--sim): the suite runs its own receiver (http:// on loopback, or https:// with a certificate made
 * at run time when the service refuses plain http), registers it, triggers interviews and checks the seed's
 * delivery rules: PUT 201 then 200 and the secret shown once; HMAC-SHA256 over the raw body; the headers; the
 * payload against the contract and equal to the REST resource; retries at the configured delays within a
 * stated tolerance, no more than configured, none after a 2xx; our contract's byte-identical retries and
 * cancellation on DELETE. Parts of the schedule beyond the budget are NOT TESTED, and said so.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { Check, Ctx } from "../check.ts";
import { NotTested } from "../check.ts";
import { errorMessage, type Reply } from "../http.ts";
import { Receiver, type Delivery } from "../receiver.ts";
import { contract, rules, seed } from "../rules.ts";
import { simReadOffered } from "../sim.ts";

/** How far a retry may land from its configured delay: early by max(100 ms, 10%), late by max(250 ms, 20%). */
export const retryWindow = (delayMs: number): [number, number] => [delayMs - Math.max(100, delayMs * 0.1), delayMs + Math.max(250, delayMs * 0.2)];

const r = rules("webhooks", {
  create: seed("Endpoints: PUT /v1/webhooks", "the first PUT answers 201 with url, events and a signing_secret"),
  update: seed("Endpoints: PUT /v1/webhooks", "a PUT on an existing webhook answers 200 without the secret"),
  "secret-hidden": seed("Endpoints: GET /v1/webhooks (never the secret)", "GET /v1/webhooks answers {url, events} and never the secret"),
  "delete-204": seed("Endpoints: DELETE /v1/webhooks", "DELETE answers 204 with an empty body, and GET answers 404 afterwards"),
  delivered: seed("Events: emitted by an interview finishing processing", "a completed interview is delivered to the webhook URL"),
  headers: seed("Events: method, headers", "every attempt, retries included, is a POST with Content-Type application/json and X-Webhook-Event: interview.completed"),
  signature: seed("Events: X-Webhook-Signature", "every attempt's X-Webhook-Signature is sha256= and the lowercase hex HMAC-SHA256 of its raw body keyed with the signing secret"),
  payload: seed("Events: body", "every attempt's payload has the seed's fields and types, event interview.completed and status completed"),
  aliases: seed("Versioning 4: both forms are sent", "every attempt carries session_id, experiment_id and experiment_name, equal to interview_id, study_id and study_name"),
  "payload-matches": seed("Events: body; Endpoints note: interview :id equals interview_id", "the payload agrees with GET /v1/interviews/:id (ids, aliases, status completed, times, scores, language, reference, email)"),
  retries: seed("Events: delivery rules 2; Limits: webhook retries", "after a non-2xx answer, each retry comes after its configured delay, within max(100 ms, 10%) early and max(250 ms, 20%) late"),
  "retry-count": seed("Events: delivery rules 2, 3", "no more retries than configured; then the event is dropped"),
  "stop-on-2xx": seed("Events: delivery rules 2", "a 2xx answer ends the retries"),
  "identical-retries": contract("webhook delivery", "every attempt of one event carries the same bytes and signature"),
  "delete-cancels": contract("webhook delivery", "DELETE /v1/webhooks cancels the pending retries of its events"),
  replay: contract("simulation surface: delivery tools", "with --sim, the event stream carries each event's exact signed request, a delivery's request reads back byte for byte, and a resend repeats it byte for byte as an attempt of its own"),
});

function signed(secret: string, d: Delivery): boolean {
  const header = d.headers["x-webhook-signature"];
  const m = typeof header === "string" ? /^sha256=([0-9a-f]{64})$/.exec(header) : null;
  if (!m) return false;
  return timingSafeEqual(createHmac("sha256", secret).update(d.raw).digest(), Buffer.from(m[1], "hex"));
}

/**
 * The seed's rules that hold for every attempt, retries included: method and headers, the signature, the payload's
 * shape and its deprecated aliases (equal to the fields they alias). Called on every delivery the receiver caught.
 */
function judgeAttempt(ctx: Ctx, secret: string, d: Delivery, label: string): void {
  ctx.expect(r.headers, d.method === "POST", `${label} came as ${d.method}, not POST`);
  ctx.expect(r.headers, String(d.headers["content-type"]).startsWith("application/json"), `${label}: Content-Type is ${JSON.stringify(d.headers["content-type"])}, not application/json`);
  ctx.expect(r.headers, d.headers["x-webhook-event"] === "interview.completed", `${label}: X-Webhook-Event is ${JSON.stringify(d.headers["x-webhook-event"])}, not interview.completed`);
  ctx.expect(r.signature, signed(secret, d), `${label}: X-Webhook-Signature ${JSON.stringify(d.headers["x-webhook-signature"])} is not sha256=HMAC-SHA256(secret, raw body)`, undefined, { body: d.raw.toString("utf8").slice(0, 500) });
  let payload: any;
  try {
    payload = JSON.parse(d.raw.toString("utf8"));
  } catch {
    payload = undefined;
  }
  const schema = ctx.contract.ajv.validator("#/webhooks/interview.completed/post/requestBody/content/application~1json/schema");
  ctx.expect(r.payload, schema(payload), `${label}: the payload does not match the contract: ${JSON.stringify(schema.errors?.slice(0, 3))}`, undefined, payload);
  ctx.expect(r.payload, payload?.event === "interview.completed" && payload?.data?.status === "completed", `${label}: event ${JSON.stringify(payload?.event)}, data.status ${JSON.stringify(payload?.data?.status)}`, undefined, payload);
  for (const [alias, field] of [["session_id", "interview_id"], ["experiment_id", "study_id"], ["experiment_name", "study_name"]] as const) {
    ctx.expect(r.aliases, payload?.data !== undefined && alias in payload.data && payload.data[alias] === payload.data[field], `${label}: data.${alias} is ${JSON.stringify(payload?.data?.[alias])}, but it must be sent and equal data.${field} (${JSON.stringify(payload?.data?.[field])})`, undefined, payload?.data);
  }
}

/** `GET /_sim/events`, `GET /_sim/webhook-deliveries/{id}/request` and `POST .../resend`, judged against the receiver. */
async function replayTools(ctx: Ctx, receiver: Receiver, studyId: string, firstId: string, firstDelivery: Delivery): Promise<void> {
  const log = await ctx.http.req(`/_sim/webhook-deliveries?interview_id=${firstId}&limit=100`);
  const attempt = log.status === 200 ? log.body?.data?.find((x: any) => x.attempt === 1) : undefined;
  if (!attempt) return ctx.untested("delivery replay tools", `GET /_sim/webhook-deliveries?interview_id=... answered ${log.status}`);
  const request = await ctx.http.req(`/_sim/webhook-deliveries/${attempt.id}/request`);
  if (request.status === 404 || request.status === 405) return ctx.untested("delivery replay tools", "GET /_sim/webhook-deliveries/{id}/request is not offered by this implementation");
  ctx.conforms(request, "GET /_sim/webhook-deliveries/{id}/request");
  ctx.expect(r.replay, request.body?.body === firstDelivery.raw.toString("utf8") && request.body?.headers?.["X-Webhook-Signature"] === firstDelivery.headers["x-webhook-signature"], "the delivery's request read back differs from what the receiver got", request);
  const before = receiver.of(firstId).length;
  const resent = await ctx.http.req(`/_sim/webhook-deliveries/${attempt.id}/resend`, { method: "POST" });
  ctx.conforms(resent, "POST /_sim/webhook-deliveries/{id}/resend");
  if (ctx.expect(r.replay, resent.status === 202 && resent.body?.trigger === "resend", `POST .../resend answered ${resent.status} ${resent.text.slice(0, 200)}`, resent)) {
    await receiver.waitFor("the resend", () => receiver.of(firstId).length > before, 10_000).catch(() => undefined);
    const again = receiver.of(firstId)[before];
    ctx.expect(r.replay, again !== undefined && again.raw.equals(firstDelivery.raw) && again.headers["x-webhook-signature"] === firstDelivery.headers["x-webhook-signature"], "the resend did not arrive byte for byte with the same signature");
  }
  // The stream: open it, trigger an event, and expect that event's exact request on it.
  let pending = "";
  const streamed = ctx.http.stream("/_sim/events", (events) => pending !== "" && events.some((e) => e.interview_id === pending), 15_000);
  await new Promise((res) => setTimeout(res, 300));
  pending = await trigger(ctx, studyId, "conformance_stream");
  const s = await streamed;
  ctx.expect(r.replay, s.status === 200 && String(s.contentType).startsWith("text/event-stream"), s.status === 0 ? "GET /_sim/events sent no response headers within 3 s: it does not stream" : `GET /_sim/events answered ${s.status} ${s.contentType}`, undefined, { curl: s.curl });
  const event = s.events.find((e) => e.interview_id === pending);
  await receiver.waitFor("the streamed interview's delivery", () => receiver.of(pending).length > 0, FIRST_DELIVERY_MS).catch(() => undefined);
  const delivered = receiver.of(pending)[0];
  ctx.expect(r.replay, event !== undefined && delivered !== undefined && event.body === delivered.raw.toString("utf8") && event.headers?.["X-Webhook-Signature"] === delivered.headers["x-webhook-signature"], `the stream did not carry interview ${pending}'s exact signed request`, undefined, { curl: s.curl, events: s.events.length });
}

async function trigger(ctx: Ctx, studyId: string, reference: string): Promise<string> {
  const reply = await ctx.http.req("/_sim/interviews", { method: "POST", body: { study_id: studyId, reference_id: reference } });
  if (reply.status !== 201) throw new NotTested(`POST /_sim/interviews answered ${reply.status}: no interview can be triggered`);
  ctx.conforms(reply, "POST /_sim/interviews");
  return reply.body.id;
}

const sleep = (ms: number) => new Promise((res) => setTimeout(res, ms));
/** First delivery deadline: the seed says 5 to 30 s after the respondent finishes. */
const FIRST_DELIVERY_MS = 35_000;

/** Starts a receiver the service accepts: http first (auto), then https; null when the service refuses both. */
async function register(ctx: Ctx): Promise<{ receiver: Receiver; created: Reply } | null> {
  const mode = ctx.options.receiver ?? "auto";
  const refusals: string[] = [];
  for (const tls of mode === "auto" ? [false, true] : [mode === "https"]) {
    const receiver = new Receiver({ tls, listen: ctx.options.receiverListen, publicUrl: ctx.options.receiverUrl, certDir: ctx.options.receiverCertDir });
    await receiver.start();
    if (receiver.caFile) {
      ctx.progress(`webhooks: HTTPS receiver at ${receiver.url}; the service must trust its certificate: ${receiver.caFile}`);
      ctx.note(`HTTPS receiver ${receiver.url}; CA file to trust: ${receiver.caFile} (Node: NODE_EXTRA_CA_CERTS; the reference server: WEBHOOK_CA_FILE)`);
    }
    const created = await ctx.http.req("/v1/webhooks", { method: "PUT", body: { url: receiver.url, events: ["interview.completed"] } });
    if (created.status !== 400) return { receiver, created };
    refusals.push(`${receiver.url}: ${errorMessage(created.body) ?? created.status}`);
    await receiver.stop();
  }
  ctx.untested("webhook delivery", `the service refused the suite's receiver (${refusals.join("; ")}); give --receiver-url with an address it accepts`);
  return null;
}

export const webhooksCheck: Check = {
  name: "webhooks",
  description: "signed interview.completed deliveries, payload equal to the REST resource, the retry schedule, stop on 2xx and after DELETE",
  rules: r,
  needs: ["sim"],
  operations: ["putWebhook", "getWebhook", "deleteWebhook", "simCreateInterview", "simListWebhookDeliveries"],
  async run(ctx) {
    const delays = ctx.options.webhookRetryDelaysMs;
    await ctx.http.req("/v1/webhooks", { method: "DELETE" });
    const none = await ctx.http.req("/v1/webhooks");
    ctx.expect(r["delete-204"], none.status === 404, `GET /v1/webhooks after DELETE answered ${none.status}`, none);

    const registered = await register(ctx);
    if (!registered) return;
    const { receiver, created } = registered;
    try {
      ctx.must(r.create, created.status === 201 && typeof created.body?.signing_secret === "string" && created.body.signing_secret.length > 0, `first PUT /v1/webhooks answered ${created.status} without a signing_secret`, created);
      ctx.conforms(created, "PUT /v1/webhooks (create)");
      const secret: string = created.body.signing_secret;
      const updated = await ctx.http.req("/v1/webhooks", { method: "PUT", body: { url: receiver.url, events: ["interview.completed"] } });
      ctx.expect(r.update, updated.status === 200 && !("signing_secret" in (updated.body ?? {})), `second PUT /v1/webhooks must answer 200 without the secret, got ${updated.status}`, updated);
      const got = await ctx.http.req("/v1/webhooks");
      ctx.expect(r["secret-hidden"], got.status === 200 && got.body?.url === receiver.url && !got.text.includes(secret), `GET /v1/webhooks answered ${got.status} ${got.text.slice(0, 200)}`, got);
      ctx.conforms(got, "GET /v1/webhooks");

      const studies = (await ctx.http.walk("/v1/studies", 100)).items.filter((s: any) => s.accepting_responses);
      if (!studies.length) throw new NotTested("no study is accepting responses, so no interview can be simulated");
      const study = studies[0];

      // 1. One delivery, verified.
      const first = await trigger(ctx, study.id, "conformance_webhook");
      try {
        await receiver.waitFor(`the interview.completed delivery of ${first}`, () => receiver.of(first).length > 0, FIRST_DELIVERY_MS);
      } catch {
        if (receiver.tlsErrors.length) throw new NotTested(`the service did not complete a TLS handshake with the receiver (${receiver.tlsErrors[0]}): make it trust ${receiver.caFile}`);
        ctx.must(r.delivered, false, `no delivery of interview ${first} within ${FIRST_DELIVERY_MS / 1000} s of its creation`);
      }
      const d = receiver.of(first)[0];
      let payload: any;
      try {
        payload = JSON.parse(d.raw.toString("utf8"));
      } catch {
        payload = undefined;
      }
      const rest = await ctx.http.req(`/v1/interviews/${first}`);
      ctx.expect(r["payload-matches"], rest.status === 200 && rest.body.status === "completed", `GET /v1/interviews/${first} after its webhook answered ${rest.status} with status ${rest.body?.status}`, rest);
      const same: Array<[string, unknown]> = [
        ["interview_id", rest.body?.id], ["session_id", rest.body?.id], ["study_id", rest.body?.study_id], ["experiment_id", rest.body?.study_id],
        ["study_name", study.name], ["experiment_name", study.name], ["status", "completed"], ["started_at", rest.body?.started_at],
        ["completed_at", rest.body?.completed_at], ["duration_secs", rest.body?.duration_secs], ["quality_score", rest.body?.quality_score],
        ["language", rest.body?.language], ["reference_id", rest.body?.reference_id], ["respondent_email", rest.body?.respondent_email],
      ];
      for (const [field, want] of same) ctx.expect(r["payload-matches"], payload?.data?.[field] === want, `payload data.${field} is ${JSON.stringify(payload?.data?.[field])} but the REST resource says ${JSON.stringify(want)}`, rest);

      // 1b. The simulation surface's delivery tools, where offered: the stream, the request read-back, the resend.
      await replayTools(ctx, receiver, study.id, first, d);

      // 2. The retry schedule against a receiver answering 500.
      let budget = ctx.options.webhookBudgetMs;
      const fits = delays.filter((_, i) => delays.slice(0, i + 1).reduce((s, x) => s + x, 0) <= budget).length;
      if (fits < delays.length) ctx.untested(`retries ${fits + 1}..${delays.length} of the schedule`, `they fall beyond --webhook-budget-ms ${budget}; raise it to ${delays.reduce((s, x) => s + x, 0) + 60_000} to observe them`);
      let failing = "";
      receiver.policy = (id) => (id === failing ? 500 : 200);
      failing = await trigger(ctx, study.id, "conformance_retry");
      await receiver.waitFor("the first failing attempt", () => receiver.of(failing).length >= 1, FIRST_DELIVERY_MS).catch(() => undefined);
      const expected = 1 + fits;
      const late = delays.slice(0, fits).reduce((s, x) => s + retryWindow(x)[1], 2000);
      await receiver.waitFor(`${expected} attempts`, () => receiver.of(failing).length >= expected, late).catch(() => undefined);
      const attempts = receiver.of(failing);
      ctx.expect(r.retries, attempts.length >= expected, `after a 500, ${attempts.length} attempt(s) arrived within ${late} ms; expected ${expected} (the first and ${fits} retries at ${delays.slice(0, fits).join(", ")} ms)`);
      for (let i = 1; i < Math.min(expected, attempts.length); i++) {
        const gap = attempts[i].at - attempts[i - 1].at;
        const [lo, hi] = retryWindow(delays[i - 1]);
        ctx.expect(r.retries, gap >= lo && gap <= hi, `retry ${i} came ${gap} ms after attempt ${i}; the configured delay is ${delays[i - 1]} ms (accepted ${Math.round(lo)}..${Math.round(hi)} ms)`);
        ctx.expect(r["identical-retries"], attempts[i].raw.equals(attempts[0].raw) && attempts[i].headers["x-webhook-signature"] === attempts[0].headers["x-webhook-signature"], `retry ${i} differs from the first attempt's bytes or signature`);
      }
      if (fits === delays.length) {
        await sleep(Math.max(...delays) * 0.5 + 1000);
        ctx.expect(r["retry-count"], receiver.of(failing).length === expected, `${receiver.of(failing).length} attempts arrived: after ${delays.length} retries the event must be dropped`);
      }
      budget -= delays.slice(0, fits).reduce((s, x) => s + x, 0);

      // 3. A 2xx stops the retries: 500 then 200 is exactly two attempts.
      if (delays.length >= 2 && delays[1] <= Math.max(budget, 0)) {
        let flaky = "";
        receiver.policy = (id, attempt) => (id === flaky && attempt === 1 ? 500 : 200);
        flaky = await trigger(ctx, study.id, "conformance_flaky");
        await receiver.waitFor("the retry after a 500", () => receiver.of(flaky).length >= 2, FIRST_DELIVERY_MS + retryWindow(delays[0])[1]).catch(() => undefined);
        await sleep(retryWindow(delays[1])[1]);
        ctx.expect(r["stop-on-2xx"], receiver.of(flaky).length === 2, `500 then 200 must make exactly 2 attempts: ${receiver.of(flaky).length} arrived`);
      } else if (delays.length >= 2) ctx.untested("retries stop after a 2xx", `the second delay (${delays[1]} ms) does not fit what is left of --webhook-budget-ms`);

      // 4. DELETE stops pending deliveries.
      if (delays.length >= 1) {
        let orphan = "";
        receiver.policy = (id) => (id === orphan ? 500 : 200);
        orphan = await trigger(ctx, study.id, "conformance_orphan");
        await receiver.waitFor("the first attempt before DELETE", () => receiver.of(orphan).length >= 1, FIRST_DELIVERY_MS).catch(() => undefined);
        const del = await ctx.http.req("/v1/webhooks", { method: "DELETE" });
        ctx.expect(r["delete-204"], del.status === 204 && del.text === "", `DELETE /v1/webhooks answered ${del.status} ${del.text.slice(0, 100)}`, del);
        await sleep(retryWindow(delays[0])[1] + 500);
        ctx.expect(r["delete-cancels"], receiver.of(orphan).length === 1, `after DELETE, ${receiver.of(orphan).length - 1} more attempt(s) reached the old URL`);
        const after = await ctx.http.req("/v1/webhooks");
        ctx.expect(r["delete-204"], after.status === 404, `GET /v1/webhooks after DELETE answered ${after.status}`, after);
      }
      if (await simReadOffered(ctx, "/_sim/webhook-deliveries")) ctx.conforms(await ctx.http.req("/_sim/webhook-deliveries?limit=100"), "GET /_sim/webhook-deliveries");
      // Every attempt the receiver caught, first deliveries and retries alike, is held to the per-attempt rules.
      const count = new Map<string | null, number>();
      for (const attempt of receiver.deliveries) {
        const n = (count.get(attempt.interviewId) ?? 0) + 1;
        count.set(attempt.interviewId, n);
        judgeAttempt(ctx, secret, attempt, `attempt ${n} of the delivery of ${attempt.interviewId ?? "an unparseable body"}`);
      }
    } finally {
      await ctx.http.req("/v1/webhooks", { method: "DELETE" }).catch(() => undefined);
      await receiver.stop();
    }
  },
};
