/**
 * What several interview commands share: starting a held interview in the sequence's study, the respondent finishing
 * one (and the wait until it reads completed), the study's filtered lists and an interview's timestamps held to the
 * model, and the window a retry may land in inside a sequence.
 */
import { same } from "../judge/same.ts";
import { completionWaitMs, untilCompleted } from "../judge/completion.ts";
import { judgeRetried2xx } from "../judge/retried-2xx.ts";
import { retryGap } from "../judge/retry-gap.ts";
import { sequenceWindow, sleep, timeoutSlack } from "../judge/timing.ts";
import { RESET } from "../receiver.ts";
import { refusal } from "../states/types.ts";
import { completed, deliveriesOf } from "./commands/base.ts";
import { r } from "./rules.ts";
import type { Model, World } from "./world.ts";

/**
 * What a reference id may hold, from the seed's "string": text beyond ASCII, characters a link must percent-encode,
 * and a twin of an earlier one that differs only in case (a filter by reference id is exact).
 */
export type ReferenceFlavour = "plain" | "unicode" | "encoded" | "case-twin";
const FLAVOURS: Record<Exclude<ReferenceFlavour, "case-twin">, string> = { plain: "", unicode: "-é日本😀", encoded: "-a b&c/d%e+f#g?h=i" };

function referenceFor(m: Model, viaLink: boolean, flavour: ReferenceFlavour): string {
  const earlier = [...m.interviews.values()].map((i) => i.reference).find((ref) => ref.toUpperCase() !== ref.toLowerCase());
  if (flavour === "case-twin" && earlier) {
    const twin = [...earlier].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join("");
    if (![...m.interviews.values()].some((i) => i.reference === twin)) return twin;
  }
  return `model_${m.seq}_${m.interviews.size}${viaLink ? "_link" : ""}${FLAVOURS[flavour === "case-twin" ? "plain" : flavour]}`;
}

/** Starts a held interview in the sequence's study (through the study's link when `viaLink`); false when the study is at its cap. */
export async function start(m: Model, w: World, viaLink: boolean, flavour: ReferenceFlavour = "plain"): Promise<boolean> {
  const reference = referenceFor(m, viaLink, flavour);
  let link: string | undefined;
  if (viaLink) {
    const study = await w.http.req(`/v1/studies/${m.study!.id}`);
    const base = String(study.body?.interview_link ?? "");
    link = `${base}${base.includes("?") ? "&" : "?"}reference_id=${encodeURIComponent(reference)}`;
  }
  try {
    const planted = await w.ctx.states.plantInterview({ study_id: m.study!.id, hold: true, ...(link ? { interview_link: link } : { reference_id: reference }) }, w.project);
    m.interviews.set(planted.id, { status: planted.status === "processing" ? "processing" : "started", created: Date.now(), reference });
    return true;
  } catch (err) {
    const refused = refusal(err);
    if (!refused) throw err;
    // At the cap: our contract's 409 over /_sim, a refusal "not-accepting" from any states module.
    w.judge.expect(r["sim-at-cap"], refused.reason === "not-accepting", `an interview in the sequence's study was refused as ${refused.reason} (${refused.message}), not as a study not accepting responses`);
    return false;
  }
}

/** The seed's interview statuses in their order: a status seen later never ranks lower. */
export const RANK: Record<string, number> = { started: 0, processing: 1, completed: 2 };

/**
 * The respondent finishes interview `id` now; the service processes it, and once it reads completed the model expects
 * its delivery where the webhook points at that moment. The statuses read on the way must go forward.
 */
export async function completeNow(m: Model, w: World, id: string): Promise<void> {
  const done = await w.ctx.states.completeInterview(id, w.project);
  w.judge.expect(r["interview-status"], done.status === undefined || done.status !== "started", `completing interview ${id} answered status ${JSON.stringify(done.status)}`);
  const wait = completionWaitMs(w.ctx.options);
  const { reply, seen } = await untilCompleted(w.http, id, wait);
  const path = ["started", ...seen].filter((s, k, all) => s !== all[k - 1]);
  const forward = path.every((s, k) => k === 0 || RANK[s] > RANK[path[k - 1]]);
  w.judge.expect(r["interview-status"], reply.status === 200 && reply.body?.status === "completed" && forward, reply.status !== 200 ? `GET /v1/interviews/${id} after its respondent finished answered ${reply.status}` : !forward ? `after its respondent finished, interview ${id} went ${path.join(" -> ")}: not forward` : `interview ${id} still read ${JSON.stringify(reply.body?.status)} ${wait} ms after its respondent finished`, reply);
  completed(m, w, id);
}

/** An answer of `TIMEOUT` is no answer within the receiver timeout: the service gives up on the attempt and retries. */
export const TIMEOUT = 0;

/**
 * An answer of `LATE_2XX` is a 200 sent late but inside the receiver timeout (`lateAnswerMs`): a delivery, never retried.
 * A service whose own timeout is shorter than the one it is configured with retries it.
 */
export const LATE_2XX = -2;

/**
 * When a `LATE_2XX` answer is sent after the attempt arrived: the timeout less twice the room a service may have run its
 * clock before it connected (timeoutSlack), 6 s of the seed's 10 s. A service that gives up at 5 s shows; one whose
 * clock started early does not.
 */
export const lateAnswerMs = (timeoutMs: number) => Math.max(0, timeoutMs - 2 * timeoutSlack(timeoutMs));

/** created_at never changes; completed_at is set once completed and never changes; started_at and completed_at are ordered. */
export function judgeTimestamps(w: World, id: string, model: Model["interviews"] extends Map<string, infer I> ? I : never, i: any, reply: any): void {
  const t = (x: unknown) => (typeof x === "string" ? Date.parse(x) : NaN);
  model.createdAt ??= i.created_at;
  // The same instant however a read writes it (Z or +00:00: the seed fixes UTC, not the form, which is judged apart).
  w.judge.expect(r.timestamps, same(i.created_at, model.createdAt, "created_at"), `interview ${id}'s created_at was ${model.createdAt} and now reads ${i.created_at}: a creation time never changes`, reply);
  if (i.status === "completed" && model.status === "completed") {
    model.completedAt ??= i.completed_at;
    const wrong = typeof i.completed_at !== "string" ? `completed_at is ${JSON.stringify(i.completed_at)} on a completed interview`
      : !same(i.completed_at, model.completedAt, "completed_at") ? `completed_at was ${model.completedAt} and now reads ${i.completed_at}`
      : !(t(i.completed_at) >= t(i.started_at)) ? `completed_at ${i.completed_at} is before started_at ${i.started_at}`
      : "";
    w.judge.expect(r.timestamps, !wrong, `interview ${id}: ${wrong}`, reply);
  }
}

/** The study's interviews filtered by status, held to the model (interviews the study had before the sequence left out). */
export async function judgeFiltered(m: Model, w: World, status: "completed" | "started" | null): Promise<void> {
  const query = `/v1/interviews?study_id=${m.study!.id}${status ? `&status=${status}` : ""}`;
  const walk = await w.http.walk(query, 100);
  for (const page of walk.pages) w.judge.conforms(page, `GET ${query}`);
  const got = walk.items.map((i: any) => i.id).filter((id: string) => !m.study!.base.before.has(id)).sort();
  const want = [...m.interviews].filter(([, i]) => (status === null ? true : status === "completed" ? i.status === "completed" : i.status === "started")).map(([id]) => id).sort();
  const missing = want.filter((id) => !got.includes(id));
  const extra = got.filter((id: string) => !want.includes(id));
  w.judge.expect(r["interview-filter"], !missing.length && !extra.length, `${query} lists ${missing.length ? `without ${missing.join(", ")}` : ""}${missing.length && extra.length ? " and " : ""}${extra.length ? `with ${extra.join(", ")}, which the sequence did not leave ${status ?? "in the study"}` : ""}`, walk.pages[0], { want, got });
}

/** Runs `fn` over `items`, `width` at a time. */
export async function inBatches<T>(items: T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  for (let k = 0; k < items.length; k += width) await Promise.all(items.slice(k, k + width).map(fn));
}

/** How an answer reads in a failure message. */
export const describeAnswer = (a: number) => (a === TIMEOUT ? "no answer" : a === RESET ? "the connection closed" : a === LATE_2XX ? "200 late, inside the timeout" : String(a));

/**
 * Watches the whole delivery schedule of interview `id` whose attempts the receiver answers with `answers` (200 past
 * them): as many attempts as are due (retries after a failed one, at most the configured delays, none after a 2xx),
 * each retry after its delay counted from the failure, each the same event. Judged under `retries`, or
 * `timeout-retried` where an attempt was left unanswered.
 */
export async function watchSchedule(m: Model, w: World, id: string, answers: number[]): Promise<void> {
  const delays = w.ctx.options.webhookRetryDelaysMs;
  const ok = (s: number) => s !== TIMEOUT && s !== RESET && s >= 200 && s < 300;
  const want = Math.min([...answers, 200].findIndex(ok) + 1, delays.length + 1);
  const timeoutMs = w.ctx.options.webhookTimeoutMs ?? 10_000;
  const schedule = delays.slice(0, want - 1).reduce((a, b) => a + sequenceWindow(b)[1], 0) + answers.filter((a) => a === TIMEOUT).length * timeoutMs;
  const deadline = Date.now() + (w.ctx.options.webhookWaitMs ?? 35_000) + schedule;
  // While the retries come, the service's own stalls are measured (Http.pulse), as the covering phase does: a retry
  // late while the service left a read unanswered that long is the machine's doing, not the schedule's.
  const stopPulse = w.http.pulse(`/v1/interviews/${id}`);
  try {
    while (deliveriesOf(m, w, id).length < want && Date.now() < deadline) await sleep(25);
    // A little longer, so an attempt too many has the time to arrive.
    await sleep(sequenceWindow(delays[Math.min(want - 1, delays.length - 1)] ?? 0)[1]);
  } finally {
    await stopPulse();
  }
  const got = deliveriesOf(m, w, id);
  const answered = got.map((_, k) => describeAnswer(answers[k] ?? 200));
  // An attempt after the 2xx is judged only where it can show the rule (judge/retried-2xx.ts), as the covering phase's
  // receiver-answers judges it: a service stalled around the 2xx may have timed it out.
  const okAnswer = answers[want - 1] ?? 200;
  const excused = got.length > want && ok(okAnswer) ? judgeRetried2xx(w.http, got[want - 1], timeoutMs, true, false).why : undefined;
  if (excused) w.ctx.note(`model: interview ${id}: the ${describeAnswer(okAnswer)} to attempt ${want} ${excused}`);
  // With an attempt left unanswered, the count says whether a timeout was taken for a failure: its own rule.
  const countRule = answers.slice(0, want - 1).includes(TIMEOUT) ? r["timeout-retried"] : r.retries;
  if (!excused) w.judge.expect(countRule, got.length === want, `interview ${id}: the receiver answered ${answered.join(", ") || "nothing"}; ${want} attempt(s) were due (retries after a failed attempt, at most ${delays.length}, none after a 2xx), ${got.length} came`, undefined, { answers, delays });
  // Each due retry's timing (an attempt past the due ones is the count's to judge, not a retry of a failed attempt).
  for (let k = 1; k < Math.min(got.length, want) && k <= delays.length; k++) {
    const timedOut = answers[k - 1] === TIMEOUT;
    const { gap, lo, hi, allowing } = retryGap(w.http, got[k - 1], got[k], timedOut, timeoutMs, delays[k - 1]);
    w.judge.expect(timedOut ? r["timeout-retried"] : r.retries, gap >= lo && gap <= hi, `interview ${id}: retry ${k} came ${gap} ms after the attempt before it failed (${timedOut ? `no answer within the ${timeoutMs} ms receiver timeout` : describeAnswer(answers[k - 1])}); the configured delay is ${delays[k - 1]} ms (${Math.round(lo)} to ${Math.round(hi)} accepted${allowing})`);
    w.judge.expect(r.retries, got[k].raw.equals(got[0].raw) || JSON.parse(got[k].raw.toString()).data?.session_id === JSON.parse(got[0].raw.toString()).data?.session_id, `interview ${id}: retry ${k} is not the same event (session_id differs)`);
  }
}

/** Every class of receiver answer: 2xx, 3xx, 4xx, 5xx, a closed connection, and no answer in time (when `withTimeout`). */
export const receiverAnswers = (withTimeout: boolean) => [200, 202, 204, 299, 301, 302, 400, 401, 404, 410, 429, 500, 502, 503, RESET, ...(withTimeout ? [TIMEOUT] : [])];
