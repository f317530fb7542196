/**
 * webhooks (--sim): the suite runs its own receiver (http:// on loopback, or https:// with a certificate made
 * at run time when the service refuses plain http), registers it, triggers interviews and checks the seed's
 * delivery rules: PUT 201 then 200 and the secret shown once; HMAC-SHA256 over the raw body; the headers; the
 * payload against the contract and equal to the REST resource; retries at the configured delays within a
 * stated tolerance, no more than configured, none after a 2xx; our contract's byte-identical retries and
 * cancellation on DELETE. Parts of the schedule beyond the budget are NOT TESTED, and said so.
 */
import { webhookAnswerProblem } from "../judge/shown.ts";
import type { Check, Ctx } from "../check.ts";
import { NotTested, wrongs } from "../check.ts";
import { attemptRules, judgeAttempt, payloadFieldsOf, signed } from "../judge/attempts.ts";
import { sleep } from "../judge/timing.ts";
import { errorMessage, type Reply } from "../http.ts";
import { Receiver, type Delivery } from "../receiver.ts";
import { contract, rules, seed, type Rule } from "../rules.ts";
import { byHeadroom } from "../data.ts";
import { refusal } from "../states/types.ts";

/** The per-attempt rules (judge/attempts.ts) and the check's own. */
export const r = {
  ...attemptRules,
  ...rules("webhooks", {
    create: seed("Endpoints: PUT /v1/webhooks", "the first PUT answers 201 with the url and events sent and a signing_secret", ["endpoints.put-webhook", "webhook-config.secret", "errors.201"]),
    update: seed("Endpoints: PUT /v1/webhooks", "a PUT on an existing webhook answers 200 with the url and events sent and without the secret, and the one webhook now has them", ["endpoints.put-webhook", "webhook-config.secret", "webhook-config.one", "limits.one-webhook"]),
    "secret-hidden": seed("Endpoints: GET /v1/webhooks (never the secret)", "GET /v1/webhooks answers {url, events} and never the secret", ["endpoints.get-webhook", "webhook-config.secret"]),
    "delete-204": seed("Endpoints: DELETE /v1/webhooks", "DELETE answers 204 with an empty body, and GET answers 404 afterwards", ["endpoints.delete-webhook", "errors.204", "errors.webhook-404"]),
    "required-fields": seed("Endpoints: PUT /v1/webhooks, url and events required", "a PUT without url or without events answers 400 and stores nothing", ["endpoints.put-webhook", "errors.400"]),
    "url-validated": seed("Webhook configuration: url, HTTPS endpoint", "a url that is not HTTPS (plain http:// to another host, no scheme, ftp:, javascript:) answers 400 and stores nothing", ["webhook-config.url"]),
    "events-only": seed("Limits: webhook subscription only interview.completed", "events naming anything but interview.completed answers 400 and stores nothing", ["webhook-config.events", "limits.subscription"]),
    "subscribed-only": seed("Events: sent only if interview.completed is in events", "a webhook whose events do not hold interview.completed (events: []) is refused with 400, or receives nothing", ["events.sent-to"]),
    recreate: seed("Authentication 5: a lost secret is replaced by deleting the webhook and creating a new one", "after DELETE, PUT answers 201 with a new signing_secret, and deliveries are signed with it", ["auth.webhook-delete"]),
    delivered: seed("Events: emitted by an interview finishing processing", "a completed interview is delivered to the webhook URL", ["events.emitted-by", "service.webhook", "events.sent-to"]),
    "after-completion": seed("States and transitions: the webhook is sent with status completed after processing finishes", "an interview that has not completed is not delivered; it is once it completes", ["transitions.interview", "events.emitted-by"]),
    "only-interviews": seed("Events: no other event types are sent; chats, releases and studies emit none", "planting a chat, a study and a release, and pausing a study, send nothing: every delivery is interview.completed about an interview that completed", ["events.only-interview"]),
    "payload-matches": seed("Events: body; Endpoints note: interview :id equals interview_id", "the payload agrees with GET /v1/interviews/:id (ids, aliases, status completed, times, scores, language, reference, email)", ["endpoints.interview-id", "payload.interview-id", "payload.study-id", "payload.study-name", "payload.started-at", "payload.completed-at", "payload.duration", "payload.quality-score", "payload.language", "payload.reference-id", "payload.respondent-email", "transitions.interview"]),
    "respondent-id": seed("Events: body, data.respondent_id set when triggered via a respondent-specific link", "an interview triggered through a respondent-specific link carries its respondent_id; one triggered otherwise carries null", ["payload.respondent-id"]),
    timestamp: seed("Events: body, timestamp (when the event was sent)", "the payload's timestamp is not before the interview's completed_at (100 ms of slack) and not over 35 s after it: both the service's clock", ["payload.timestamp"]),
  }),
};

/** Plants an interview (held `started` with `hold`) in the study and returns its id; one that cannot be planted ends the check. */
export async function trigger(ctx: Ctx, studyId: string, reference: string, hold = false): Promise<string> {
  try {
    return (await ctx.states.plantInterview({ study_id: studyId, reference_id: reference, ...(hold ? { hold } : {}) })).id;
  } catch (err) {
    if (refusal(err)) throw new NotTested(`no interview can be triggered: ${(err as Error).message}`);
    throw err;
  }
}

/** First delivery deadline: the seed says 5 to 30 s after the respondent finishes. */
export const FIRST_DELIVERY_MS = 35_000;
/** The longest wait for a first delivery: --webhook-wait-ms, or the seed's 30 s plus 5. */
export const firstDeliveryMs = (ctx: Ctx) => ctx.options.webhookWaitMs ?? FIRST_DELIVERY_MS;

/** Starts a receiver the service accepts: http first (auto), then https; null when the service refuses both. */
export async function register(ctx: Ctx): Promise<{ receiver: Receiver; created: Reply } | null> {
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

/**
 * An accepting study to trigger interviews in: the one with the most room, so studies that other checks planted
 * with small caps (capacity, windows, the model run) are not filled up halfway through a check.
 */
export async function acceptingStudy(ctx: Ctx): Promise<any> {
  const studies = (await ctx.http.walk("/v1/studies", 100)).items.filter((s: any) => s.accepting_responses);
  if (!studies.length) throw new NotTested("no study is accepting responses, so no interview can be simulated");
  return studies.sort(byHeadroom)[0];
}

/**
 * Holds every attempt the receiver caught to the per-attempt rules, each with the secret in force when it was sent: the
 * caller's one secret, or the secrets that may have been (an interview another check left running may have completed
 * under an earlier webhook, whose secret a service may keep for that event's attempts).
 */
export function judgeAll(ctx: Ctx, receiver: Receiver, secretOf: (interviewId: string | null, at: number) => string | string[]): void {
  const count = new Map<string | null, number>();
  for (const attempt of receiver.deliveries) {
    const n = (count.get(attempt.interviewId) ?? 0) + 1;
    count.set(attempt.interviewId, n);
    judgeAttempt(ctx, secretOf(attempt.interviewId, attempt.at), attempt, `attempt ${n} of the delivery of ${attempt.interviewId ?? "an unparseable body"}`);
  }
}

const parse = (d: Delivery | undefined): any => {
  try {
    return d ? JSON.parse(d.raw.toString("utf8")) : undefined;
  } catch {
    return undefined;
  }
};

/** Bad configurations are refused with 400, and none of them is stored (GET still answers 404). */
async function refusals(ctx: Ctx): Promise<void> {
  const cases: Array<[Rule, string, unknown]> = [
    [r["required-fields"], "no url", { events: ["interview.completed"] }],
    [r["required-fields"], "no events", { url: "https://hooks.example.com/a" }],
    [r["url-validated"], "a url without a scheme", { url: "hooks.example.com/a", events: ["interview.completed"] }],
    // The seed's url is an HTTPS endpoint. (Plain http:// to this machine is a sandbox's choice for laptops; to
    // another host it is never HTTPS.)
    [r["url-validated"], "a plain http: url to another host", { url: "http://hooks.example.com/a", events: ["interview.completed"] }],
    [r["url-validated"], "an ftp: url", { url: "ftp://hooks.example.com/a", events: ["interview.completed"] }],
    [r["url-validated"], "a javascript: url", { url: "javascript:alert(1)", events: ["interview.completed"] }],
    [r["events-only"], "an event type the seed does not send", { url: "https://hooks.example.com/a", events: ["chat.created"] }],
    [r["events-only"], "a second, unknown event type", { url: "https://hooks.example.com/a", events: ["interview.completed", "study.updated"] }],
    // The names nearest the one the seed sends: its sibling, a wildcard over it, and the empty name.
    [r["events-only"], "the sibling event interview.started", { url: "https://hooks.example.com/a", events: ["interview.started"] }],
    [r["events-only"], "a wildcard interview.*", { url: "https://hooks.example.com/a", events: ["interview.*"] }],
    [r["events-only"], "an empty event name beside interview.completed", { url: "https://hooks.example.com/a", events: ["interview.completed", ""] }],
  ];
  for (const [rule, what, body] of cases) {
    const reply = await ctx.http.req("/v1/webhooks", { method: "PUT", body });
    ctx.expect(rule, reply.status === 400, `PUT /v1/webhooks with ${what} answered ${reply.status}, not 400`, reply);
    ctx.conforms(reply, `PUT /v1/webhooks (${what})`);
    if (reply.status < 300) await ctx.http.req("/v1/webhooks", { method: "DELETE" });
  }
  const after = await ctx.http.req("/v1/webhooks");
  ctx.expect(r["required-fields"], after.status === 404, `after only refused PUTs, GET /v1/webhooks answered ${after.status}: a refused configuration was stored`, after);
}

export const webhooksCheck: Check = {
  name: "webhooks",
  description: "configuration and its refusals, signed interview.completed deliveries only after completion, payload equal to the REST resource, a new secret after re-creation",
  rules: r,
  needs: ["sim", "plant-interview"],
  operations: ["putWebhook", "getWebhook", "deleteWebhook", "simCreateInterview"],
  async run(ctx) {
    await ctx.http.req("/v1/webhooks", { method: "DELETE" });
    const none = await ctx.http.req("/v1/webhooks");
    ctx.expect(r["delete-204"], none.status === 404, `GET /v1/webhooks after DELETE answered ${none.status}`, none);
    await refusals(ctx);

    const registered = await register(ctx);
    if (!registered) {
      // A service may refuse the suite's receiver for reasons of its own (a loopback address); an HTTPS URL on a public
      // host with the one event it may not.
      const plain = await ctx.http.req("/v1/webhooks", { method: "PUT", body: { url: "https://hooks.example.com/conformance", events: ["interview.completed"] } });
      ctx.expect(r.create, plain.status === 201 || plain.status === 200, `PUT /v1/webhooks with an HTTPS URL on a public host (https://hooks.example.com/conformance) and events ["interview.completed"] answered ${plain.status}: a valid configuration refused`, plain);
      if (plain.status < 300) await ctx.http.req("/v1/webhooks", { method: "DELETE" });
      return;
    }
    const { receiver, created } = registered;
    const secrets = new Map<string | null, string>();
    /** Every secret this check was given, and when: what an attempt about an interview it did not plant may be signed with. */
    const issued: Array<{ secret: string; at: number }> = [];
    try {
      const createProblem = webhookAnswerProblem("PUT", 201, created.body);
      const createWrong = wrongs([created.status !== 201, `the first PUT /v1/webhooks answered ${created.status}, not 201`], [createProblem !== null, createProblem?.problem ?? ""]);
      ctx.must(r.create, !createWrong, createWrong, created);
      // Each answer shows the webhook as it now is: the url and events just sent.
      const shows = (reply: Reply, url: string) => reply.body?.url === url && JSON.stringify(reply.body?.events) === JSON.stringify(["interview.completed"]);
      ctx.expect(r.create, shows(created, receiver.url), `the creation answer shows url ${JSON.stringify(created.body?.url)} and events ${JSON.stringify(created.body?.events)}, not the ${receiver.url} and ["interview.completed"] just sent`, created);
      ctx.conforms(created, "PUT /v1/webhooks (create)");
      let secret: string = created.body.signing_secret;
      issued.push({ secret, at: Date.now() });
      // One webhook per project: a second PUT with another url replaces the first.
      const second = `${receiver.url}${receiver.url.includes("?") ? "&" : "?"}second`;
      const updated = await ctx.http.req("/v1/webhooks", { method: "PUT", body: { url: second, events: ["interview.completed"] } });
      const updateWrong = wrongs([updated.status !== 200, `a second PUT /v1/webhooks answered ${updated.status}, not 200`], [webhookAnswerProblem("PUT", 200, updated.body) !== null, "the update answer showed the signing secret again"]);
      ctx.expect(r.update, !updateWrong, updateWrong, updated);
      ctx.expect(r.update, shows(updated, second), `the update answer shows url ${JSON.stringify(updated.body?.url)} and events ${JSON.stringify(updated.body?.events)}, not the ${second} and ["interview.completed"] just sent`, updated);
      const got = await ctx.http.req("/v1/webhooks");
      const hiddenWrong = wrongs(
        [got.status !== 200, `GET /v1/webhooks of a configured webhook answered ${got.status}, not 200`],
        [webhookAnswerProblem("GET", 200, got.body) !== null, "GET /v1/webhooks has a signing_secret field"],
        [got.text.includes(secret), "the signing secret was present in the GET /v1/webhooks body"],
      );
      ctx.expect(r["secret-hidden"], !hiddenWrong, hiddenWrong, got);
      ctx.expect(r.update, shows(got, second), `after a second PUT, GET /v1/webhooks shows url ${JSON.stringify(got.body?.url)} and events ${JSON.stringify(got.body?.events)}, not the new ${second} and ["interview.completed"]`, got);
      ctx.conforms(got, "GET /v1/webhooks");
      const study = await acceptingStudy(ctx);

      // 1. A held interview is not delivered; once completed it is, once. (Without held interviews completed on demand,
      // the first interview completes on the service's own timer.)
      const held = ctx.states.caps.lacking("hold", "complete");
      const first = await trigger(ctx, study.id, "conformance_webhook", !held);
      secrets.set(first, secret);
      if (held) ctx.untested(`delivery after completion (needs capability ${held.capability})`, held.why);
      else {
        const heldRead = await ctx.http.req(`/v1/interviews/${first}`);
        if (heldRead.body?.status === "started") {
          // Two seconds for a delivery that should never come: on a loaded machine one sent early can take more than
          // half a second to arrive (a broken variant's did, in CI).
          for (let waited = 0; waited < 2_000 && receiver.of(first).length === 0; waited += 100) await sleep(100);
          ctx.expect(r["after-completion"], receiver.of(first).length === 0, `interview ${first} was delivered while ${heldRead.body?.status}, before it completed`);
          await ctx.part("delivery after completion", async () => void (await ctx.states.completeInterview(first)));
        } else ctx.untested("delivery after completion", `an interview planted with hold: true reads ${JSON.stringify(heldRead.body?.status)}, not started`);
      }
      try {
        await receiver.waitFor(`the interview.completed delivery of ${first}`, () => receiver.of(first).length > 0, firstDeliveryMs(ctx));
      } catch {
        if (receiver.tlsErrors.length) throw new NotTested(`the service did not complete a TLS handshake with the receiver (${receiver.tlsErrors[0]}): make it trust ${receiver.caFile}`);
        ctx.must(r.delivered, false, `no delivery of interview ${first} within ${firstDeliveryMs(ctx) / 1000} s of its completion`);
      }
      const d = receiver.of(first)[0];
      const payload = parse(d);
      const rest = await ctx.http.req(`/v1/interviews/${first}`);
      ctx.expect(r["payload-matches"], rest.status === 200 && rest.body.status === "completed", `GET /v1/interviews/${first} after its webhook answered ${rest.status} with status ${rest.body?.status}`, rest);
      const same: Array<[string, unknown]> = [...payloadFieldsOf(rest.body), ["study_name", study.name], ["experiment_name", study.name], ["status", "completed"]];
      // Every attempt of it (a duplicate too: Events 4) agrees with the resource, not only the first.
      for (const [k, attempt] of receiver.of(first).entries()) {
        const data = parse(attempt)?.data;
        for (const [field, want] of same) ctx.expect(r["payload-matches"], data?.[field] === want, `attempt ${k + 1}: payload data.${field} is ${JSON.stringify(data?.[field])} but the REST resource says ${JSON.stringify(want)}`, rest);
      }
      const sentAt = Date.parse(payload?.timestamp);
      const completedAt = Date.parse(rest.body?.completed_at);
      // Both instants are the service's clock, so no skew: sent after completion (100 ms of slack), within the seed's 30 s (+5).
      ctx.expect(r.timestamp, Number.isFinite(sentAt) && sentAt >= completedAt - 100 && sentAt <= completedAt + FIRST_DELIVERY_MS, `payload timestamp ${payload?.timestamp} is not between the interview's completed_at ${rest.body?.completed_at} and 35 s after it`, rest, payload);

      // 1b. A respondent-specific link sets data.respondent_id; the first interview had none.
      ctx.expect(r["respondent-id"], payload?.data?.respondent_id === null, `interview ${first}, triggered without a respondent-specific link, carries respondent_id ${JSON.stringify(payload?.data?.respondent_id)}`, undefined, payload?.data);
      await ctx.part("respondent-specific links", async () => {
        const personal = await ctx.states.plantInterview({ study_id: study.id, reference_id: "conformance_respondent", respondent_id: "resp_conformance" });
        secrets.set(personal.id, secret);
        await receiver.waitFor("the respondent-specific delivery", () => receiver.of(personal.id).length > 0, firstDeliveryMs(ctx)).catch(() => undefined);
        const got = parse(receiver.of(personal.id)[0])?.data;
        ctx.expect(r["respondent-id"], got?.respondent_id === "resp_conformance", `an interview triggered with respondent_id resp_conformance was delivered with ${JSON.stringify(got?.respondent_id)}`, undefined, got);
      });

      // 2. Nothing but interviews emits events: plant a chat and a study, and wait.
      const planted: string[] = [];
      await ctx.part("no event from planted chats", async () => void planted.push(`chat ${(await ctx.states.plantChat({ title: ctx.states.name("no event"), messages: [{ role: "user", parts: [{ type: "text", text: "hello" }] }] })).id}`));
      await ctx.part("no event from planted studies", async () => void planted.push(`study ${(await ctx.states.plantStudy({ name: "no event" })).id}`));
      // Releases emit none either, nor does a study's change of status (where the target plants them).
      if (ctx.states.has("plant-release")) await ctx.part("no event from planted releases", async () => void planted.push(`release ${(await ctx.states.plantRelease({ vcs_pr_number: 4242, vcs_pr_title: ctx.states.name("no event"), status: "active" })).id}`));
      if (ctx.states.has("study-status")) {
        await ctx.part("no event from a study paused", async () => {
          const paused = await ctx.states.plantStudy({ name: "no event, paused" });
          await ctx.states.setStudyStatus(paused.id, "paused");
          planted.push(`study ${paused.id} then paused`);
        });
      }
      await sleep(800);
      const foreign: Delivery[] = [];
      for (const x of receiver.deliveries) {
        const known = x.interviewId !== null && (secrets.has(x.interviewId) || (await ctx.http.req(`/v1/interviews/${x.interviewId}`)).body?.status === "completed");
        if (!known || x.headers["x-webhook-event"] !== "interview.completed" || parse(x)?.event !== "interview.completed") foreign.push(x);
      }
      ctx.expect(r["only-interviews"], foreign.length === 0, `${foreign.length} deliveries are not interview.completed about a completed interview (after planting ${planted.join(" and ") || "nothing"})`, undefined, foreign.map((x) => ({ event: x.headers["x-webhook-event"], body: x.raw.toString("utf8").slice(0, 300) })));

      // 4. A webhook not subscribed to interview.completed is refused or receives nothing.
      const unsubscribed = await ctx.http.req("/v1/webhooks", { method: "PUT", body: { url: second, events: [] } });
      if (unsubscribed.status < 300) {
        const quiet = await trigger(ctx, study.id, "conformance_unsubscribed");
        await sleep(1500);
        ctx.expect(r["subscribed-only"], receiver.of(quiet).length === 0, `with events: [] accepted (${unsubscribed.status}), interview ${quiet} was still delivered`, unsubscribed);
        await ctx.http.req("/v1/webhooks", { method: "PUT", body: { url: second, events: ["interview.completed"] } });
      } else ctx.expect(r["subscribed-only"], unsubscribed.status === 400, `PUT /v1/webhooks with events: [] answered ${unsubscribed.status}`, unsubscribed);

      // 5. A lost secret is replaced by deleting and creating again: a new secret signs what follows.
      const del = await ctx.http.req("/v1/webhooks", { method: "DELETE" });
      const deleteWrong = wrongs([del.status !== 204, `DELETE /v1/webhooks answered ${del.status}, not 204`], [del.text !== "", `the 204 carried a body: ${del.text.slice(0, 100)}`]);
      ctx.expect(r["delete-204"], !deleteWrong, deleteWrong, del);
      const gone = await ctx.http.req("/v1/webhooks");
      ctx.expect(r["delete-204"], gone.status === 404, `GET /v1/webhooks after DELETE answered ${gone.status}`, gone);
      const again = await ctx.http.req("/v1/webhooks", { method: "PUT", body: { url: receiver.url, events: ["interview.completed"] } });
      const fresh = again.body?.signing_secret;
      if (ctx.expect(r.recreate, again.status === 201 && typeof fresh === "string" && fresh !== secret, `PUT after DELETE answered ${again.status} with ${fresh === secret ? "the old secret" : JSON.stringify(fresh)}: a new signing_secret must replace a lost one`, again)) {
        secret = fresh;
        issued.push({ secret, at: Date.now() });
        const signedAnew = await trigger(ctx, study.id, "conformance_new_secret");
        secrets.set(signedAnew, secret);
        await receiver.waitFor("the delivery after re-creation", () => receiver.of(signedAnew).length > 0, firstDeliveryMs(ctx)).catch(() => undefined);
        const x = receiver.of(signedAnew)[0];
        ctx.expect(r.recreate, x !== undefined && signed(secret, x), `the delivery after re-creation ${x ? "is not signed with the new secret" : "never came"}`);
      }
      judgeAll(ctx, receiver, (id, at) => secrets.get(id) ?? issued.filter((x) => x.at <= at).map((x) => x.secret));
    } finally {
      await ctx.http.req("/v1/webhooks", { method: "DELETE" }).catch(() => undefined);
      await receiver.stop();
    }
  },
};
