/**
 * What the proxy remembers across exchanges, and what it judges from it: ids that answered 200 and later 404, fields
 * that never change and changed, keys that share a project and then disagree, walks that repeat, skip or break their
 * order, counts a whole walk contradicts, cursors a list showed and then refused, interviews read completed against
 * their study's questions, launches decided eligible while their study accepted no responses, and the client's walks
 * past has_more and retries before Retry-After. Every map is capped; past a cap the oldest entries go,
 * and the proxy says so once per map.
 */
import { capacityCheck } from "../checks/capacity.ts";
import { chatsCheck } from "../checks/chats.ts";
import { r as webhookRules } from "../checks/webhooks.ts";
import { same, sameEvents, sameUrl } from "../judge/same.ts";
import { payloadFieldsOf } from "../judge/attempts.ts";
import { orderProblem, paginationRules } from "../judge/pages.ts";
import { monthStart, weekStart, withinLimits } from "../judge/windows.ts";
import { r as coverRules } from "../cover/rules.ts";
import type { Contract, Operation } from "../contract.ts";
import { parseRetryAfter, UUID } from "../http.ts";
import { ELIGIBLE_MODES, triggerRules, valueAt } from "../judge/participant.ts";
import { questionAnswersAgree } from "../judge/shown.ts";
import { decodedSegment, jsonOf, type Exchange } from "./exchange.ts";
import { LIST_ORDER, SHOWN_RULES, type Verdicts } from "./judge.ts";
import { acrossRules, clientRules } from "./rules.ts";

/** A Map that keeps at most `cap` entries, dropping the oldest (and telling `forgot` once). */
export class Capped<K, V> extends Map<K, V> {
  private told = false;
  constructor(private readonly cap: number, private readonly what: string, private readonly forgot: (what: string) => void) {
    super();
  }
  override set(key: K, value: V): this {
    if (super.has(key)) super.delete(key);
    super.set(key, value);
    if (this.size > this.cap) {
      super.delete(super.keys().next().value as K);
      if (!this.told) {
        this.told = true;
        this.forgot(`${this.what}: over ${this.cap} remembered, the oldest are forgotten from now on (verdicts that need them are no longer made)`);
      }
    }
    return this;
  }
}

/** Fields that never change, per object kind (completed_at: once set). */
const FIXED: Record<string, string[]> = {
  study: ["id", "object", "created_at"],
  interview: ["id", "object", "created_at", "study_id"],
  release: ["id", "object", "created_at"],
  chat: ["id", "object", "created_at"],
  message: ["id", "object", "created_at", "chat_id", "role"],
};
/** Lists nothing leaves between two pages: the interviews unless filtered by status, releases and chats unfiltered. */
const KEPT_LISTS = (operationId: string, filters: string) =>
  (operationId === "listInterviews" && !/(^|&)status=/.test(filters)) || ((operationId === "listReleases" || operationId === "listChats") && filters === "");
/** What a completed interview's reads keep besides: the fields its delivery carries too, and its headline and summary. */
const COMPLETED_FIXED = ["reference_id", "respondent_email", "language", "quality_score", "duration_secs", "started_at", "headline", "summary"];
const RETRIEVALS = new Set(["getStudy", "getInterview", "getRelease", "getChat", "listChatMessages"]);
/** Lists whose order the seed states and whose members are never removed: a walk's skips show there. */
const UNFILTERED_ORDERED = new Set(["listChats", "listReleases", "listChatMessages"]);

interface Seen {
  fields: Record<string, unknown>;
  ex: Exchange;
}

interface Walk {
  ids: Set<string>;
  last: any;
  hasMore: boolean;
  fromStart: boolean;
  first: Exchange;
  lastEx: Exchange;
  maxCreated: string;
  /** Items listed with status completed. */
  completed: number;
  /** A study's interviews: each one's created_at, started_at and completed_at (ms; NaN when absent), up to INSTANTS. */
  instants: number[][];
}

/** How many interviews' instants a walk keeps for the usage judgement; past it, that walk judges no `used`. */
const INSTANTS = 5_000;
/** What the service's clock may differ from the proxy's: an instant this close to a window's edge is in doubt. */
const SKEW_MS = 60_000;
const DAY_MS = 86_400_000;

/** The study an object names: the seed's attribution field `experimentId` (or its snake_case form), as a UUID. */
const studyOf = (o: any): string | undefined => [o?.experimentId, o?.experiment_id].find((v) => typeof v === "string" && UUID.test(v))?.toLowerCase();
/** The strings a request body carries at its top or one object down (`launch.token`): where a launch sends its token. */
const stringsOf = (o: any): string[] =>
  o === null || typeof o !== "object" ? [] : Object.values(o).flatMap((v) => (typeof v === "string" ? [v] : v !== null && typeof v === "object" && !Array.isArray(v) ? Object.values(v).filter((x): x is string => typeof x === "string") : []));

/** A list request's filters (all but limit and starting_after, sorted) and the key of its walks. */
const walkOf = (key: string, ex: Exchange): { filters: string; wk: string } => {
  const filters = [...ex.query].filter(([k]) => k !== "limit" && k !== "starting_after").sort().map(([k, v]) => `${k}=${v}`).join("&");
  return { filters, wk: `${key}\n${ex.path}?${filters}` };
};

/** The id a path names after its resource (`/v1/chats/{id}/messages` gives the chat's), decoded. */
const pathId = (ex: Exchange): string => decodedSegment(ex.path.split("/")[3] ?? "");

/** Whether a URL's query holds a `+`: a space to a form decoder and a plus to others, so which value was asked for is in doubt. */
const plusInQuery = (url: string): boolean => url.slice(url.indexOf("?")).includes("+");

/** Two keys as one map key, in either order. */
const pairOf = (a: string, b: string): string => [a, b].sort().join("\n");

/** When an exchange was answered (its request came at `at`). */
const answeredAt = (ex: Exchange) => ex.at + ex.durationMs;

/** The UTC week (Monday on) an exchange was answered in, unless the service's clock may have placed it in another. */
const weekOf = (ex: Exchange): [number, number] | undefined => {
  const from = weekStart(ex.at - SKEW_MS);
  return from === weekStart(answeredAt(ex) + SKEW_MS) ? [from, from + 7 * DAY_MS] : undefined;
};

export interface Caps {
  resources: number;
  walks: number;
  members: number;
}

export const DEFAULT_CAPS: Caps = { resources: 200_000, walks: 2_000, members: 20_000 };

export class Memory {
  private readonly resources: Capped<string, Seen>;
  /** id -> the keys it answered 200 to. */
  private readonly readers: Capped<string, Set<string>>;
  /** "a\nb" (sorted) -> the exchange that showed two keys read one resource, and its id: they are one project's. */
  private readonly together: Capped<string, { ex: Exchange; id: string }>;
  /** "a\nb" (sorted) -> what showed two keys are of two projects: an item one key's whole walk listed, missing from the other's later whole walk of that list. */
  private readonly apart: Capped<string, { id: string; listed: Exchange; lacking: Exchange }>;
  /** list operation -> key -> its last whole walk of that list unfiltered (the lists that never lose items). */
  private readonly lastWholeWalks: Capped<string, Map<string, { ids: Set<string>; last: Exchange }>>;
  private readonly walks: Capped<string, Walk>;
  /** key + list -> id -> its sort value, for the ordered lists. */
  private readonly members: Capped<string, Map<string, string>>;
  private readonly counts: Capped<string, { count: number; updatedAt: string; streaming: boolean; ex: Exchange }>;
  /** key + study id -> its interview_count as last read. */
  private readonly studyCounts: Capped<string, { count: number; ex: Exchange }>;
  /** key + study id -> the completed interviews of its last whole walk of `/v1/interviews?study_id=`. */
  private readonly studyWalks: Capped<string, { completed: number; first: Exchange; last: Exchange; instants?: number[][] }>;
  /** key + study id -> its limits' used as last read (by its retrieval or a list). */
  private readonly studyUsed: Capped<string, { weekly: unknown; monthly: unknown; ex: Exchange }>;
  private readonly retryAfter: Capped<string, { until: number; ex: Exchange }>;
  private readonly faulted = new Set<string>();
  /** Pairs of keys judged to read one resource across two projects (said once a pair). */
  private readonly judgedPairs = new Set<string>();
  /** key -> the chat ids its releases name (never a visible chat). */
  private readonly releaseChats: Capped<string, Map<string, Exchange>>;
  /** key + list operation -> ids retrieved one by one, with the exchange. */
  private readonly retrieved: Capped<string, Map<string, Exchange>>;
  /** interview id -> the payload of its first relayed delivery, and that delivery. */
  private readonly deliveries: Capped<string, { data: any; ex: Exchange }>;
  /** interview id -> its last read (any status), its last read answering status completed, and when it first read completed. */
  private readonly interviewReads: Capped<string, { last: { body: any; ex: Exchange }; completed?: { body: any; ex: Exchange }; completedSeq?: number }>;
  /** key -> its webhook as the last change through the proxy left it (none, or the url and events answered), and the secrets issued to it. */
  private readonly hooks: Capped<string, { state?: "none" | "set"; url?: unknown; events?: unknown; ex?: Exchange; secrets: Map<string, Exchange> }>;
  /** key + chat id -> the latest instant a message of it was recorded or finished, in the pages read, and the page. */
  private readonly latestMessages: Capped<string, { ms: number; ex: Exchange }>;
  /** study id -> its last read: its status and limits, whether it then accepted no responses, and the read. */
  private readonly studyStates: Capped<string, { state: string; closed: boolean; ex: Exchange }>;
  /** A launch token a trigger config carried -> the study its rule names. */
  private readonly launchTokens: Capped<string, string>;
  /** study id -> launches of it decided eligible since its last read. */
  private readonly eligibleLaunches: Capped<string, Exchange[]>;
  /** key + chat id -> message id -> the page that refused it as its cursor (and the page that listed it before), until a later page lists it again or a whole walk lacks it. */
  private readonly refusedCursors: Capped<string, Map<string, { refused: Exchange; listed: Exchange }>>;
  /** key + study id -> its questions as read, and the service's clock (Date) at the first read that showed them. */
  private readonly studyQuestions: Capped<string, { questions: unknown[]; since: number }>;

  constructor(private readonly caps: Caps, forgot: (what: string) => void, private readonly contract: Contract) {
    this.resources = new Capped(caps.resources, "resources read", forgot);
    this.readers = new Capped(caps.resources, "ids and the keys that read them", forgot);
    this.together = new Capped(10_000, "pairs of keys of one project", forgot);
    this.apart = new Capped(10_000, "pairs of keys of two projects", forgot);
    this.lastWholeWalks = new Capped(10, "keys' whole walks", forgot);
    this.walks = new Capped(caps.walks, "walks in progress", forgot);
    this.members = new Capped(1_000, "ordered lists", forgot);
    this.counts = new Capped(caps.walks, "chats' message counts", forgot);
    this.studyCounts = new Capped(caps.walks, "studies' interview counts", forgot);
    this.studyWalks = new Capped(caps.walks, "studies' walks of their interviews", forgot);
    this.studyUsed = new Capped(caps.walks, "studies' usage as read", forgot);
    this.retryAfter = new Capped(10_000, "answers with Retry-After", forgot);
    this.releaseChats = new Capped(1_000, "keys' release chats", forgot);
    this.retrieved = new Capped(3_000, "keys' retrieved ids", forgot);
    this.deliveries = new Capped(caps.walks, "relayed deliveries", forgot);
    this.interviewReads = new Capped(caps.walks, "interviews read", forgot);
    this.latestMessages = new Capped(caps.walks, "chats' latest messages", forgot);
    this.hooks = new Capped(10_000, "keys' webhooks", forgot);
    this.studyStates = new Capped(caps.walks, "studies' states as read", forgot);
    this.launchTokens = new Capped(caps.members, "launch tokens of trigger configs", forgot);
    this.eligibleLaunches = new Capped(caps.walks, "eligible launches awaiting their study's next read", forgot);
    this.studyQuestions = new Capped(caps.walks, "studies' questions", forgot);
    this.refusedCursors = new Capped(caps.walks, "message cursors refused", forgot);
  }

  /**
   * The participant endpoints (the public key travels as the implementation chooses, so no key ties them to a project):
   * which study each trigger rule's launch token names, and which study each launch decided eligible is of (the
   * decision's `experimentId`, the seed's attribution field, else the rule whose token the request sent).
   */
  private participant(op: Operation, ex: Exchange, body: any): void {
    if (op.operationId === "getParticipantConfig") {
      // Its rules and their token as the suite's participant check reads them (judge/participant.ts).
      const found = triggerRules({ contract: this.contract }, body);
      for (const rule of found?.token ? found.rules : []) {
        const [study, token] = [studyOf(rule), valueAt(rule, found!.token!)];
        if (study && typeof token === "string") this.launchTokens.set(token, study);
      }
      return;
    }
    if (op.operationId !== "createParticipantLaunch" || !ELIGIBLE_MODES.includes(body?.mode)) return;
    const sent = ex.requestBody ? jsonOf(ex.requestBody) : undefined;
    const study = studyOf(body) ?? stringsOf(sent).map((t) => this.launchTokens.get(t)).find(Boolean);
    if (!study) return;
    const launches = this.eligibleLaunches.get(study) ?? [];
    if (launches.length < 100) launches.push(ex);
    this.eligibleLaunches.set(study, launches);
  }

  /**
   * Study: accepting_responses, "true when its status is active and it is within all usage limits"; a launch is what
   * accepts a response. Two reads of a study in a row that say it accepts none, with the same status and limits and in
   * the same week and month, show it accepted none between them (its used counts only grow within a window): a launch
   * of it decided eligible after the first was answered and before the second was sent is a launch it declines.
   */
  private studyState(st: any, ex: Exchange, out: Verdicts): void {
    const now = { state: JSON.stringify([st.status, st.limits]), closed: st.accepting_responses === false && !(st.status === "active" && withinLimits(st)), ex };
    const before = this.studyStates.get(st.id);
    const launches = this.eligibleLaunches.get(st.id);
    if (launches) {
      const sameWindows = before !== undefined && weekOf(before.ex)?.[0] === weekOf(ex)?.[0] && weekOf(ex) !== undefined && monthStart(before.ex.at - SKEW_MS) === monthStart(answeredAt(ex) + SKEW_MS);
      if (before && before.closed && now.closed && before.state === now.state && sameWindows) {
        for (const launch of launches.filter((l) => answeredAt(before.ex) < l.at && answeredAt(l) < ex.at)) {
          const mode = (jsonOf(launch.responseBody) as any)?.mode;
          out.verdict("implementation", coverRules["launch-declined"], false, `${launch.method} ${launch.url} decided a launch of study ${st.id} ${JSON.stringify(mode)}, but the study read status ${JSON.stringify(st.status)}, limits ${JSON.stringify(st.limits)} and accepting_responses false both before it (${before.ex.method} ${before.ex.url}) and after it (${ex.method} ${ex.url}): a study that accepts no responses declines a launch (not_eligible)`, launch, [before.ex, ex]);
        }
      }
      // A launch answered before this read was between this read and the last one, or before both: judged, or never.
      const later = launches.filter((l) => answeredAt(l) >= ex.at);
      if (later.length) this.eligibleLaunches.set(st.id, later);
      else this.eligibleLaunches.delete(st.id);
    }
    this.studyStates.set(st.id, now);
  }

  /**
   * The webhook through one key, one request after another (Endpoints: PUT, GET, DELETE /v1/webhooks; Authentication
   * 5). A secret issued (201) is never one issued to the key before. Within 10 s of a change through the proxy (sent
   * after it was answered, so no one else is likely to have changed it between): after a DELETE, GET answers 404 and
   * PUT creates (201); after a PUT, GET shows the url and events it answered, and a PUT updates (200).
   */
  private webhook(key: string, ex: Exchange, body: any, out: Verdicts): void {
    const h = this.hooks.get(key) ?? { secrets: new Map<string, Exchange>() };
    const recent = h.state !== undefined && h.ex !== undefined && answeredAt(h.ex) < ex.at && ex.at - answeredAt(h.ex) <= 10_000;
    const since = h.ex ? `${h.ex.method} ${h.ex.url} answered ${h.ex.status} ${Math.round(ex.at - answeredAt(h.ex))} ms before` : "";
    if (ex.method === "PUT" && ex.status === 201 && typeof body?.signing_secret === "string") {
      const before = h.secrets.get(body.signing_secret);
      out.verdict("implementation", webhookRules.recreate, !before, `${ex.method} ${ex.url} answered 201 with a signing_secret issued to this key before (${before?.method} ${before?.url}): a re-created webhook gets a new secret`, ex, before ? [before] : []);
      if (h.secrets.size < 1_000) h.secrets.set(body.signing_secret, ex);
    }
    if (ex.method === "PUT" && recent && (ex.status === 200 || ex.status === 201)) {
      const want = h.state === "none" ? 201 : 200;
      out.verdict("implementation", h.state === "none" ? webhookRules.recreate : webhookRules.update, ex.status === want, `${ex.method} ${ex.url} answered ${ex.status}, but ${since} (${h.state === "none" ? "no webhook was left: a PUT creates one, 201 with a new secret" : "the webhook exists: a PUT updates it, 200"})`, ex, [h.ex!]);
    }
    if (ex.method === "GET" && recent && (ex.status === 200 || ex.status === 404)) {
      if (h.state === "none") out.verdict("implementation", webhookRules["delete-204"], ex.status === 404, `${ex.method} ${ex.url} answered ${ex.status}, but ${since}: no webhook is configured`, ex, [h.ex!]);
      else {
        const shows = ex.status === 200 && sameUrl(body?.url, h.url) && sameEvents(body?.events, h.events);
        out.verdict("implementation", webhookRules.update, shows, `${ex.method} ${ex.url} answered ${ex.status} ${ex.status === 200 ? `with url ${JSON.stringify(body?.url)} and events ${JSON.stringify(body?.events)}` : ""}, but ${since} with url ${JSON.stringify(h.url)} and events ${JSON.stringify(h.events)}`, ex, [h.ex!]);
      }
    }
    if (ex.method === "DELETE" && ex.status === 204) Object.assign(h, { state: "none", url: undefined, events: undefined, ex });
    if (ex.method === "PUT" && (ex.status === 200 || ex.status === 201)) {
      // What the answer says was set; what was sent, where it does not say.
      const sent = ex.requestBody ? (jsonOf(ex.requestBody) as any) : undefined;
      Object.assign(h, { state: "set", url: body?.url ?? sent?.url, events: body?.events ?? sent?.events, ex });
    }
    this.hooks.set(key, h);
  }

  /**
   * A relayed delivery: its payload against the interview's reads (Events: body; "fetch the transcript with GET
   * /v1/interviews/:id"): a read of it sent after the delivery arrived reads completed, and every read that reads it
   * completed agrees with the payload.
   */
  delivered(payload: any, ex: Exchange, out: Verdicts): void {
    const id = payload?.data?.interview_id;
    if (typeof id !== "string" || this.deliveries.has(id)) return;
    this.deliveries.set(id, { data: payload.data, ex });
    const reads = this.interviewReads.get(id);
    // A read judged before its delivery (a receiver that reads the interview before it answers), sent after it arrived.
    if (reads && reads.last.ex.at > ex.at) this.completedOnceDelivered(reads.last.body, reads.last.ex, ex, out);
    if (reads?.completed) this.payloadAgrees(payload.data, ex, reads.completed.body, reads.completed.ex, out);
  }

  private completedOnceDelivered(body: any, read: Exchange, delivery: Exchange, out: Verdicts): void {
    out.verdict("implementation", SHOWN_RULES.payloadMatches, body.status === "completed", `${read.method} ${read.url} reads status ${JSON.stringify(body.status)}, sent after the interview's interview.completed delivery arrived (the webhook is sent after processing finishes)`, read, [delivery]);
  }

  /** The payload's fields against a completed read of its interview (the fields neither can change once completed). */
  private payloadAgrees(data: any, delivery: Exchange, rest: any, read: Exchange, out: Verdicts): void {
    const pairs = payloadFieldsOf(rest);
    // No reference id: the resource may read it "" where the payload reads null (the seed types them string, and string or null).
    const differ = pairs.filter(([f, want]) => !(f === "reference_id" && want === "" && data?.[f] === null) && !same(data?.[f], want, f));
    out.verdict("implementation", SHOWN_RULES.payloadMatches, differ.length === 0, `the delivery of interview ${rest.id} disagrees with ${read.method} ${read.url}: ${differ.map(([f, want]) => `data.${f} is ${JSON.stringify(data?.[f])}, the resource reads ${JSON.stringify(want)}`).join("; ")}`, read, [delivery]);
  }

  /** An interview read: completed once its delivery arrived, and then as its payload says. */
  private interviewRead(key: string, body: any, ex: Exchange, out: Verdicts): void {
    if (typeof body?.id !== "string") return;
    this.listedAfterDelivery(body, ex, out);
    const reads = this.interviewReads.get(body.id);
    const completed = body.status === "completed" ? { body, ex } : reads?.completed;
    this.interviewReads.set(body.id, { last: { body, ex }, completed, completedSeq: reads?.completedSeq ?? (completed ? ex.seq : undefined) });
    this.questionsAnswered(key, body, ex, out);
  }

  /** An interview read or listed after its delivery arrived: completed, and as its payload says. */
  private listedAfterDelivery(item: any, ex: Exchange, out: Verdicts): void {
    const d = typeof item?.id === "string" ? this.deliveries.get(item.id) : undefined;
    if (!d || d.ex.at >= ex.at) return;
    this.completedOnceDelivered(item, ex, d.ex, out);
    if (item.status === "completed") this.payloadAgrees(d.data, d.ex, item, ex, out);
  }

  /** The service's clock when it answered (its Date header), or NaN. */
  private static dateOf(ex: Exchange): number {
    return Date.parse(ex.responseHeaders.get("date") ?? "");
  }

  /** A study's questions as read; their `since` stays while every read shows the same. */
  private studyRead(key: string, st: any, ex: Exchange): void {
    if (!Array.isArray(st?.questions)) return;
    const k = `${key}\n${st.id}`;
    const before = this.studyQuestions.get(k);
    this.studyQuestions.set(k, { questions: st.questions, since: before && same(before.questions, st.questions) ? before.since : Memory.dateOf(ex) });
  }

  /**
   * Interview: question_answers, "one per interview question": an interview of a study read with the same questions
   * since before it started (by the service's own clock, its Date header, a second's rounding aside) answers those
   * questions, each with its text. One that started earlier may have been asked questions since edited: not judged.
   */
  private questionsAnswered(key: string, i: any, ex: Exchange, out: Verdicts): void {
    if (i?.status !== "completed" || !Array.isArray(i.question_answers) || typeof i.study_id !== "string") return;
    const q = this.studyQuestions.get(`${key}\n${i.study_id}`);
    const started = Date.parse(i.started_at);
    if (!q || !(started >= q.since + 1_000)) return;
    out.verdict("implementation", SHOWN_RULES.questionAnswers, questionAnswersAgree(i.question_answers, q.questions as Array<{ text?: unknown }>), `${ex.method} ${ex.url}: interview ${i.id}'s question_answers ${JSON.stringify(i.question_answers.map((a: any) => [a?.question_index, a?.question_text]))} are not one per question of its study ${i.study_id}, whose questions read ${JSON.stringify((q.questions as any[]).map((x, k) => [k, x?.text]))} since before it started (${new Date(q.since).toISOString()}, started_at ${i.started_at})`, ex);
  }

  /**
   * Endpoints: starting_after, "the id of the last item of the previous page"; Errors 5. An id this key saw in a list
   * that never loses items, given back to that list as its cursor, is refused neither 400 nor 404 (a chat's 404 on its
   * messages is the chat's, judged apart). A message may leave its chat's list (a branch hidden by an edit), and then
   * the seed's 400 is owed: a message refused is judged only once a later page lists it again, so that it was visible
   * before the refusal and after it.
   */
  private cursorTaken(key: string, op: Operation, ex: Exchange, out: Verdicts): void {
    const cursor = ex.query.getAll("starting_after");
    if (cursor.length !== 1 || ex.query.getAll("limit").some((l) => !/^[0-9]+$/.test(l) || Number(l) < 1 || Number(l) > 100)) return;
    const before = this.resources.get(`${key}\n${cursor[0]}`);
    const seen = before?.fields;
    const filters = [...ex.query.keys()].filter((k) => k !== "limit" && k !== "starting_after");
    // Only a list this key was served with these filters (an implementation may refuse the interviews without study_id,
    // as the seed allows: then its 400 is about the list, not the cursor).
    if (!this.walks.has(walkOf(key, ex).wk)) return;
    let kept = false;
    if (op.operationId === "listChatMessages") kept = ex.status !== 404 && seen?.object === "message" && seen.chat_id === pathId(ex);
    else if (op.operationId === "listReleases" || op.operationId === "listChats") kept = filters.length === 0 && seen?.object === (op.operationId === "listReleases" ? "release" : "chat");
    else if (op.operationId === "listInterviews" && !plusInQuery(ex.url)) {
      kept = seen?.object === "interview" && filters.every((f) => (f === "study_id" || f === "reference_id") && ex.query.getAll(f).length === 1 && f in seen && same(seen[f], ex.query.get(f), f));
    }
    if (!kept) return;
    if (op.operationId === "listChatMessages" && ex.status !== 200) {
      const k = `${key}\n${seen!.chat_id}`;
      const pending = this.refusedCursors.get(k) ?? new Map<string, { refused: Exchange; listed: Exchange }>();
      if (pending.size < 100) pending.set(cursor[0], { refused: ex, listed: before!.ex });
      this.refusedCursors.set(k, pending);
    } else out.verdict("implementation", acrossRules["cursor-kept"], ex.status === 200, `${ex.method} ${ex.url} answered ${ex.status} to a cursor this key saw in that list before (${before!.ex.method} ${before!.ex.url}): a list takes its items' ids as starting_after, and nothing leaves this list`, ex, [before!.ex]);
  }

  /**
   * A message refused as a cursor and listed again since, with no whole walk between that lacked it: visible before
   * the refusal and after it. One a whole walk (one page from the start) lacked after the refusal had left the list.
   */
  private listedAgain(key: string, chatId: string, items: any[], hasMore: boolean, ex: Exchange, out: Verdicts): void {
    const k = `${key}\n${chatId}`;
    const pending = this.refusedCursors.get(k);
    if (!pending) return;
    const here = new Set(items.map((m) => m?.id));
    const whole = !ex.query.has("starting_after") && !hasMore;
    for (const [id, r] of pending) {
      if (here.has(id)) out.verdict("implementation", acrossRules["cursor-kept"], false, `${r.refused.method} ${r.refused.url} answered ${r.refused.status} to message ${id} as its cursor, a visible message of the chat: listed before it (${r.listed.method} ${r.listed.url}) and again after it (${ex.method} ${ex.url}), no whole walk between lacking it`, r.refused, [r.listed, ex]);
      if (here.has(id) || whole) pending.delete(id);
    }
    if (!pending.size) this.refusedCursors.delete(k);
  }

  /**
   * Chat: updated_at, "most recent update": a chat read sent after a page of its messages was answered is not older
   * than when any of those messages was recorded or finished.
   */
  private chatUpdated(key: string, chat: any, ex: Exchange, out: Verdicts): void {
    const seen = typeof chat?.id === "string" ? this.latestMessages.get(`${key}\n${chat.id}`) : undefined;
    const updated = Date.parse(chat?.updated_at);
    if (!seen || answeredAt(seen.ex) >= ex.at || !Number.isFinite(updated)) return;
    out.verdict("implementation", SHOWN_RULES.updatedAt, updated >= seen.ms, `chat ${chat.id}: updated_at ${chat.updated_at} (${ex.method} ${ex.url}) is before ${new Date(seen.ms).toISOString()}, when a message of it read before was recorded or finished (${seen.ex.method} ${seen.ex.url})`, ex, [seen.ex]);
  }

  private messagesSeen(key: string, chatId: string, items: any[], ex: Exchange): void {
    const times = items.flatMap((m) => [Date.parse(m?.created_at), Date.parse(m?.completed_at)]).filter(Number.isFinite);
    if (!times.length) return;
    const k = `${key}\n${chatId}`;
    const ms = Math.max(...times);
    const before = this.latestMessages.get(k);
    if (!before || ms > before.ms) this.latestMessages.set(k, { ms, ex });
  }

  /** Before judging: the client's retry timing, and whether the target answers with faults the client injected. */
  before(ex: Exchange, op: Operation | undefined, out: Verdicts): { faulted: boolean } {
    const k = `${ex.key}\n${ex.method} ${ex.url}`;
    const pending = this.retryAfter.get(k);
    if (pending) {
      this.retryAfter.delete(k);
      const early = pending.until - ex.at;
      out.verdict("client", clientRules["retry-after"], early <= 0, `${ex.method} ${ex.url} was sent again ${Math.round(ex.at - pending.ex.at)} ms after a ${pending.ex.status} that asked to wait ${Math.round(pending.until - pending.ex.at)} ms (Retry-After: ${pending.ex.responseHeaders.get("retry-after")})`, ex, [pending.ex]);
    }
    if (op?.path === "/_sim/faults" && ex.status >= 200 && ex.status < 300) {
      if (ex.method === "PUT") this.faulted.add(String(ex.key));
      if (ex.method === "DELETE") this.faulted.delete(String(ex.key));
    }
    return { faulted: this.faulted.has(String(ex.key)) };
  }

  after(ex: Exchange, op: Operation | undefined, body: any, out: Verdicts): void {
    if (ex.status === 429 || ex.status === 503) {
      const wait = parseRetryAfter(ex.responseHeaders.get("retry-after"), ex.at);
      if (wait !== null) this.retryAfter.set(`${ex.key}\n${ex.method} ${ex.url}`, { until: ex.at + wait, ex });
    }
    // A launch's faults could be any project's: none judged while the client injects faults.
    if (op && ex.status === 200 && op.path.startsWith("/v1/interview-participant/") && this.faulted.size === 0) this.participant(op, ex, body);
    if (!op || ex.key === null || this.faulted.has(ex.key) || op.path.startsWith("/_sim")) return;
    const key = ex.key;
    if (op.path === "/v1/webhooks") this.webhook(key, ex, body, out);
    if (ex.status === 404 && RETRIEVALS.has(op.operationId)) this.notFound(key, pathId(ex), ex, out);
    if ((ex.status === 200 || ex.status === 400 || ex.status === 404) && LIST_ORDER[op.operationId]) this.cursorTaken(key, op, ex, out);
    if (ex.status !== 200 || body === null || typeof body !== "object") return;
    const items: any[] = body.object === "list" && Array.isArray(body.data) ? body.data : [body];
    for (const item of items) this.seen(key, item, ex, out);
    if (op.operationId === "getChat" && typeof body.id === "string" && typeof body.message_count === "number") {
      this.counts.set(`${key}\n${body.id}`, { count: body.message_count, updatedAt: String(body.updated_at), streaming: body.is_streaming === true, ex });
    }
    if (op.operationId === "getStudy" && typeof body.id === "string" && typeof body.interview_count === "number") this.studyCount(key, body.id, body.interview_count, ex, out);
    if (op.operationId === "getStudy" || op.operationId === "listStudies") {
      for (const st of items) {
        if (typeof st?.id !== "string") continue;
        this.studyUsage(key, st, ex, out);
        this.studyState(st, ex, out);
      }
    }
    if (op.operationId === "getStudy") this.studyRead(key, body, ex);
    if (op.operationId === "getInterview") this.interviewRead(key, body, ex, out);
    if (op.operationId === "listInterviews") for (const i of items) this.listedAfterDelivery(i, ex, out);
    if (op.operationId === "getChat") this.chatUpdated(key, body, ex, out);
    if (op.operationId === "listChats") for (const c of items) this.chatUpdated(key, c, ex, out);
    if (op.operationId === "listChatMessages") this.messagesSeen(key, pathId(ex), items, ex);
    if (op.operationId === "listChatMessages") this.listedAgain(key, pathId(ex), items, body.has_more === true, ex, out);
    this.releasesAndRetrievals(key, op, body, items, ex, out);
    if (body.object === "list" && Array.isArray(body.data) && LIST_ORDER[op.operationId]) this.page(key, op, body, ex, out);
  }

  /** A release's chat_id never reads or lists as a chat; what a key retrieved one by one, its whole list holds. */
  private releasesAndRetrievals(key: string, op: Operation, body: any, items: any[], ex: Exchange, out: Verdicts): void {
    const hidden = this.releaseChats.get(key) ?? new Map<string, Exchange>();
    if (op.operationId === "listReleases" || op.operationId === "getRelease") {
      for (const r of items) if (typeof r?.chat_id === "string" && hidden.size < this.caps.members) hidden.set(r.chat_id, ex);
      this.releaseChats.set(key, hidden);
    }
    const rule = chatsCheck.rules["release-chats"];
    const chatIds = op.operationId === "listChats" ? items.map((c) => c?.id) : op.operationId === "getChat" ? [body.id] : op.operationId === "listChatMessages" ? [pathId(ex)] : [];
    for (const id of chatIds) {
      const release = hidden.get(id);
      if (release) out.verdict("implementation", rule, false, `${ex.method} ${ex.url} shows chat ${id}, the chat_id of a release (${release.method} ${release.url}): release-generated chats are excluded everywhere`, ex, [release]);
    }
    const LIST_OF: Record<string, string> = { getInterview: "listInterviews", getRelease: "listReleases", getChat: "listChats" };
    const list = LIST_OF[op.operationId];
    if (list && typeof body.id === "string") {
      const k = `${key}\n${list}`;
      const got = this.retrieved.get(k) ?? new Map<string, Exchange>();
      if (got.size < this.caps.members) got.set(body.id, ex);
      this.retrieved.set(k, got);
    }
  }

  /** A whole walk of an unfiltered list, against what the key retrieved before the walk began. */
  private wholeWalk(key: string, op: Operation, walk: Walk, ex: Exchange, out: Verdicts): void {
    this.projectsApart(key, op, walk, ex, out);
    const got = this.retrieved.get(`${key}\n${op.operationId}`);
    if (!got) return;
    const missing = [...got].filter(([id, at]) => at.seq < walk.first.seq && !walk.ids.has(id));
    out.verdict("implementation", acrossRules.listed, missing.length === 0, `${missing.length} item(s) this key retrieved before the walk are missing from its whole walk of ${ex.path}, e.g. ${missing[0]?.[0]} (${missing[0]?.[1].method} ${missing[0]?.[1].url} answered 200)`, ex, missing.slice(0, 2).map(([, e]) => e).concat([walk.first]));
  }

  /**
   * Authentication 3: a key is scoped to a single project. These lists never lose items (proxy.listed), so when one
   * key's whole walk lacks an item another key's whole walk listed before it began, the two keys are of two projects;
   * and then no resource answers 200 to both (Errors 1: another project's id is 404).
   */
  private projectsApart(key: string, op: Operation, walk: Walk, ex: Exchange, out: Verdicts): void {
    const walks = this.lastWholeWalks.get(op.operationId) ?? new Map<string, { ids: Set<string>; last: Exchange }>();
    for (const [other, w] of walks) {
      if (other === key || answeredAt(w.last) >= walk.first.at) continue;
      const pair = pairOf(key, other);
      if (this.apart.has(pair)) continue;
      const id = [...w.ids].find((i) => !walk.ids.has(i));
      if (id === undefined) continue;
      this.apart.set(pair, { id, listed: w.last, lacking: ex });
      this.twoProjects(pair, out);
    }
    // One walk per key (its latest), for a bounded number of keys.
    if (walk.ids.size <= this.caps.members && (walks.has(key) || walks.size < 20)) walks.set(key, { ids: walk.ids, last: ex });
    this.lastWholeWalks.set(op.operationId, walks);
  }

  /** Two keys shown to be of two projects, and one resource read by both: judged once for the pair. */
  private twoProjects(pair: string, out: Verdicts): void {
    const [apart, shared] = [this.apart.get(pair), this.together.get(pair)];
    if (!apart || !shared || this.judgedPairs.has(pair) || this.judgedPairs.size >= 10_000) return;
    this.judgedPairs.add(pair);
    out.verdict("implementation", acrossRules.isolation, false, `${shared.ex.method} ${shared.ex.url} showed ${shared.id}, which another key read too, but the two keys are of two projects: ${apart.id}, listed by one key's whole walk (${apart.listed.method} ${apart.listed.url}), is missing from the other's later whole walk (${apart.lacking.method} ${apart.lacking.url}) of a list that never loses items. Another project's resource answers 404`, shared.ex, [apart.listed, apart.lacking]);
  }

  /**
   * A whole walk of the interviews by a filter, against the interviews this key read one by one before it began
   * (Endpoints: GET /v1/interviews `study_id`, `status`, `reference_id`, `quality_score`): one read of the filter's
   * study and reference id, or read completed (with that quality_score), is in it. An interview's study and reference
   * id never change, and a completed one stays completed with its score; other filters are not judged.
   */
  private filteredWalk(key: string, walk: Walk, ex: Exchange, out: Verdicts): void {
    const q = walk.first.query;
    const names = [...q.keys()].filter((k) => k !== "limit" && k !== "starting_after");
    if (names.some((k) => q.getAll(k).length !== 1 || !["study_id", "reference_id", "status", "quality_score"].includes(k)) || (q.has("status") && q.get("status") !== "completed")) return;
    if (plusInQuery(walk.first.url)) return;
    const got = this.retrieved.get(`${key}\nlistInterviews`);
    if (!got) return;
    // Its study and reference id as any read shows them (they never change); completed, and its score, only as read before the walk.
    const matches = (id: string): boolean => {
      const reads = this.interviewReads.get(id);
      if (!reads) return false;
      const done = reads.completedSeq !== undefined && reads.completedSeq < walk.first.seq ? reads.completed?.body : undefined;
      const record = reads.last.body;
      return names.every((k) => (k === "status" ? done !== undefined : k === "quality_score" ? done?.quality_score === q.get(k) : typeof record?.[k] === "string" && record[k] === q.get(k)));
    };
    const missing = [...got].filter(([id, at]) => at.seq < walk.first.seq && !walk.ids.has(id) && matches(id));
    out.verdict("implementation", acrossRules.listed, missing.length === 0, `${missing.length} interview(s) this key read before the walk, of its filter (${names.map((k) => `${k}=${q.get(k)}`).join(", ")}), are missing from its whole walk of ${ex.path}?${names.map((k) => `${k}=${encodeURIComponent(q.get(k)!)}`).join("&")}, e.g. ${missing[0]?.[0]} (${missing[0]?.[1].method} ${missing[0]?.[1].url} answered 200)`, ex, missing.slice(0, 2).map(([, e]) => e).concat([walk.first]));
  }

  private seen(key: string, item: any, ex: Exchange, out: Verdicts): void {
    if (!item || typeof item !== "object" || typeof item.id !== "string") return;
    const fixed = FIXED[item.object];
    if (!fixed) return;
    const k = `${key}\n${item.id}`;
    const before = this.resources.get(k);
    const fields: Record<string, unknown> = {};
    for (const f of fixed) fields[f] = item[f];
    // A completed interview is what its delivery said (webhooks.payload-matches holds every completed read to it): its
    // record, scores and times no longer change, however a list filters or pages it.
    if (item.object === "interview" && item.completed_at != null) fields.completed_at = item.completed_at;
    if (item.object === "interview" && item.status === "completed") for (const f of COMPLETED_FIXED) fields[f] = item[f];
    if (before) {
      // A timestamp is the same instant however each read writes it (its form is judged apart).
      const changed = Object.keys(fields).filter((f) => f in before.fields && !same(before.fields[f], fields[f], f));
      out.verdict("implementation", acrossRules.immutable, changed.length === 0, `${item.object} ${item.id}: ${changed.map((f) => `${f} read ${JSON.stringify(before.fields[f])}, then ${JSON.stringify(fields[f])}`).join("; ")}`, ex, [before.ex]);
      for (const f of Object.keys(before.fields)) if (!(f in fields)) fields[f] = before.fields[f];
    }
    this.resources.set(k, { fields, ex });
    const keys = this.readers.get(item.id) ?? new Set<string>();
    for (const other of keys) {
      if (other === key) continue;
      const pair = pairOf(key, other);
      this.together.set(pair, { ex, id: item.id });
      this.twoProjects(pair, out);
    }
    keys.add(key);
    this.readers.set(item.id, keys);
  }

  private notFound(key: string, id: string, ex: Exchange, out: Verdicts): void {
    const mine = this.resources.get(`${key}\n${id}`);
    if (mine) out.verdict("implementation", acrossRules["stays-found"], false, `${ex.method} ${ex.url} answered 404, but ${id} answered 200 to the same key before (${mine.ex.method} ${mine.ex.url}); nothing in the API deletes it`, ex, [mine.ex]);
    for (const other of this.readers.get(id) ?? []) {
      if (other === key) continue;
      const shared = this.together.get(pairOf(key, other))?.ex;
      const theirs = this.resources.get(`${other}\n${id}`);
      if (shared && theirs) out.verdict("implementation", acrossRules.isolation, false, `${ex.method} ${ex.url} answered 404 to one key while another key reads ${id} (${theirs.ex.method} ${theirs.ex.url}), and both keys read ${shared.method} ${shared.url}'s resources: either a project's data shows under another project's key, or a resource of the project is hidden from one of its keys`, ex, [theirs.ex, shared]);
    }
  }

  /**
   * Study: interview_count, "total completed interviews". Interviews are never removed and a completed one stays so:
   * a whole walk of the study's interviews that began after a read lists at least that many completed; one that ended
   * before a read, at most that many.
   */
  private studyCount(key: string, study: string, count: number, ex: Exchange, out: Verdicts): void {
    const w = this.studyWalks.get(`${key}\n${study}`);
    if (w && answeredAt(w.last) < ex.at) {
      out.verdict("implementation", capacityCheck.rules["interview-count"], count >= w.completed, `study ${study}: interview_count ${count} (${ex.method} ${ex.url}), but a whole walk of its interviews that ended before listed ${w.completed} completed`, ex, [w.first, w.last]);
    }
    this.studyCounts.set(`${key}\n${study}`, { count, ex });
  }

  private studyWalk(key: string, study: string, walk: Walk, out: Verdicts): void {
    const c = this.studyCounts.get(`${key}\n${study}`);
    if (c && answeredAt(c.ex) < walk.first.at) {
      out.verdict("implementation", capacityCheck.rules["interview-count"], walk.completed >= c.count, `study ${study}: interview_count ${c.count} (${c.ex.method} ${c.ex.url}), but a whole walk of its interviews made after that read listed ${walk.completed} completed`, c.ex, [walk.first, walk.lastEx]);
    }
    const u = this.studyUsed.get(`${key}\n${study}`);
    if (u && answeredAt(u.ex) < walk.first.at && walk.instants.length < INSTANTS) this.usedAtMost(study, u, walk.instants, walk.first, walk.lastEx, out);
    this.studyWalks.set(`${key}\n${study}`, { completed: walk.completed, first: walk.first, last: walk.lastEx, instants: walk.instants.length < INSTANTS ? walk.instants : undefined });
  }

  /**
   * Limits: "weekly window Monday to Sunday UTC"; Study: limits.*.used, "interviews used in the current period". A
   * study read after a whole walk of its interviews ended counts at least the completed ones the walk showed inside its
   * week (created, started and completed there: whichever instant places an interview in a window, those are in it).
   * Too near a window's edge, by the two clocks' possible skew, nothing is judged.
   */
  private studyUsage(key: string, st: any, ex: Exchange, out: Verdicts): void {
    const used = { weekly: st?.limits?.weekly?.used, monthly: st?.limits?.monthly?.used, ex };
    const w = this.studyWalks.get(`${key}\n${st.id}`);
    const week = weekOf(ex);
    if (w?.instants && answeredAt(w.last) < ex.at && week && typeof used.weekly === "number") {
      const [from, to] = week;
      const least = w.instants.filter((t) => !Number.isNaN(t[2]) && t.every((x) => x >= from + SKEW_MS && x < to - SKEW_MS)).length;
      out.verdict("implementation", capacityCheck.rules["used-counts"], used.weekly >= least, `study ${st.id}: limits.weekly.used ${used.weekly} (${ex.method} ${ex.url}), but a whole walk of its interviews that ended before listed ${least} completed inside this week (Monday ${new Date(from).toISOString()} on)`, ex, [w.first, w.last]);
    }
    this.studyUsed.set(`${key}\n${st.id}`, used);
  }

  /**
   * A whole walk of a study's interviews that began after a read of the study holds every interview that read could
   * count: its week's `used` at most those with an instant inside that week, its month's at most those with one inside
   * the last 31 days (no billing period is longer). An instant missing or unreadable counts, to be safe.
   */
  private usedAtMost(study: string, u: { weekly: unknown; monthly: unknown; ex: Exchange }, instants: number[][], first: Exchange, last: Exchange, out: Verdicts): void {
    const count = (from: number, to: number) => instants.filter((t) => t.some((x, k) => (Number.isNaN(x) ? k < 2 : x >= from - SKEW_MS && x < to + SKEW_MS))).length;
    const week = weekOf(u.ex);
    if (week && typeof u.weekly === "number") {
      const most = count(week[0], week[1]);
      out.verdict("implementation", capacityCheck.rules["used-counts"], u.weekly <= most, `study ${study}: limits.weekly.used ${u.weekly} (${u.ex.method} ${u.ex.url}), but a whole walk of its interviews made after that read listed ${most} with an instant inside that week (Monday ${new Date(week[0]).toISOString()} on)`, u.ex, [first, last]);
    }
    if (typeof u.monthly === "number") {
      const most = count(answeredAt(u.ex) - 31 * DAY_MS, answeredAt(u.ex));
      out.verdict("implementation", capacityCheck.rules["used-counts"], u.monthly <= most, `study ${study}: limits.monthly.used ${u.monthly} (${u.ex.method} ${u.ex.url}), but a whole walk of its interviews made after that read listed ${most} with an instant inside the last 31 days, longer than any billing period`, u.ex, [first, last]);
    }
  }

  private page(key: string, op: Operation, body: any, ex: Exchange, out: Verdicts): void {
    const order = LIST_ORDER[op.operationId];
    const { filters, wk } = walkOf(key, ex);
    const items = body.data as any[];
    const ids = items.map((i) => String(i?.id));
    const cursor = ex.query.get("starting_after");
    let walk = this.walks.get(wk);
    const repeatsInPage = ids.filter((id, i) => ids.indexOf(id) !== i);
    out.verdict("implementation", acrossRules["walk-once"], repeatsInPage.length === 0, `${ex.method} ${ex.url}: ${repeatsInPage[0]} appears twice on one page`, ex);
    let previous: any = undefined;
    if (cursor === null) {
      walk = { ids: new Set(), last: undefined, hasMore: true, fromStart: true, first: ex, lastEx: ex, maxCreated: "", completed: 0, instants: [] };
    } else if (walk && String(walk.last?.id) === cursor) {
      out.verdict("client", clientRules["has-more"], walk.hasMore, `${ex.method} ${ex.url} asks for the page after ${walk.lastEx.method} ${walk.lastEx.url}, which said has_more false`, ex, [walk.lastEx]);
      const again = ids.filter((id) => walk!.ids.has(id));
      out.verdict("implementation", acrossRules["walk-once"], again.length === 0, `${ex.method} ${ex.url}: ${again.length} item(s) of the walk's earlier pages came again, e.g. ${again[0]}`, ex, [walk.first]);
      // An empty page after has_more true, where nothing can have left the list in between (interviews are never
      // removed and leave a list only by their status; releases and chats are never removed): no page existed.
      if (walk.hasMore && !items.length && KEPT_LISTS(op.operationId, filters)) {
        out.verdict("implementation", paginationRules["has-more"], false, `${walk.lastEx.method} ${walk.lastEx.url} said has_more true, but the page after its last item (${ex.method} ${ex.url}) is empty: has_more is true when another page exists`, ex, [walk.lastEx]);
      }
      previous = walk.last;
      if (previous && items.length) {
        const problem = orderProblem([previous, items[0]], { path: ex.path, ...order }, false);
        // Studies and interviews: the seed leaves their order open, so across pages as within one, it is our contract's pin.
        out.verdict("implementation", order.seedOrder ? acrossRules["walk-order"] : paginationRules["pinned-order"], !problem, `${ex.method} ${ex.url}: across the page boundary, ${problem}`, ex, [walk.lastEx]);
      }
    } else {
      walk = { ids: new Set(), last: undefined, hasMore: true, fromStart: false, first: ex, lastEx: ex, maxCreated: "", completed: 0, instants: [] };
    }
    // Skips: a member of the list seen before, whose place falls inside the stretch this page covers, is missing.
    if (UNFILTERED_ORDERED.has(op.operationId) && filters === "" && items.length) {
      const mk = `${key}\n${ex.path}`;
      const members = this.members.get(mk) ?? new Map<string, string>();
      const lastValue = String(items[items.length - 1][order.key]);
      const from = previous === undefined ? (cursor === null ? null : undefined) : String(previous[order.key]);
      if (from !== undefined) {
        const inside = (v: string) => (order.desc ? (from === null || v < from) && v > lastValue : (from === null || v > from) && v < lastValue);
        const here = new Set(ids);
        const skipped = [...members].filter(([id, v]) => inside(v) && !here.has(id)).map(([id]) => id);
        out.verdict("implementation", acrossRules["walk-once"], skipped.length === 0, `${ex.method} ${ex.url}: ${skipped.length} item(s) of this list seen before belong inside this page's stretch (${order.key} ${from ?? "start"} to ${lastValue}) and are missing, e.g. ${skipped[0]}`, ex);
      }
      for (const item of items) if (typeof item?.id === "string" && members.size < this.caps.members) members.set(item.id, String(item[order.key]));
      this.members.set(mk, members);
    }
    for (const id of ids) if (walk.ids.size < 100_000) walk.ids.add(id);
    for (const item of items) if (typeof item?.created_at === "string" && item.created_at > walk.maxCreated) walk.maxCreated = item.created_at;
    walk.completed += items.filter((i) => i?.status === "completed").length;
    const study = op.operationId === "listInterviews" ? /^study_id=([^&]+)$/.exec(filters)?.[1] : undefined;
    if (study !== undefined && walk.instants.length < INSTANTS) for (const i of items) walk.instants.push([i?.created_at, i?.started_at, i?.completed_at].map((x) => (typeof x === "string" ? Date.parse(x) : Number.NaN)));
    walk.last = items[items.length - 1] ?? walk.last;
    walk.hasMore = body.has_more === true;
    walk.lastEx = ex;
    this.walks.set(wk, walk);
    if (!walk.hasMore && walk.fromStart && filters === "" && (op.operationId === "listInterviews" || op.operationId === "listReleases" || op.operationId === "listChats") && walk.ids.size < 100_000) this.wholeWalk(key, op, walk, ex, out);
    if (!walk.hasMore && walk.fromStart && filters !== "" && op.operationId === "listInterviews" && walk.ids.size < 100_000) this.filteredWalk(key, walk, ex, out);
    // A study's whole walk of its interviews against its interview_count (no interview is removed or completes twice).
    if (!walk.hasMore && walk.fromStart && study !== undefined) this.studyWalk(key, study, walk, out);
    // A whole walk of a chat's messages against the count read before it, when none of them is newer than that read.
    if (!walk.hasMore && walk.fromStart && op.operationId === "listChatMessages" && filters === "") {
      const chatId = pathId(ex);
      const c = this.counts.get(`${key}\n${chatId}`);
      if (c && !c.streaming && c.ex.seq < walk.first.seq && walk.maxCreated <= c.updatedAt) {
        out.verdict("implementation", acrossRules["count-agrees"], c.count === walk.ids.size, `chat ${chatId}: message_count ${c.count} (${c.ex.method} ${c.ex.url}), but a whole walk of its messages after that read returned ${walk.ids.size}, none newer than the chat's updated_at ${c.updatedAt}`, c.ex, [walk.first, ex]);
      }
    }
  }
}
