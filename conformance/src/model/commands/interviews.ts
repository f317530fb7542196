/**
 * Model commands on interviews: started (held, or through the study's link), completed on demand (one, several
 * closely spaced, or with the receiver failing chosen attempts), completed on the service's own timer while read,
 * abandoned, read one by one (status, reference id, timestamps) and listed by study and status, also page by page
 * while the sequence changes them between pages.
 */
import { retryWindow, sleep } from "../../checks/webhooks.ts";
import { monthStart, weekStart } from "../../checks/windows.ts";
import type { Capability } from "../../states/capabilities.ts";
import { completionWaitMs, untilCompleted } from "../../judge/completion.ts";
import { refusal } from "../../states/types.ts";
import { r } from "../rules.ts";
import type { Model, World } from "../world.ts";
import { awaitDelivery, Command, completed, deliveriesOf, openInterviews } from "./base.ts";

/** Starts a held interview in the sequence's study (through the study's link when `viaLink`); false when the study is at its cap. */
async function start(m: Model, w: World, viaLink: boolean): Promise<boolean> {
  const reference = `model_${m.seq}_${m.interviews.size}${viaLink ? "_link" : ""}`;
  let link: string | undefined;
  if (viaLink) {
    const study = await w.http.req(`/v1/studies/${m.study!.id}`);
    const base = String(study.body?.interview_link ?? "");
    link = `${base}${base.includes("?") ? "&" : "?"}reference_id=${reference}`;
  }
  try {
    const planted = await w.ctx.states.plantInterview({ study_id: m.study!.id, hold: true, ...(link ? { interview_link: link } : { reference_id: reference }) });
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

export class StartInterview extends Command {
  readonly name = "startInterview";
  static override needs: Capability[] = ["plant-interview", "hold"];
  /** `link`: opened through the study's interview link with a reference_id query parameter (capability interview-link). */
  constructor(readonly viaLink = false) {
    super();
  }
  override check = (m: Readonly<Model>) => m.study !== null;
  protected async act(m: Model, w: World) {
    await start(m, w, this.viaLink);
  }
  override toString = () => `startInterview(${this.viaLink ? "through the study's link" : "held"})`;
}

const HOUR = 3_600_000;

/**
 * An interview planted held at a chosen instant: an hour before this week began, earlier this week (when the week is
 * old enough), or an hour before this month began. It counts in the windows it falls in (readStudy judges them).
 */
export class StartBackdated extends Command {
  readonly name = "startBackdated";
  static override needs: Capability[] = ["plant-interview", "hold", "created-at"];
  constructor(readonly when: "last week" | "this week" | "last month") {
    super();
  }
  private instant(now: number): number | null {
    const week = weekStart(now);
    if (this.when === "last week") return week - HOUR;
    if (this.when === "last month") return monthStart(now) - HOUR;
    return now - week > 3 * HOUR ? week + HOUR : null;
  }
  // Not within an hour of a window's edge, where the suite's and the server's clocks could disagree on the window.
  override check = (m: Readonly<Model>) => m.study !== null && this.instant(Date.now()) !== null && Date.now() - weekStart(Date.now()) > HOUR && Date.now() - monthStart(Date.now()) > HOUR;
  protected async act(m: Model, w: World) {
    const at = this.instant(Date.now())!;
    const reference = `model_${m.seq}_${m.interviews.size}_backdated`;
    try {
      const planted = await w.ctx.states.plantInterview({ study_id: m.study!.id, hold: true, reference_id: reference, created_at: new Date(at).toISOString() });
      m.interviews.set(planted.id, { status: planted.status === "processing" ? "processing" : "started", created: at, reference, createdAt: new Date(at).toISOString() });
    } catch (err) {
      const refused = refusal(err);
      if (!refused) throw err;
      w.judge.expect(r["sim-at-cap"], refused.reason === "not-accepting", `an interview backdated to ${new Date(at).toISOString()} was refused as ${refused.reason} (${refused.message}), not as a study not accepting responses`);
    }
  }
  override toString = () => `startBackdated(${this.when})`;
}

/** The seed's interview statuses in their order: a status seen later never ranks lower. */
const RANK: Record<string, number> = { started: 0, processing: 1, completed: 2 };

/**
 * The respondent finishes interview `id` now; the service processes it, and once it reads completed the model expects
 * its delivery where the webhook points at that moment. The statuses read on the way must go forward.
 */
async function completeNow(m: Model, w: World, id: string): Promise<void> {
  const done = await w.ctx.states.completeInterview(id);
  w.judge.expect(r["interview-status"], done.status === undefined || done.status !== "started", `completing interview ${id} answered status ${JSON.stringify(done.status)}`);
  const wait = completionWaitMs(w.ctx.options);
  const { reply, seen } = await untilCompleted(w.http, id, wait);
  const path = ["started", ...seen].filter((s, k, all) => s !== all[k - 1]);
  const forward = path.every((s, k) => k === 0 || RANK[s] > RANK[path[k - 1]]);
  w.judge.expect(r["interview-status"], reply.status === 200 && reply.body?.status === "completed" && forward, reply.status !== 200 ? `GET /v1/interviews/${id} after its respondent finished answered ${reply.status}` : !forward ? `after its respondent finished, interview ${id} went ${path.join(" -> ")}: not forward` : `interview ${id} still read ${JSON.stringify(reply.body?.status)} ${wait} ms after its respondent finished`, reply);
  completed(m, w, id);
}

export class CompleteInterview extends Command {
  readonly name = "completeInterview";
  static override needs: Capability[] = ["plant-interview", "hold", "complete"];
  constructor(readonly pick: number) {
    super();
  }
  // With no interview open, one is started (held) first: a completion is always reachable from any state.
  override check = (m: Readonly<Model>) => m.study !== null;
  protected async act(m: Model, w: World) {
    if (openInterviews(m).length === 0 && !(await start(m, w, false))) return; // the study is at its cap
    const open = openInterviews(m);
    const [id] = open[this.pick % open.length];
    await completeNow(m, w, id);
    if (m.expected.has(id)) await awaitDelivery(m, w, id, this.toString());
    // The completion moves the interview between the filtered lists at once.
    await judgeFiltered(m, w, "completed");
  }
  override toString = () => `completeInterview(#${this.pick})`;
}

/** Several interviews completed back to back, without waiting: each is delivered, to the webhook of its moment. */
export class CompleteMany extends Command {
  readonly name = "completeMany";
  static override needs: Capability[] = ["plant-interview", "hold", "complete"];
  constructor(readonly count: number) {
    super();
  }
  override check = (m: Readonly<Model>) => m.study !== null;
  protected async act(m: Model, w: World) {
    while (openInterviews(m).length < this.count && (await start(m, w, false)));
    const ids = openInterviews(m).slice(0, this.count).map(([id]) => id);
    await Promise.all(ids.map((id) => completeNow(m, w, id)));
    for (const id of ids) if (m.expected.has(id)) await awaitDelivery(m, w, id, this.toString());
    await judgeFiltered(m, w, "completed");
  }
  override toString = () => `completeMany(${this.count} at once)`;
}

/**
 * How far a retry may land from its delay inside a sequence: early as the retries check allows (max(100 ms, 10%)),
 * late by max(1 s, 50%). The retries check holds the schedule's precision on a quiet receiver; a sequence holds the
 * count, the order and the spacing while the service and the suite are busy with everything else the sequence did.
 */
const sequenceWindow = (delayMs: number): [number, number] => [retryWindow(delayMs)[0], delayMs + Math.max(1_000, delayMs * 0.5)];

/** An answer of `TIMEOUT` is no answer within the receiver timeout: the service gives up on the attempt and retries. */
export const TIMEOUT = 0;

/**
 * An interview completed while the receiver answers its attempts as the sequence chose (a 2xx ends the schedule; a
 * 4xx, a 5xx or no answer within the receiver timeout is retried after the configured delays, at most three times).
 * The whole schedule is watched within the command: the attempts, their spacing, their bytes and signature.
 */
export class CompleteWithAnswers extends Command {
  readonly name = "completeWithAnswers";
  static override needs: Capability[] = ["plant-interview", "hold", "complete"];
  constructor(readonly answers: number[]) {
    super();
  }
  override check = (m: Readonly<Model>) => m.study !== null && m.webhook?.subscribed === true;
  protected async act(m: Model, w: World) {
    if (openInterviews(m).length === 0 && !(await start(m, w, false))) return;
    const [id] = openInterviews(m)[0];
    m.answers.set(id, this.answers);
    await completeNow(m, w, id);
    const delays = w.ctx.options.webhookRetryDelaysMs;
    // Attempts until the first 2xx (the receiver answers 200 past the chosen answers), at most the first and every retry.
    const want = Math.min([...this.answers, 200].findIndex((s) => s !== TIMEOUT && s < 300) + 1, delays.length + 1);
    const timeoutMs = w.ctx.options.webhookTimeoutMs ?? 10_000;
    const schedule = delays.slice(0, want - 1).reduce((a, b) => a + sequenceWindow(b)[1], 0) + this.answers.filter((a) => a === TIMEOUT).length * timeoutMs;
    const deadline = Date.now() + (w.ctx.options.webhookWaitMs ?? 35_000) + schedule;
    while (deliveriesOf(m, w, id).length < want && Date.now() < deadline) await sleep(25);
    // A little longer, so an attempt too many has the time to arrive.
    await sleep(sequenceWindow(delays[Math.min(want - 1, delays.length - 1)] ?? 0)[1]);
    const got = deliveriesOf(m, w, id);
    const answered = got.map((_, k) => (this.answers[k] === TIMEOUT ? "no answer" : this.answers[k] ?? 200));
    // With an attempt left unanswered, the count says whether a timeout was taken for a failure: its own rule.
    const countRule = this.answers.slice(0, want - 1).includes(TIMEOUT) ? r["timeout-retried"] : r.retries;
    w.judge.expect(countRule, got.length === want, `interview ${id}: the receiver answered ${answered.join(", ") || "nothing"}; ${want} attempt(s) were due (retries after a non-2xx, at most ${delays.length}, none after a 2xx), ${got.length} came`, undefined, { answers: this.answers, delays });
    for (let k = 1; k < got.length && k <= delays.length; k++) {
      // From the answer that failed (the receiver reads the interview before it answers, which the delay does not
      // include), or from the receiver timeout when there was no answer in time.
      const failedAt = this.answers[k - 1] === TIMEOUT ? got[k - 1].at + timeoutMs : got[k - 1].answeredAt ?? got[k - 1].at;
      const gap = got[k].at - failedAt;
      const [early, late] = sequenceWindow(delays[k - 1]);
      w.judge.expect(this.answers[k - 1] === TIMEOUT ? r["timeout-retried"] : r.retries, gap >= early && gap <= late, `interview ${id}: retry ${k} came ${gap} ms after the attempt before it failed (${this.answers[k - 1] === TIMEOUT ? `no answer within the ${timeoutMs} ms receiver timeout` : "its answer"}); the configured delay is ${delays[k - 1]} ms (${Math.round(early)} to ${Math.round(late)} accepted)`);
      w.judge.expect(r.retries, got[k].raw.equals(got[0].raw) || JSON.parse(got[k].raw.toString()).data?.session_id === JSON.parse(got[0].raw.toString()).data?.session_id, `interview ${id}: retry ${k} is not the same event (session_id differs)`);
    }
    m.answers.delete(id);
  }
  override toString = () => `completeWithAnswers(${this.answers.map((a) => (a === TIMEOUT ? "no answer" : a)).join(", ")})`;
}

export class AbandonInterview extends Command {
  readonly name = "abandonInterview";
  static override needs: Capability[] = ["plant-interview", "hold", "abandon"];
  constructor(readonly pick: number) {
    super();
  }
  override check = (m: Readonly<Model>) => openInterviews(m).length > 0;
  protected async act(m: Model, w: World) {
    const open = openInterviews(m);
    const [id, interview] = open[this.pick % open.length];
    const left = await w.ctx.states.abandonInterview(id);
    interview.abandoned = true;
    m.forbidden.add(id);
    w.judge.expect(r["abandoned-silent"], left.status !== "completed", `an interview abandoned before completing reads ${JSON.stringify(left.status)}`);
  }
  override toString = () => `abandonInterview(#${this.pick})`;
}

export class CompleteAbandoned extends Command {
  readonly name = "completeAbandoned";
  static override needs: Capability[] = ["plant-interview", "hold", "abandon", "complete"];
  constructor(readonly pick: number) {
    super();
  }
  override check = (m: Readonly<Model>) => [...m.interviews.values()].some((i) => i.abandoned);
  protected async act(m: Model, w: World) {
    const gone = [...m.interviews].filter(([, i]) => i.abandoned);
    const [id] = gone[this.pick % gone.length];
    let reason = "completed";
    try {
      await w.ctx.states.completeInterview(id);
    } catch (err) {
      const refused = refusal(err);
      if (!refused) throw err;
      reason = refused.reason;
    }
    w.judge.expect(r["abandon-final"], reason === "final", `completing an abandoned interview was ${reason === "completed" ? "accepted" : `refused as ${reason}`}, not refused as final (409)`);
    const read = await w.http.req(`/v1/interviews/${id}`);
    w.judge.expect(r["abandoned-silent"], read.status === 200 && read.body?.status !== "completed", `an abandoned interview reads ${read.status} ${JSON.stringify(read.body?.status)} after a request to complete it`, read);
  }
  override toString = () => `completeAbandoned(#${this.pick})`;
}

/** An interview run on the service's own timer while the suite reads it: the statuses seen must follow the seed's path. */
export class CompleteWhileReading extends Command {
  readonly name = "completeWhileReading";
  static override needs: Capability[] = ["plant-interview"];
  override check = (m: Readonly<Model>) => m.study !== null;
  protected async act(m: Model, w: World) {
    const reference = `model_${m.seq}_timed`;
    let id: string;
    try {
      id = (await w.ctx.states.plantInterview({ study_id: m.study!.id, reference_id: reference })).id;
    } catch (err) {
      if (refusal(err)?.reason === "not-accepting") return;
      throw err;
    }
    m.interviews.set(id, { status: "started", created: Date.now(), reference });
    const seen: string[] = [];
    const deadline = Date.now() + (w.ctx.options.webhookWaitMs ?? 35_000);
    for (;;) {
      const read = await w.http.req(`/v1/interviews/${id}`);
      const status = read.body?.status;
      if (read.status === 200 && seen[seen.length - 1] !== status) seen.push(status);
      const back = seen.length > 1 && RANK[seen[seen.length - 1]] < RANK[seen[seen.length - 2]];
      w.judge.expect(r["interview-status"], read.status === 200 && status in RANK && !back, read.status !== 200 ? `GET /v1/interviews/${id} of a running interview answered ${read.status}` : back ? `the statuses went ${seen.join(" -> ")}: backwards` : `status ${JSON.stringify(status)} is not a seed status`, read);
      if (status === "completed" || read.status !== 200 || back || Date.now() > deadline) break;
      await sleep(15);
    }
    if (seen[seen.length - 1] !== "completed") throw new Error(`interview ${id} never completed on its own within the wait (${seen.join(" -> ")})`);
    // It completed during this command, under the webhook configured now.
    completed(m, w, id);
    if (m.expected.has(id)) await awaitDelivery(m, w, id, this.toString());
  }
}

export class ReadInterview extends Command {
  readonly name = "readInterview";
  constructor(readonly pick: number) {
    super();
  }
  override check = (m: Readonly<Model>) => m.interviews.size > 0;
  protected async act(m: Model, w: World) {
    const all = [...m.interviews];
    const [id, model] = all[this.pick % all.length];
    const reply = await w.http.req(`/v1/interviews/${id}`);
    w.judge.conforms(reply, `GET /v1/interviews/${id}`);
    const i = reply.body;
    // Completed is final; a held interview is not completed (started, or processing where an implementation says so).
    const ok = reply.status === 200 && (model.status === "completed" ? i?.status === "completed" : i?.status !== "completed");
    w.judge.expect(r["interview-status"], ok, `GET /v1/interviews/${id} answered ${reply.status} with status ${JSON.stringify(i?.status)}, but the sequence left it ${model.status}`, reply);
    if (reply.status !== 200) return;
    w.judge.expect(r["reference-id"], i.reference_id === model.reference, `interview ${id} was started with reference_id ${model.reference}${model.reference.endsWith("_link") ? " (the reference_id query parameter of the study's link it was opened through)" : ""}; it reads ${JSON.stringify(i.reference_id)}`, reply);
    judgeTimestamps(w, id, model, i, reply);
  }
  override toString = () => `readInterview(#${this.pick})`;
}

/** created_at never changes; completed_at is set once completed and never changes; started_at and completed_at are ordered. */
function judgeTimestamps(w: World, id: string, model: Model["interviews"] extends Map<string, infer I> ? I : never, i: any, reply: any): void {
  const t = (x: unknown) => (typeof x === "string" ? Date.parse(x) : NaN);
  model.createdAt ??= i.created_at;
  w.judge.expect(r.timestamps, i.created_at === model.createdAt, `interview ${id}'s created_at was ${model.createdAt} and now reads ${i.created_at}: a creation time never changes`, reply);
  if (i.status === "completed" && model.status === "completed") {
    model.completedAt ??= i.completed_at;
    const wrong = typeof i.completed_at !== "string" ? `completed_at is ${JSON.stringify(i.completed_at)} on a completed interview`
      : i.completed_at !== model.completedAt ? `completed_at was ${model.completedAt} and now reads ${i.completed_at}`
      : !(t(i.completed_at) >= t(i.started_at)) ? `completed_at ${i.completed_at} is before started_at ${i.started_at}`
      : "";
    w.judge.expect(r.timestamps, !wrong, `interview ${id}: ${wrong}`, reply);
  }
}

export class ListInterviews extends Command {
  readonly name = "listInterviews";
  constructor(readonly status: "completed" | "started" | null) {
    super();
  }
  override check = (m: Readonly<Model>) => m.study !== null;
  protected async act(m: Model, w: World) {
    await judgeFiltered(m, w, this.status);
  }
  override toString = () => `listInterviews(${this.status ?? "any status"})`;
}

/** The study's interviews filtered by the reference id one of them was started with: exactly those started with it. */
export class ListByReference extends Command {
  readonly name = "listByReference";
  constructor(readonly pick: number) {
    super();
  }
  override check = (m: Readonly<Model>) => m.study !== null && m.interviews.size > 0;
  protected async act(m: Model, w: World) {
    const all = [...m.interviews];
    const reference = all[this.pick % all.length][1].reference;
    const query = `/v1/interviews?study_id=${m.study!.id}&reference_id=${encodeURIComponent(reference)}`;
    const walk = await w.http.walk(query, 100);
    for (const page of walk.pages) w.judge.conforms(page, `GET ${query}`);
    const got = walk.items.map((i: any) => i.id).filter((id: string) => !m.study!.base.before.has(id)).sort();
    const want = all.filter(([, i]) => i.reference === reference).map(([id]) => id).sort();
    w.judge.expect(r["interview-filter"], JSON.stringify(got) === JSON.stringify(want), `${query} lists [${got.join(", ")}], not the interviews started with reference_id ${reference} [${want.join(", ")}]`, walk.pages[0], { want, got });
  }
  override toString = () => `listByReference(#${this.pick})`;
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

/**
 * The study's interviews walked a page at a time while the sequence changes them between pages (one started, one
 * completed): no interview is listed twice, and every one that was in the list throughout (same status) is listed.
 */
export class WalkInterviews extends Command {
  readonly name = "walkInterviews";
  static override needs: Capability[] = ["plant-interview", "hold", "complete"];
  constructor(readonly status: "started" | null, readonly limit: number) {
    super();
  }
  override check = (m: Readonly<Model>) => m.study !== null && m.interviews.size > 0;
  protected async act(m: Model, w: World) {
    const query = `/v1/interviews?study_id=${m.study!.id}${this.status ? `&status=${this.status}` : ""}&limit=${this.limit}`;
    const inList = (i: { status: string }) => this.status === null || i.status === this.status;
    const before = new Set([...m.interviews].filter(([, i]) => inList(i)).map(([id]) => id));
    const seen: string[] = [];
    let after: string | undefined;
    for (let page = 0; page < 200; page++) {
      const reply = await w.http.req(`${query}${after ? `&starting_after=${after}` : ""}`);
      w.judge.conforms(reply, `GET ${query}`);
      if (reply.status !== 200 || !Array.isArray(reply.body?.data)) {
        w.judge.expect(r["list-walk"], false, `page ${page + 1} of ${query} answered ${reply.status}`, reply);
        return;
      }
      seen.push(...reply.body.data.map((x: any) => x.id));
      // Between pages: a new interview, and a completion (which moves one out of status=started).
      if (page === 0) await start(m, w, false);
      if (page === 1) {
        // Not one on this page: the next page's cursor must stay in the list (a cursor that left a filtered list is a
        // question the seed leaves open).
        const onPage = new Set(reply.body.data.map((x: any) => x.id));
        const candidates = openInterviews(m).filter(([id]) => !onPage.has(id));
        const open = candidates.find(([id]) => !before.has(id)) ?? candidates[0];
        if (open) {
          await completeNow(m, w, open[0]);
          if (m.expected.has(open[0])) await awaitDelivery(m, w, open[0], this.toString());
        }
      }
      if (!reply.body.has_more || reply.body.data.length === 0) break;
      after = reply.body.data[reply.body.data.length - 1].id;
    }
    const mine = seen.filter((id) => m.interviews.has(id));
    const twice = mine.find((id, k) => mine.indexOf(id) !== k);
    w.judge.expect(r["list-walk"], !twice, `${query} walked while interviews changed between pages listed ${twice} twice`, undefined, { seen: mine });
    const throughout = [...before].filter((id) => inList(m.interviews.get(id)!));
    const missed = throughout.filter((id) => !mine.includes(id));
    w.judge.expect(r["list-walk"], missed.length === 0, `${query} walked while interviews changed between pages skipped ${missed.join(", ")}, which stayed in the list throughout`, undefined, { seen: mine, throughout });
  }
  override toString = () => `walkInterviews(${this.status ?? "any status"}, limit ${this.limit})`;
}

/** Runs `fn` over `items`, `width` at a time. */
async function inBatches<T>(items: T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  for (let k = 0; k < items.length; k += width) await Promise.all(items.slice(k, k + width).map(fn));
}

/**
 * Counts past the first page: a new uncapped study takes more interviews than a page holds (101 to 105), all but
 * three are completed, and the lists (walked at the maximum page size), interview_count and used are judged on
 * them. Drawn at most once per run.
 */
export class ManyInterviews extends Command {
  readonly name = "manyInterviews";
  static override needs: Capability[] = ["plant-study", "plant-interview", "hold", "complete"];
  constructor(readonly count: number) {
    super();
  }
  protected async act(m: Model, w: World) {
    if (w.once.has(this.name)) return;
    w.once.add(this.name);
    const { id } = await w.ctx.states.plantStudy({ name: `Model study ${m.seq} (many)`, weekly_limit: null, monthly_limit: null });
    m.study = { id, weekly: null, monthly: null, base: { interviewCount: 0, weeklyUsed: 0, monthlyUsed: 0, before: new Set() } };
    m.interviews = new Map();
    for (let k = 0; k < this.count; k++) await start(m, w, false);
    const ids = openInterviews(m).map(([x]) => x).slice(3);
    await inBatches(ids, 25, (x) => completeNow(m, w, x));
    await Promise.all(ids.filter((x) => m.expected.has(x)).map((x) => awaitDelivery(m, w, x, this.toString())));
    await judgeFiltered(m, w, "completed");
    await judgeFiltered(m, w, "started");
    const read = await w.http.req(`/v1/studies/${id}`);
    w.judge.expect(r["interview-count"], read.body?.interview_count === ids.length, `interview_count is ${read.body?.interview_count} after ${ids.length} of the study's ${this.count} interviews completed`, read);
    for (const window of ["weekly", "monthly"] as const) {
      const used = read.body?.limits?.[window]?.used;
      w.judge.expect(r["used-bounds"], typeof used === "number" && used >= ids.length && used <= this.count, `limits.${window}.used is ${used} with ${ids.length} completed of ${this.count} interviews`, read);
    }
  }
  override toString = () => `manyInterviews(${this.count}, at most once a run)`;
}
