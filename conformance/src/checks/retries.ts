/**
 * retries (--sim): the seed's delivery rules over time, against the suite's receiver: after a non-2xx answer (a 401,
 * as a receiver rejecting a bad signature would answer) each retry comes after its configured delay and carries the
 * same event under the same session_id, no more retries than configured, none after a 2xx; our contract's
 * byte-identical retries and cancellation on DELETE. With --slow-receiver, the receiver timeout itself: an answer
 * just under it is a delivery, one just over it is retried. Parts of the schedule beyond the budget are NOT TESTED.
 */
import type { Check, Ctx } from "../check.ts";
import type { Receiver } from "../receiver.ts";
import { contract, rules, seed } from "../rules.ts";
import { retryWindow, sleep, stallWords } from "../judge/timing.ts";
import { lateAnswerMs } from "../model/interview-steps.ts";
import { acceptingStudy, firstDeliveryMs, judgeAll, register, trigger } from "./webhooks.ts";

// Ids stay under `webhooks.`: these are the webhook rules that take time to observe.
const r = rules("webhooks", {
  retries: seed("Events: delivery rules 2; Limits: webhook retries", "after a non-2xx answer (a 401 included), each retry comes after its configured delay, within max(100 ms, 10%) early and max(250 ms, 20%) late", ["delivery.retries", "limits.retries", "events.verify"]),
  "retry-count": seed("Events: delivery rules 2, 3", "no more retries than configured; then the event is dropped", ["delivery.retries", "delivery.dropped", "limits.retries"]),
  "stop-on-2xx": seed("Events: delivery rules 2", "a 2xx answer ends the retries", ["delivery.retries"]),
  "dedupe-key": seed("Events: delivery rules 4, receivers de-duplicate on session_id", "every attempt of one event carries the same session_id (and interview_id)", ["delivery.duplicates"]),
  timeout: seed("Events: delivery rules 1; Limits: webhook receiver timeout 10 seconds", "with --slow-receiver: a 2xx answered 1.5 s before the timeout is a delivery (no retry); one answered 1.5 s after it is a timeout, retried", ["delivery.timeout", "limits.receiver-timeout"]),
  "identical-retries": contract("webhook delivery", "every attempt of one event carries the same bytes and signature"),
  "delete-cancels": contract("webhook delivery", "DELETE /v1/webhooks cancels the pending retries of its events"),
});

const sessionOf = (raw: Buffer): unknown => {
  try {
    return JSON.parse(raw.toString("utf8"))?.data?.session_id;
  } catch {
    return undefined;
  }
};

/** --slow-receiver: answers at timeout - 1.5 s and timeout + 1.5 s; the first is one delivery, the second is retried. */
async function slowReceiver(ctx: Ctx, rx: Receiver, studyId: string): Promise<void> {
  const timeout = ctx.options.webhookTimeoutMs ?? 10_000;
  const delays = ctx.options.webhookRetryDelaysMs;
  if (!ctx.options.slowReceiver) {
    ctx.note(`the receiver timeout (${timeout} ms) was not observed 1.5 s either side: --slow-receiver observes that (about ${Math.round((timeout + (delays[0] ?? 0) + 3000) / 1000)} s more); the covering phase holds a 200 sent ${lateAnswerMs(timeout)} ms late as a delivery and no answer as a timeout in every run`);
    return;
  }
  if (!delays.length) return ctx.untested("the receiver timeout", "no retry is configured (--webhook-retry-delays-ms), so a timed-out attempt cannot be told from a delivered one");
  // Just under and just over: 1.5 s either side (a quarter of the timeout when it is under 6 s).
  const margin = Math.min(1500, Math.floor(timeout / 4));
  let under = "";
  let over = "";
  rx.delay = (id, attempt) => (attempt === 1 && id === under ? timeout - margin : attempt === 1 && id === over ? timeout + margin : 0);
  rx.policy = () => 200;
  [under, over] = await Promise.all([trigger(ctx, studyId, "conformance_slow_under"), trigger(ctx, studyId, "conformance_slow_over")]);
  ctx.progress(`retries: slow receiver, answering ${timeout - margin} and ${timeout + margin} ms late`);
  await rx.waitFor("the slow receiver's first attempts", () => rx.of(under).length >= 1 && rx.of(over).length >= 1, firstDeliveryMs(ctx)).catch(() => undefined);
  // The late answer ends at timeout + 1.5 s; its retry is due a first delay after the timeout.
  await rx.waitFor("the retry after the timeout", () => rx.of(over).length >= 2, timeout + margin + retryWindow(delays[0] ?? 0)[1] + 1000).catch(() => undefined);
  const firstUnder = rx.of(under)[0]?.at ?? Date.now();
  await sleep(Math.max(0, firstUnder + timeout + retryWindow(delays[0] ?? 0)[1] + 500 - Date.now()));
  ctx.expect(r.timeout, rx.of(under).length === 1, `a 2xx answered ${timeout - margin} ms late (before the ${timeout} ms timeout) was followed by ${rx.of(under).length - 1} more attempt(s)`);
  ctx.expect(r.timeout, rx.of(over).length >= 2, `an answer ${timeout + margin} ms late (after the ${timeout} ms timeout) was not retried: ${rx.of(over).length} attempt(s)`);
  rx.delay = () => 0;
}

/**
 * How long the retries check may wait for the schedule: --webhook-budget-ms, or by default the whole schedule the
 * service is configured with (its delays and a minute's room; the stop-on-2xx part runs beside it): what the target's
 * own timings need, never a constant. The check runs beside the others where it can have a project of its own.
 */
export const webhookBudgetMs = (o: { webhookBudgetMs?: number; webhookRetryDelaysMs: number[] }) => o.webhookBudgetMs ?? o.webhookRetryDelaysMs.reduce((s, x) => s + x, 0) + 60_000;

/** A retry schedule this long or longer is waited for beside the other checks. */
export const BESIDE_SCHEDULE_MS = 60_000;

export const retriesCheck: Check = {
  name: "retries",
  description: "the retry schedule after a non-2xx answer, the same session_id on every attempt, stop on 2xx, DELETE cancelling, the receiver timeout (--slow-receiver)",
  rules: r,
  needs: ["sim", "plant-interview"],
  operations: ["putWebhook", "deleteWebhook", "simCreateInterview"],
  // A schedule of a minute or more runs beside the other checks (waiting for it in turn would be most of the run);
  // a short one runs in its turn, on a quiet service, where its tight windows are fair.
  beside: (o) => o.webhookRetryDelaysMs.reduce((s, x) => s + x, 0) >= BESIDE_SCHEDULE_MS,
  async run(ctx) {
    const delays = ctx.options.webhookRetryDelaysMs;
    await ctx.http.req("/v1/webhooks", { method: "DELETE" });
    const registered = await register(ctx);
    if (!registered) return;
    const { receiver, created } = registered;
    const secret: string = created.body?.signing_secret ?? "";
    try {
      if (created.status !== 201 || !secret) return ctx.untested("retries", `PUT /v1/webhooks answered ${created.status} without a signing_secret`);
      // A study of its own where studies can be planted (uncapped, so nothing else fills it), else the roomiest.
      const study = ctx.states.has("plant-study") ? await ctx.states.plantStudy({ name: "Retries", weekly_limit: null, monthly_limit: null }) : await acceptingStudy(ctx);

      // 1 and 2 side by side, each on its own interview: the whole schedule against a receiver answering 401, and a
      // 500 then 200 (a 2xx stops the retries).
      const budget = webhookBudgetMs(ctx.options);
      const fits = delays.filter((_, i) => delays.slice(0, i + 1).reduce((s, x) => s + x, 0) <= budget).length;
      if (fits < delays.length) ctx.untested(`retries ${fits + 1}..${delays.length} of the schedule`, `they fall beyond --webhook-budget-ms ${budget}; raise it to ${delays.reduce((s, x) => s + x, 0) + 60_000} to observe them (or leave it out: the default is the whole schedule)`);
      let failing = "";
      let flaky = "";
      receiver.policy = (id, attempt) => (id === failing ? 401 : id === flaky && attempt === 1 ? 500 : 200);
      const schedule = async () => {
        failing = await trigger(ctx, study.id, "conformance_retry");
        await receiver.waitFor("the first failing attempt", () => receiver.of(failing).length >= 1, firstDeliveryMs(ctx)).catch(() => undefined);
        const expected = 1 + fits;
        const late = delays.slice(0, fits).reduce((s, x) => s + retryWindow(x)[1], 2000);
        await receiver.waitFor(`${expected} attempts`, () => receiver.of(failing).length >= expected, late).catch(() => undefined);
        const attempts = receiver.of(failing);
        ctx.expect(r.retries, attempts.length >= expected, `after a 401, ${attempts.length} attempt(s) arrived within ${late} ms; expected ${expected} (the first and ${fits} retries at ${delays.slice(0, fits).join(", ")} ms)`);
        for (let i = 1; i < Math.min(expected, attempts.length); i++) {
          const gap = attempts[i].at - attempts[i - 1].at;
          // Late by no more than this process's stall reading the retry, or the service's own slowness meanwhile.
          const slow = ctx.http.slowness(attempts[i - 1].answeredAt ?? attempts[i - 1].at, attempts[i].at);
          const [lo, hi] = retryWindow(delays[i - 1]);
          const late = hi + Math.max(attempts[i].lagMs, slow.ms);
          ctx.expect(r.retries, gap >= lo && gap <= late, `retry ${i} came ${gap} ms after attempt ${i}; the configured delay is ${delays[i - 1]} ms (accepted ${Math.round(lo)}..${Math.round(late)} ms${stallWords(attempts[i].lagMs, slow)})`);
          ctx.expect(r["identical-retries"], attempts[i].raw.equals(attempts[0].raw) && attempts[i].headers["x-webhook-signature"] === attempts[0].headers["x-webhook-signature"], `retry ${i} differs from the first attempt's bytes or signature`);
          ctx.expect(r["dedupe-key"], sessionOf(attempts[i].raw) === sessionOf(attempts[0].raw) && attempts[i].interviewId === attempts[0].interviewId, `retry ${i} carries session_id ${JSON.stringify(sessionOf(attempts[i].raw))}, the first attempt ${JSON.stringify(sessionOf(attempts[0].raw))}: receivers de-duplicate on it`);
        }
        if (fits === delays.length) {
          await sleep(Math.max(...delays) * 0.5 + 1000);
          ctx.expect(r["retry-count"], receiver.of(failing).length === expected, `${receiver.of(failing).length} attempts arrived: after ${delays.length} retries the event must be dropped`);
        }
      };
      const stopOn2xx = async () => {
        if (delays.length < 2) return;
        if (delays[0] + delays[1] > budget) return ctx.untested("retries stop after a 2xx", `the first two delays (${delays[0]} + ${delays[1]} ms) do not fit --webhook-budget-ms ${budget}`);
        flaky = await trigger(ctx, study.id, "conformance_flaky");
        await receiver.waitFor("the retry after a 500", () => receiver.of(flaky).length >= 2, firstDeliveryMs(ctx) + retryWindow(delays[0])[1]).catch(() => undefined);
        // A retry after the 2xx would come the second delay after it. A late one is as wrong as a timely one, so the
        // window is waited twice over, then past any stall of the service meanwhile (a loaded machine delays the
        // retry it would send); the judgement comes after the schedule beside it, which waits longer still.
        const second = receiver.of(flaky)[1];
        const from = second ? second.answeredAt ?? second.at : Date.now();
        await sleep(Math.max(0, from + 2 * retryWindow(delays[1])[1] - Date.now()));
        await sleep(ctx.http.slowness(from, Date.now()).ms);
        return () => ctx.expect(r["stop-on-2xx"], receiver.of(flaky).length === 2, `500 then 200 must make exactly 2 attempts: ${receiver.of(flaky).length} arrived`);
      };
      // While the schedule runs, a light read of the service every 200 ms: how long it leaves one unanswered is the
      // evidence of its own stalls, which the windows above allow for (a retry the service sent late because a loaded
      // machine starved it; kept from CI, where a PostgreSQL store's second retry came 268 ms late and nothing else read
      // the service meanwhile, so no slowness had been seen).
      const stopPulse = ctx.http.pulse(`/v1/studies/${study.id}`);
      let judgeStop: void | (() => boolean);
      try {
        [, judgeStop] = await Promise.all([schedule(), stopOn2xx()]);
      } finally {
        await stopPulse();
      }
      judgeStop?.();

      // 3. The receiver timeout, with --slow-receiver.
      await slowReceiver(ctx, receiver, study.id);

      // 4. DELETE stops pending deliveries.
      if (delays.length >= 1) {
        let orphan = "";
        receiver.policy = (id) => (id === orphan ? 500 : 200);
        orphan = await trigger(ctx, study.id, "conformance_orphan");
        await receiver.waitFor("the first attempt before DELETE", () => receiver.of(orphan).length >= 1, firstDeliveryMs(ctx)).catch(() => undefined);
        await ctx.http.req("/v1/webhooks", { method: "DELETE" });
        await sleep(retryWindow(delays[0])[1] + 500);
        ctx.expect(r["delete-cancels"], receiver.of(orphan).length === 1, `after DELETE, ${receiver.of(orphan).length - 1} more attempt(s) reached the old URL`);
      }
      judgeAll(ctx, receiver, () => secret);
    } finally {
      await ctx.http.req("/v1/webhooks", { method: "DELETE" }).catch(() => undefined);
      await receiver.stop();
    }
  },
};
