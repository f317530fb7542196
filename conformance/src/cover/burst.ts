/**
 * A burst of completions, every run: 101 interviews of one study completed at once (past any page, and past the caps a
 * service is tempted to put on what it sends: a few in flight, so many a minute, one per instant), among them two
 * that share a reference id and two whose reference ids differ in case alone. The seed sends a signed POST each time an
 * interview completes: each must be delivered, signed, carrying its own interview, study and reference id. The receiver
 * answers each first attempt 500 and its retry 200, so 101 retries are pending at once (past the bound a retry queue
 * is tempted to keep): each must come. An event that arrives more often is allowed (receivers de-duplicate on
 * session_id).
 */
import { judgeAttempt } from "../judge/attempts.ts";
import { completionWaitMs, untilCompleted } from "../judge/completion.ts";
import { fieldsDiffer } from "../judge/same.ts";
import { SEED_RETRY_DELAYS_MS, SEED_TIMEOUT_MS } from "../judge/timing.ts";
import { until, type CoverEnv, type Unit } from "./unit.ts";
import { r } from "./rules.ts";

const COUNT = 101;
const AT_ONCE = "101 completed at once";
const SHARED = "two of one reference id";
const TWINS = "two reference ids in two cases";
const RETRIED = "101 retried at once";

/** Each interview's reference id: unique, but for the pair that shares one and the pair of case twins. */
const referenceOf = (k: number, run: number): string => (k < 2 ? `Burst-Shared-${run}` : k < 4 ? (k === 2 ? `Burst-Twin-${run}` : `burst-twin-${run}`) : `Burst-${run}-${k}`);

export const burst: Unit = {
  name: "burst",
  doc: "101 interviews of one study completed at once (two sharing a reference id, two whose reference ids differ in case alone), each first attempt answered 500: each delivered and retried, signed, with its own interview, study and reference id; run once the other units are done, so that its load never makes another unit's retries late",
  needs: ["plant-study", "plant-interview", "hold", "complete"],
  receives: true,
  // A hundred deliveries at once would make a busy service late with another unit's retries.
  alone: true,
  rules: [r["burst-delivered"]],
  classes: () => [AT_ONCE, SHARED, TWINS, RETRIED],
  async run(env: CoverEnv) {
    const { ctx } = env;
    const study = await ctx.states.plantStudy({ name: "Burst", weekly_limit: null, monthly_limit: null }, env.project);
    const hook = await env.hook("burst");
    if (!hook) return;
    const run = Math.floor(Math.random() * 1e6);
    // Planted held, ten at a time, so that their completions (not their plantings) are the burst.
    const planted: Array<{ id: string; reference: string }> = [];
    for (let k = 0; k < COUNT; k += 10) {
      const batch = Array.from({ length: Math.min(10, COUNT - k) }, (_, j) => k + j);
      planted.push(...(await Promise.all(batch.map(async (n) => ({ id: (await ctx.states.plantInterview({ study_id: study.id, hold: true, reference_id: referenceOf(n, run) }, env.project)).id, reference: referenceOf(n, run) })))));
    }
    // Each first attempt failed, so every event's retry is pending at once.
    for (const p of planted) env.answers.set(p.id, [500]);
    // Attempts the receiver saw lost on their way in (see Receiver.lostAt) since the burst began.
    const since = Date.now();
    const lostSoFar = () => env.receiver.lostAt.filter((t) => t >= since).length;
    await Promise.all(planted.map((p) => ctx.states.completeInterview(p.id, env.project)));
    const wait = completionWaitMs(ctx.options);
    const delays = ctx.options.webhookRetryDelaysMs ?? SEED_RETRY_DELAYS_MS;
    const timeout = ctx.options.webhookTimeoutMs ?? SEED_TIMEOUT_MS;
    const of = (id: string) => env.receiver.deliveries.filter((d) => d.interviewId === id && d.path.startsWith(hook.path));
    const short = () => planted.filter((p) => of(p.id).length < 2);
    const retried = () => short().length === 0;
    let waited = wait + delays[0]! * 1.5 + 10_000;
    let done = await until(retried, waited, 100);
    // An attempt lost on its way never reaches the receiver: a loaded service whose own timeout runs out before it
    // connects (a hundred TLS handshakes at once) counts it failed and sends the next at the schedule's next step. The
    // receiver cannot tell that from a retry never sent (nor see every lost one: a service may give up before it
    // connects), so an event still short of two attempts is waited for through the schedule's later steps.
    for (let step = 1; !done && step < delays.length; step++) {
      const more = delays[step]! * 1.2 + timeout + 10_000;
      const before = short().length;
      done = await until(retried, more, 100);
      waited += more;
      const late = before - short().length;
      if (late) ctx.note(`cover burst: ${late} of ${COUNT} events had their second attempt only at the schedule's step ${step + 1} (${delays[step]} ms), ${lostSoFar()} attempts seen lost on their way in so far: an attempt lost, or a retry skipped, which the receiver cannot tell apart (the retries check judges the schedule)`);
    }
    // Each read completed (the service's processing may outlast its first delivery's wait above only if it is slower).
    const missing = planted.filter((p) => of(p.id).length === 0);
    const notCompleted: string[] = [];
    for (const p of missing) if ((await untilCompleted(env.http, p.id, 1_000)).reply.body?.status !== "completed") notCompleted.push(p.id);
    const undelivered = missing.filter((p) => !notCompleted.includes(p.id));
    const unretried = planted.filter((p) => of(p.id).length === 1);
    // Said beside a failure: attempts the receiver saw lost on their way in, which a loaded machine may explain (a
    // service that gives up before it connects leaves nothing to see, so they cannot excuse an event: a run at the
    // seed's own timings waits through the whole schedule instead, a loaded service's later attempts being spread out).
    const seenLost = lostSoFar();
    const losses = seenLost ? `; the receiver saw ${seenLost} attempts lost on their way in (a TLS handshake that failed, a request whose body never came: is either machine overloaded?)` : "";
    env.expect(r["burst-delivered"], undelivered.length === 0 && notCompleted.length === 0, `of ${COUNT} interviews completed at once, ${undelivered.length} read completed and were never delivered within ${waited} ms (${undelivered.slice(0, 5).map((p) => `${p.id} reference ${JSON.stringify(p.reference)}`).join(", ")})${notCompleted.length ? `, and ${notCompleted.length} never read completed (${notCompleted.slice(0, 3).join(", ")})` : ""}${losses}`);
    let whole = true;
    for (const p of planted) {
      for (const [k, d] of of(p.id).entries()) {
        const label = `attempt ${k + 1} of the delivery of interview ${p.id} (one of ${COUNT} completed at once)`;
        judgeAttempt({ ...ctx, expect: env.expect }, hook.secret, d, label);
        let payload: any;
        try {
          payload = JSON.parse(d.raw.toString("utf8"));
        } catch {
          whole = env.expect(r["burst-delivered"], false, `${label}: the body is not JSON`) && whole;
          continue;
        }
        const differs = fieldsDiffer(payload?.data, { interview_id: p.id, session_id: p.id, study_id: study.id, experiment_id: study.id, reference_id: p.reference, status: "completed" });
        whole = env.expect(r["burst-delivered"], !differs, `${label} does not carry its own interview: ${differs}`, undefined, payload) && whole;
      }
    }
    env.expect(r["burst-delivered"], unretried.length === 0, `of ${COUNT} interviews completed at once, each first attempt answered 500, ${unretried.length} were never retried within ${waited} ms (e.g. ${unretried.slice(0, 3).map((p) => p.id).join(", ")}): a retry is owed to every event, however many are pending${losses}`);
    if (undelivered.length || notCompleted.length || !whole) return;
    if (!unretried.length) env.reach(RETRIED, r["burst-delivered"].cites);
    env.reach(AT_ONCE, r["burst-delivered"].cites);
    env.reach(SHARED, r["burst-delivered"].cites);
    env.reach(TWINS, r["burst-delivered"].cites);
  },
};
