/**
 * Every class of receiver answer, every run: one interview per class (a 2xx other than 200 and a 3xx at their edge, 299
 * and 300, a 4xx, a 5xx, a closed connection, no answer within the receiver timeout, and the statuses a service is
 * tempted to single out: 201, 204, 301, 400, 401, 410, 429, 500, 501, and a 200 sent late but inside the timeout)
 * completed at once in a study whose long name is beyond ASCII, each with a reference id and email beyond ASCII (the 2xx
 * one's as long as the contract takes). Each attempt is judged whole (headers, signature over the raw bytes, the payload
 * predicted from what was planted and the REST read); each class must be retried exactly once after the first delay
 * (then answered 200), a 2xx never. A 3xx names a Location that is not the webhook's (receiver.ts): a sender that
 * follows it has not delivered, and must still retry. One more answers 503 and then not in time: the receiver timeout
 * holds on a retry too, so it is retried again after the second delay. The 3xx one is opened with no reference id and
 * no email: its payload carries `null` for both (no query parameter, not collected). A class whose evidence a moment of
 * load spoilt (the late 200 sent or seen too late, or a retry of it the service's own slowness explains) is planted
 * again, up to three rounds in all.
 */
import { judgeAttempt, signed } from "../judge/attempts.ts";
import { completionWaitMs, untilCompleted } from "../judge/completion.ts";
import { judgeRetried2xx } from "../judge/retried-2xx.ts";
import { retryGap } from "../judge/retry-gap.ts";
import { sequenceWindow } from "../judge/timing.ts";
import { describeAnswer, LATE_2XX, TIMEOUT } from "../model/interview-steps.ts";
import { RESET, type Delivery } from "../receiver.ts";
import { fieldsDiffer, sameEvents, sameUrl } from "../judge/same.ts";
import { textOfLength, until, type CoverEnv, type Hook, type Unit } from "./unit.ts";
import { propertySchema } from "./domain.ts";
import { r } from "./rules.ts";

/**
 * A class of answer and the status (or RESET / TIMEOUT) that stands for it: the 2xx and 3xx at their common edge (299
 * and 300), where a service that reads "2xx" as "below 300" or "up to 300" parts from the seed.
 */
const CLASSES: Array<[string, number]> = [
  ["2xx", 299], ["3xx", 300], ["4xx", 404], ["5xx", 503], ["reset", RESET], ["timeout", TIMEOUT],
  // The answers a service is tempted to single out: other successes (201, 204), a permanent redirect, the seed's own
  // answer to a bad signature (401), Gone (read as "unsubscribe" by many webhook senders), a rate limit, a permanent
  // server error. The seed makes none of them special: a 2xx ends the delivery, any other answer is retried.
  ["201", 201], ["204", 204], ["301", 301], ["400", 400], ["401", 401], ["410", 410], ["429", 429], ["500", 500], ["501", 501],
  // The timeout's other side: a 200 sent late but well inside it is a delivery. A service that gives up sooner than
  // it is configured to (half the timeout, a hard-coded 5 s) retries it.
  ["200 late, inside the timeout", LATE_2XX],
];
/** A retry that times out in turn: the receiver timeout holds for every attempt, not the first alone. */
const RETRY_TIMEOUT = "timeout on a retry";
/**
 * A retry answered with a 2xx other than 200: it ends the delivery as the first attempt's would. Planted beside the
 * timeout on a retry, whose third attempt comes after the window in which this one's attempt too many would.
 */
const RETRY_2XX = "202 on a retry";

/** Text beyond ASCII: an accent, a combining mark, a character beyond the BMP, a right-to-left script. */
export const NON_ASCII = "Étude naïve e\u0301 😀 𝄞 مرحبا";

/** Letters and digits to make a value long with. */
const FILL = "abcdefghij0123456789";

const ok = (a: number) => a === LATE_2XX || (a >= 200 && a < 300);

export const receiverAnswers: Unit = {
  name: "receiver-answers",
  doc: "one completion per class of receiver answer (2xx, 3xx, 4xx, 5xx, a closed connection, no answer in time, a 200 sent late but inside the timeout, and 201, 204, 301, 400, 401, 410, 429, 500 and 501) in a study named long and beyond ASCII (the 2xx one's reference id, respondent and email long too): retried once after the first delay unless 2xx, every attempt signed over its raw bytes and predicted whole; then the webhook still the one set, and the next completion delivered to it",
  needs: ["plant-study", "plant-interview", "hold", "complete"],
  receives: true,
  rules: [r["answer-retried"], r["payload-whole"], r["signature-text"], r["interview-whole"], r["hook-kept"]],
  classes: (ctx) => [...CLASSES.map(([c]) => `answer ${c}`), ...(ctx.options.webhookRetryDelaysMs.length >= 2 ? [`answer ${RETRY_TIMEOUT}`, `answer ${RETRY_2XX}`] : []), "payload beyond ASCII", "a completion after every answer", "interview in the study's second language", "no reference id nor email", "reference id as long as the contract takes", "interview read back, no email", "interview read back, email beyond ASCII in both cases", ...(ctx.states.has("respondent-id") ? ["respondent-specific link"] : [])],
  async run(env) {
    const { ctx } = env;
    const delays = ctx.options.webhookRetryDelaysMs;
    const timeoutMs = ctx.options.webhookTimeoutMs ?? 10_000;
    // Two languages: one interview runs in the second, so a payload that takes the study's first language shows; the
    // second has a region in capitals (pt-BR), so one that folds the code's case shows too.
    // Spaces before it: the payload's study_name is the name as given, never trimmed.
    // And long: 190 characters with the run's id (the contract takes 200), so a payload that cuts the name shows.
    const base = textOfLength(190 - [...ctx.states.name("")].length, FILL, `  ${NON_ASCII} `);
    const study = await ctx.states.plantStudy({ name: base, weekly_limit: null, monthly_limit: null, supported_languages: ["en", "pt-BR"] }, env.project);
    // The name as planted (the run's id appended): the payload must carry it byte for byte.
    const name = ctx.states.name(base);
    const hook = await env.hook("answers");
    if (!hook) return;
    // The 2xx one opened through a respondent-specific link where the target plants one: its payload names the respondent.
    // Both cases, a + and a %XX escape in it: a payload that folds, decodes or reads + as a space shows.
    // As long as the contract takes (less a margin for counts in UTF-16 units): a payload that cuts it shows.
    const respondentOf = (cls: string) => (cls === "2xx" && ctx.states.has("respondent-id") ? textOfLength((propertySchema(ctx.contract, "SimInterviewInput", "respondent_id")?.maxLength ?? 255) - 5, FILL, `Resp_é+É%41_${k0}_`) : null);
    const k0 = Math.floor(Math.random() * 1e6);
    // The longest reference id the contract plants (SimInterviewInput's maxLength).
    const longest: number = propertySchema(ctx.contract, "SimInterviewInput", "reference_id")?.maxLength ?? 255;
    // Each class answers its first attempt so (then 200); the retry-timeout class answers 503, then no answer in time.
    const classes: Array<[string, number[]]> = [...CLASSES.map(([c, a]) => [c, [a]] as [string, number[]]), ...(delays.length >= 2 ? [[RETRY_TIMEOUT, [503, TIMEOUT]] as [string, number[]], [RETRY_2XX, [500, 202]] as [string, number[]]] : [])];
    /**
     * One round: an interview per class, each judged on what came. Returns the classes it could not judge (a late 200
     * this process sent or saw too late, or retried by a service slow enough just before to explain it): each gets
     * another interview, up to three rounds, so that a moment of load does not leave the class NOT TESTED.
     */
    const round = async (todo: Array<[string, number[]]>, turn: number): Promise<Array<[string, number[]]>> => {
      const unjudged: Array<[string, number[]]> = [];
      const planted = await Promise.all(todo.map(async ([cls, answers], k) => {
        const bare = cls === "3xx";
        // Both cases, in ASCII and beyond it: a payload that folds the reference id's case shows.
        const short = `RéF-Éa-😀-${cls.replace(/ /g, "_")}-${k}${turn ? `-${turn}` : ""}`;
        // The 2xx one's is as long as the contract takes: a payload that cuts it shows.
        const reference = bare ? null : cls === "2xx" ? `${short}-${"Zz9+é".repeat(longest)}`.slice(0, longest) : short;
        // An email in both cases, beyond ASCII and the BMP, an accent decomposed, with a + tag: a payload that folds its case,
        // narrows it to three-byte UTF-8, composes it or reads + as a space shows.
        // The 2xx one's is 254 characters (the longest address SMTP carries): a retrieval or payload that cuts it shows.
        const email = bare ? null : cls === "2xx" ? `Ñandu\u0301😀+tag.${k}.${"x".repeat(254 - `Ñandu\u0301😀+tag.${k}.@ExÄmple.com`.length)}@ExÄmple.com` : `Ñandu\u0301😀+tag.${k}@ExÄmple.com`;
        const respondent = respondentOf(cls);
        const language = cls === "4xx" ? "pt-BR" : "en";
        const i = await ctx.states.plantInterview({ study_id: study.id, hold: true, ...(reference === null ? {} : { reference_id: reference }), ...(email === null ? {} : { respondent_email: email }), language, ...(respondent ? { respondent_id: respondent } : {}) }, env.project);
        env.answers.set(i.id, answers);
        return { cls, answers, answer: answers[0], id: i.id, reference, email, respondent, language };
      }));
      await Promise.all(planted.map((p) => ctx.states.completeInterview(p.id, env.project)));
      const reads = new Map(await Promise.all(planted.map(async (p) => [p.id, (await untilCompleted(env.http, p.id, completionWaitMs(ctx.options))).reply] as const)));
      const of = (id: string): Delivery[] => env.receiver.deliveries.filter((d) => d.interviewId === id && d.path.startsWith(hook.path));
      // Attempts due: up to the first 2xx answer (200 past the class's answers), at most one more than the delays.
      const due = (answers: number[]) => Math.min(answers.findIndex(ok) < 0 ? answers.length + 1 : answers.findIndex(ok) + 1, delays.length + 1);
      // Every first attempt, then every retry due (a timeout is held past the receiver timeout), then a quiet while in
      // which an attempt too many would come.
      const firstWait = completionWaitMs(ctx.options);
      const retryWait = timeoutMs + 500 + sequenceWindow(delays[0] ?? 0)[1] + (delays.length >= 2 ? timeoutMs + 500 + sequenceWindow(delays[1])[1] : 0);
      // While the attempts and retries come, a light read of the service every 200 ms: how long it leaves one unanswered
      // is the evidence of its own stalls (a starved service starts a timeout's clock long before it connects, and
      // retries late), which the timing judgements below allow for (Http.slowness).
      const stopPulse = env.http.pulse(`/v1/interviews/${planted[0].id}`);
      try {
        await until(() => planted.every((p) => of(p.id).length >= 1), firstWait);
        // Each due attempt answered (a late 200 is answered well after it came; one held past the timeout the service
        // gave up on, never), then the window of a retry after it: an attempt too many comes after the answer it
        // followed, never before.
        const answered = (p: (typeof planted)[number]) => of(p.id).length >= due(p.answers) && of(p.id).slice(0, due(p.answers)).every((d, n) => d.answeredAt !== undefined || p.answers[n] === TIMEOUT);
        await until(() => planted.every(answered), retryWait);
        await new Promise((res) => setTimeout(res, sequenceWindow(delays[0] ?? 0)[1]));
      } finally {
        await stopPulse();
      }
      for (const p of planted) {
        const got = of(p.id);
        const label = `the delivery of interview ${p.id} (receiver answers ${p.answers.map(describeAnswer).join(", then ")})`;
        const read = reads.get(p.id)!;
        // The REST read, predicted from the planting alone (the payload is then judged against it).
        const restWant = { id: p.id, study_id: study.id, status: "completed", respondent_email: p.email, language: p.language, ...(p.reference === null ? {} : { reference_id: p.reference }) };
        const restDiffers = fieldsDiffer(read.body, restWant);
        if (env.expect(r["interview-whole"], read.status === 200 && !restDiffers, `GET /v1/interviews/${p.id} (planted with ${p.email === null ? "no email" : `email ${JSON.stringify(p.email)}`}, language ${p.language}${p.reference === null ? "" : `, reference id ${JSON.stringify(p.reference)}`}) reads ${read.status}: ${restDiffers || "not the interview planted"}`, read)) {
          env.reach(p.email === null ? "interview read back, no email" : "interview read back, email beyond ASCII in both cases", r["interview-whole"].cites);
        }
        if (got.length === 0) {
          env.expect(r["answer-retried"], false, `${label}: no attempt came within ${firstWait} ms of its completion`, read);
          continue;
        }
        // The attempt answered 2xx (the class's own answer, or the 200 after its failed ones): a retry of it, or a late
        // 200, is judged only where it can show the rule (judge/retried-2xx.ts).
        const k = due(p.answers) - 1;
        const okAttempt = got[k];
        const okAnswer = p.answers[k] ?? 200;
        const retriedOk = okAttempt !== undefined && ok(okAnswer) && got.length > due(p.answers);
        const said = okAnswer === LATE_2XX ? "the late 200" : `the ${describeAnswer(okAnswer)} to attempt ${k + 1}`;
        const { late, slowBefore, slowAfter, why } = okAttempt && ok(okAnswer) ? judgeRetried2xx(env.http, okAttempt, timeoutMs, retriedOk, p.answer === LATE_2XX) : { late: 0, slowBefore: 0, slowAfter: 0, why: undefined };
        if (why) {
          ctx.note(`cover receiver-answers: ${said} ${why}`);
          unjudged.push([p.cls, p.answers]);
          continue;
        }
        env.expect(r["answer-retried"], got.length === due(p.answers), `${label}: ${got.length} attempt(s) came; ${due(p.answers)} were due (${ok(p.answer) ? "a 2xx ends the delivery" : "each failed attempt is retried after its delay, until one is answered 200"}${p.answer === LATE_2XX || retriedOk ? `; ${said} was sent ${late} ms after the attempt's connection, inside the ${timeoutMs} ms receiver timeout, the service ${slowBefore} ms slow before it and ${slowAfter} ms after` : ""})`);
        // Each failed attempt's retry, after the delay of its turn.
        for (let n = 0; n + 1 < got.length && n < p.answers.length && !ok(p.answers[n]); n++) {
          const answer = p.answers[n];
          const [failed, retry] = [got[n], got[n + 1]];
          const { gap, lo, hi, allowing } = retryGap(env.http, failed, retry, answer === TIMEOUT, timeoutMs, delays[n]);
          env.expect(r["answer-retried"], gap >= lo && gap <= hi, `${label}: retry ${n + 1} came ${gap} ms after attempt ${n + 1} failed (${describeAnswer(answer)}); its delay is ${delays[n]} ms (${Math.round(lo)} to ${Math.round(hi)} accepted${allowing})`);
        }
        env.reach(`answer ${p.cls}`, r["answer-retried"].cites);
        for (const [k, d] of got.entries()) {
          judgeAttempt({ ...ctx, expect: env.expect }, hook.secret, d, `attempt ${k + 1} of ${label}`);
          let payload: any;
          try {
            payload = JSON.parse(d.raw.toString("utf8"));
          } catch {
            continue;
          }
          const rest = read.body ?? {};
          const want = {
            interview_id: p.id, session_id: p.id, study_id: study.id, experiment_id: study.id, study_name: name, experiment_name: name,
            status: "completed", reference_id: p.reference, respondent_email: p.email, started_at: rest.started_at, completed_at: rest.completed_at, language: rest.language,
            duration_secs: rest.duration_secs, quality_score: rest.quality_score, respondent_id: p.respondent,
          };
          const differs = fieldsDiffer(payload?.data, want);
          const whole = env.expect(r["payload-whole"], !differs && payload?.event === "interview.completed", `attempt ${k + 1} of ${label}: the payload is not the one predicted from the planted interview and its REST read: ${differs || `event ${JSON.stringify(payload?.event)}`}`, undefined, payload);
          if (whole && p.respondent) env.reach("respondent-specific link", r["payload-whole"].cites);
          if (whole && p.reference === null) env.reach("no reference id nor email", r["payload-whole"].cites);
          if (whole && p.reference !== null && p.reference.length === longest) env.reach("reference id as long as the contract takes", r["payload-whole"].cites);
          if (whole && p.language !== "en" && rest.language === p.language) env.reach("interview in the study's second language", r["payload-whole"].cites);
          // The class is reached when the body carried the text beyond ASCII (as UTF-8 or escaped: either is JSON).
          if (typeof payload?.data?.study_name === "string" && /[^\x00-\x7f]/.test(payload.data.study_name)) {
            env.expect(r["signature-text"], signed(hook.secret, d), `attempt ${k + 1} of ${label}: a body holding ${JSON.stringify(payload.data.study_name)} is not signed over its raw bytes (X-Webhook-Signature ${JSON.stringify(d.headers["x-webhook-signature"])})`, undefined, { body: d.raw.toString("utf8").slice(0, 400) });
            env.reach("payload beyond ASCII", r["signature-text"].cites);
          }
        }
      }
      return unjudged;
    };
    let todo = classes;
    for (let turn = 0; turn < 3 && todo.length; turn++) todo = await round(todo, turn);
    await stillSubscribed(env, hook, study.id);
  },
};

/**
 * After every class of answer (Gone, Unauthorized, a rate limit, retries exhausted): the webhook is still the one set
 * and the next completion is delivered to it. A sender that unsubscribes or disables a webhook on a receiver's answer
 * (as many do on a 410) stops sending what the seed says it sends each time an interview completes.
 */
async function stillSubscribed(env: CoverEnv, hook: Hook, study: string): Promise<void> {
  const { ctx } = env;
  const read = await env.req("/v1/webhooks");
  env.expect(r["hook-kept"], read.status === 200 && sameUrl(read.body?.url, hook.url) && sameEvents(read.body?.events, ["interview.completed"]), `after every class of receiver answer, GET /v1/webhooks answered ${read.status} ${JSON.stringify(read.body).slice(0, 300)}, not the webhook set (url ${hook.url}, events ["interview.completed"]): no answer of a receiver changes it`, read);
  const i = await ctx.states.plantInterview({ study_id: study, hold: true, reference_id: "after-every-answer" }, env.project);
  await ctx.states.completeInterview(i.id, env.project);
  const came = await until(() => env.receiver.deliveries.some((d) => d.interviewId === i.id && d.path.startsWith(hook.path)), completionWaitMs(ctx.options));
  env.expect(r["hook-kept"], came, `interview ${i.id}, completed after the receiver had answered every class (a 410, a 401, a 429 among them), was not delivered to the webhook within ${completionWaitMs(ctx.options)} ms: no answer of a receiver unsubscribes or disables it`);
  if (came) env.reach("a completion after every answer", r["hook-kept"].cites);
}
