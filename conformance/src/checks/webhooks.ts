/**
 * webhooks (--sim): the suite runs its own loopback receiver, registers it, triggers interviews and checks
 * the seed's delivery rules: PUT 201 then 200 and the secret shown once; HMAC-SHA256 over the raw body with a
 * constant-time comparison; the headers; the payload against the contract and equal to the REST resource;
 * retries at the configured schedule with byte-identical bodies and signatures, no 5th attempt, stop on 2xx,
 * stop after DELETE; GET 404 after DELETE. Parts of the schedule longer than the budget are skipped, and said so.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { conforms, Skip, type Check, type Ctx } from "../check.ts";
import { CheckFailure, expectThat } from "../http.ts";

interface Delivery {
  at: number;
  headers: IncomingHttpHeaders;
  raw: Buffer;
  interviewId: string | null;
}

class Receiver {
  readonly deliveries: Delivery[] = [];
  /** Status to answer for the n-th (1-based) delivery about an interview; 200 by default. */
  policy: (interviewId: string | null, attempt: number) => number = () => 200;
  private server!: Server;
  url = "";

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const raw = Buffer.concat(chunks);
        let interviewId: string | null = null;
        try {
          interviewId = JSON.parse(raw.toString("utf8"))?.data?.interview_id ?? null;
        } catch {
          interviewId = null;
        }
        this.deliveries.push({ at: Date.now(), headers: req.headers, raw, interviewId });
        const attempt = this.deliveries.filter((d) => d.interviewId === interviewId).length;
        res.statusCode = this.policy(interviewId, attempt);
        res.end();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  of(interviewId: string): Delivery[] {
    return this.deliveries.filter((d) => d.interviewId === interviewId);
  }

  async waitFor(what: string, ready: () => boolean, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!ready()) {
      if (Date.now() > deadline) throw new CheckFailure(`timed out after ${timeoutMs} ms waiting for ${what}`, {});
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** First delivery deadline: the seed says 5 to 30 s after the respondent finishes; simulated ones are faster. */
const FIRST_DELIVERY_MS = 35_000;

function verifySignature(secret: string, d: Delivery): boolean {
  const header = d.headers["x-webhook-signature"];
  const m = typeof header === "string" ? /^sha256=([0-9a-f]{64})$/.exec(header) : null;
  if (!m) return false;
  const expected = createHmac("sha256", secret).update(d.raw).digest();
  return timingSafeEqual(expected, Buffer.from(m[1], "hex"));
}

async function trigger(ctx: Ctx, studyId: string, reference: string): Promise<string> {
  const reply = await ctx.http.req("/_sim/interviews", { method: "POST", body: { study_id: studyId, reference_id: reference } });
  expectThat(reply.status === 201, `POST /_sim/interviews answered ${reply.status}`, reply);
  conforms(ctx, reply, "POST /_sim/interviews");
  return reply.body.id;
}

export const webhooksCheck: Check = {
  name: "webhooks",
  description: "signed interview.completed deliveries, payload equal to the REST resource, the retry schedule, stop on 2xx and after DELETE",
  needs: ["sim"],
  operations: ["putWebhook", "getWebhook", "deleteWebhook", "simCreateInterview", "simListWebhookDeliveries"],
  async run(ctx) {
    const receiver = new Receiver();
    await receiver.start();
    const delays = ctx.options.webhookRetryDelaysMs;
    const tolerance = (ms: number) => Math.max(250, ms * 0.25);
    try {
      await ctx.http.req("/v1/webhooks", { method: "DELETE" });
      const none = await ctx.http.req("/v1/webhooks");
      expectThat(none.status === 404, `GET /v1/webhooks after DELETE answered ${none.status}`, none);

      const created = await ctx.http.req("/v1/webhooks", { method: "PUT", body: { url: receiver.url, events: ["interview.completed"] } });
      if (created.status === 400) throw new Skip(`the server refuses the suite's loopback receiver ${receiver.url} (${created.body?.error?.message}); webhooks need an http:// loopback URL`);
      expectThat(created.status === 201 && typeof created.body?.signing_secret === "string" && created.body.signing_secret.length > 0, `first PUT /v1/webhooks answered ${created.status} without a signing_secret`, created);
      conforms(ctx, created, "PUT /v1/webhooks (create)");
      const secret: string = created.body.signing_secret;
      const updated = await ctx.http.req("/v1/webhooks", { method: "PUT", body: { url: receiver.url, events: ["interview.completed"] } });
      expectThat(updated.status === 200 && !("signing_secret" in (updated.body ?? {})), `second PUT /v1/webhooks must answer 200 without the secret, got ${updated.status}`, updated);
      const got = await ctx.http.req("/v1/webhooks");
      expectThat(got.status === 200 && !got.text.includes(secret), "GET /v1/webhooks must not show the secret", got);
      conforms(ctx, got, "GET /v1/webhooks");

      const studies = (await ctx.http.walk("/v1/studies", 100)).items.filter((s: any) => s.accepting_responses);
      if (!studies.length) throw new Skip("no study is accepting responses, so no interview can be simulated");
      const study = studies[0];

      // 1. One delivery, verified.
      const first = await trigger(ctx, study.id, "conformance_webhook");
      await receiver.waitFor(`the interview.completed delivery of ${first}`, () => receiver.of(first).length > 0, FIRST_DELIVERY_MS);
      const d = receiver.of(first)[0];
      expectThat(d.headers["content-type"]?.startsWith("application/json"), `delivery Content-Type is ${d.headers["content-type"]}`);
      expectThat(d.headers["x-webhook-event"] === "interview.completed", `delivery X-Webhook-Event is ${d.headers["x-webhook-event"]}`);
      expectThat(verifySignature(secret, d), `X-Webhook-Signature ${d.headers["x-webhook-signature"]} is not sha256=HMAC-SHA256(secret, raw body)`, undefined, { body: d.raw.toString("utf8") });
      const payload: any = JSON.parse(d.raw.toString("utf8"));
      const schema = ctx.contract.ajv.validator("#/webhooks/interview.completed/post/requestBody/content/application~1json/schema");
      const valid: boolean = schema(payload);
      expectThat(valid, `the payload does not match the contract: ${JSON.stringify(schema.errors?.slice(0, 3))}`, undefined, payload);
      const rest = await ctx.http.req(`/v1/interviews/${first}`);
      expectThat(rest.status === 200 && rest.body.status === "completed", `GET /v1/interviews/${first} after its webhook answered ${rest.status} with status ${rest.body?.status}`, rest);
      const same: Array<[string, unknown]> = [
        ["interview_id", rest.body.id], ["session_id", rest.body.id], ["study_id", rest.body.study_id], ["experiment_id", rest.body.study_id],
        ["study_name", study.name], ["experiment_name", study.name], ["status", rest.body.status], ["started_at", rest.body.started_at],
        ["completed_at", rest.body.completed_at], ["duration_secs", rest.body.duration_secs], ["quality_score", rest.body.quality_score],
        ["language", rest.body.language], ["reference_id", rest.body.reference_id], ["respondent_email", rest.body.respondent_email],
      ];
      for (const [field, want] of same) expectThat(payload.data[field] === want, `payload data.${field} is ${JSON.stringify(payload.data[field])} but the REST resource says ${JSON.stringify(want)}`, rest);

      // 2. The retry schedule against a receiver answering 500.
      let budget = ctx.options.webhookBudgetMs;
      const fits = delays.filter((_, i) => delays.slice(0, i + 1).reduce((s, x) => s + x, 0) <= budget).length;
      if (fits < delays.length) ctx.note(`webhooks: only ${fits} of ${delays.length} retries fit the ${budget} ms budget; the rest of the schedule was not observed`);
      receiver.policy = (id, attempt) => (id === failing ? 500 : 200);
      let failing: string | null = null;
      failing = await trigger(ctx, study.id, "conformance_retry");
      await receiver.waitFor("the first failing attempt", () => receiver.of(failing!).length >= 1, FIRST_DELIVERY_MS);
      const expected = 1 + fits;
      await receiver.waitFor(`${expected} attempts`, () => receiver.of(failing!).length >= expected, delays.slice(0, fits).reduce((s, x) => s + x + tolerance(x), 2000));
      const attempts = receiver.of(failing);
      for (let i = 1; i < expected; i++) {
        const gap = attempts[i].at - attempts[i - 1].at;
        expectThat(gap >= delays[i - 1] - tolerance(delays[i - 1]) && gap <= delays[i - 1] + tolerance(delays[i - 1]) + 1500, `retry ${i} came ${gap} ms after attempt ${i}, expected about ${delays[i - 1]} ms`);
        expectThat(attempts[i].raw.equals(attempts[0].raw), `retry ${i} body differs from the first attempt's bytes`);
        expectThat(attempts[i].headers["x-webhook-signature"] === attempts[0].headers["x-webhook-signature"], `retry ${i} signature differs`);
      }
      if (fits === delays.length) {
        const wait = Math.max(...delays) * 0.5 + 1000;
        await sleep(wait);
        expectThat(receiver.of(failing).length === expected, `${receiver.of(failing).length} attempts arrived: after ${delays.length} retries the event must be dropped`);
      }
      budget -= delays.slice(0, fits).reduce((s, x) => s + x, 0);

      // 3. A 2xx stops the retries: 500 then 200 is exactly two attempts.
      if (delays.length >= 2 && delays[0] + delays[1] <= Math.max(budget, 0) + delays[0]) {
        const flaky = await trigger(ctx, study.id, "conformance_flaky");
        receiver.policy = (id, attempt) => (id === flaky && attempt === 1 ? 500 : 200);
        await receiver.waitFor("the retry after a 500", () => receiver.of(flaky).length >= 2, FIRST_DELIVERY_MS + delays[0] + tolerance(delays[0]));
        await sleep(delays[1] + tolerance(delays[1]));
        expectThat(receiver.of(flaky).length === 2, `a 2xx must stop the retries: ${receiver.of(flaky).length} attempts arrived`);
      } else ctx.note("webhooks: stop-on-2xx not observed (the second delay does not fit the budget)");

      // 4. DELETE stops pending deliveries.
      if (delays.length >= 1) {
        const orphan = await trigger(ctx, study.id, "conformance_orphan");
        receiver.policy = (id) => (id === orphan ? 500 : 200);
        await receiver.waitFor("the first attempt before DELETE", () => receiver.of(orphan).length >= 1, FIRST_DELIVERY_MS);
        const del = await ctx.http.req("/v1/webhooks", { method: "DELETE" });
        expectThat(del.status === 204 && del.text === "", `DELETE /v1/webhooks answered ${del.status} ${del.text}`, del);
        await sleep(delays[0] + tolerance(delays[0]) + 500);
        expectThat(receiver.of(orphan).length === 1, `after DELETE, ${receiver.of(orphan).length - 1} more attempt(s) reached the old URL`);
        const after = await ctx.http.req("/v1/webhooks");
        expectThat(after.status === 404, `GET /v1/webhooks after DELETE answered ${after.status}`, after);
      }
      const log = await ctx.http.req("/_sim/webhook-deliveries?limit=100");
      conforms(ctx, log, "GET /_sim/webhook-deliveries");
    } finally {
      await ctx.http.req("/v1/webhooks", { method: "DELETE" }).catch(() => undefined);
      await receiver.stop();
    }
  },
};
