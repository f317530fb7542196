/**
 * One exchange judged on its own: the request against the contract (the client's), the answer against the contract
 * and the seed's single-exchange rules (the implementation's), with the suite's own judges: Contract.judge, the
 * truncation, deprecation and messages-error judges, the pagination order. What needs other exchanges is memory.ts's.
 */
import type { ValidateFunction } from "ajv";
import { orderProblem, paginationRules } from "../judge/pages.ts";
import { deprecationVerdicts } from "../judge/deprecation.ts";
import { invalidParametersVerdicts, noSuchMessageVerdicts } from "../judge/messages-errors.ts";
import { messageVerdicts } from "../judge/truncation.ts";
import { responseRules, type Contract, type Operation } from "../contract.ts";
import { isJsonType, UUID, type Reply } from "../http.ts";
import type { Rule } from "../rules.ts";
import { createContractAjv, INTEGER_TEXT } from "../../../lib/openapi-ajv.ts";
import { decodedSegment, jsonOf, type Exchange } from "./exchange.ts";
import { acrossRules, clientRules } from "./rules.ts";
import { completedTimes, internalKeys, internallySourced, isEnglish, listedNotActive, mismatching, noSourcesAsEmpty, partProblem, questionAnswersAgree, excerptsOutside, transcriptOutOfOrder, QUALITY_SCORES, carriesTranslated, usageOffAssistant, webhookAnswerProblem } from "../judge/shown.ts";
import { withinLimits } from "../judge/windows.ts";
import { sameEvents, sameUrl } from "../judge/same.ts";
import { capacityCheck } from "../checks/capacity.ts";
import { chatsCheck } from "../checks/chats.ts";
import { fieldsCheck } from "../checks/fields.ts";
import { filtersCheck } from "../checks/filters.ts";
import { participantCheck } from "../checks/participant.ts";
import { LAUNCH_MODES } from "../judge/participant.ts";
import { schemaCheck } from "../checks/schema.ts";
import { r as webhookRules } from "../checks/webhooks.ts";
import { windowsCheck } from "../checks/windows.ts";

/** The checks' rules for what one answer may show (judge/shown.ts), judged here on traffic as the checks judge them. */
export const SHOWN_RULES = {
  studiesActive: windowsCheck.rules.statuses,
  chatsListed: chatsCheck.rules["hidden-not-listed"],
  chatHidden: chatsCheck.rules["hidden-404"],
  publicParts: chatsCheck.rules["public-parts"],
  usage: fieldsCheck.rules["usage-roles"],
  create: webhookRules.create,
  update: webhookRules.update,
  "secret-hidden": webhookRules["secret-hidden"],
  "delete-204": webhookRules["delete-204"],
  translated: fieldsCheck.rules.translated,
  questionAnswers: fieldsCheck.rules["question-answers"],
  transcript: fieldsCheck.rules.transcript,
  nullForms: fieldsCheck.rules["null-forms"],
  acceptingBelow: capacityCheck.rules["accepting-below"],
  acceptingAtCap: capacityCheck.rules["accepting-at-cap"],
  acceptingInactive: capacityCheck.rules.paused,
  filters: filtersCheck.rules.matching,
  unknownId: schemaCheck.rules["unknown-id"],
  maxPageSize: paginationRules["max-page-size"],
  walkEnds: paginationRules["walk-ends"],
  payloadMatches: webhookRules["payload-matches"],
  updatedAt: fieldsCheck.rules["updated-at"],
  limitRange: paginationRules["limit-range"],
  requiredFields: webhookRules["required-fields"],
  eventsOnly: webhookRules["events-only"],
  noMetadata: chatsCheck.rules["no-metadata"],
  interviewTimes: fieldsCheck.rules["interview-times"],
  duration: fieldsCheck.rules.duration,
  quality: fieldsCheck.rules.quality,
  launchDecision: participantCheck.rules.decision,
} satisfies Record<string, Rule>;

/** Study: accepting_responses, "true when the study is active and within all usage limits": judged on one study. */
function acceptingVerdict(s: any, ex: Exchange, out: Verdicts): void {
  const within = withinLimits(s);
  const rule = s?.status !== "active" ? SHOWN_RULES.acceptingInactive : within ? SHOWN_RULES.acceptingBelow : SHOWN_RULES.acceptingAtCap;
  out.verdict("implementation", rule, s?.accepting_responses === (s?.status === "active" && within), `${ex.method} ${ex.url}: study ${s?.id} is ${s?.status} with limits ${JSON.stringify(s?.limits)} and says accepting_responses=${s?.accepting_responses}`, ex);
}

/** The filters of a list request, as the list's items show them (Endpoints: GET /v1/interviews, GET /v1/releases). */
const FILTERS: Record<string, string[]> = { listInterviews: ["study_id", "status", "reference_id", "quality_score"], listReleases: ["status"] };

export type Party = "implementation" | "client";

/** Where verdicts go: `ok` false is a finding; true records that the rule was exercised and held. */
export interface Verdicts {
  verdict(party: Party, rule: Rule, ok: boolean, message: string, ex: Exchange, others?: Exchange[]): void;
}

/** What judges the exchanges whose verdicts wait on what later traffic shows (removal-watch.ts). */
export interface Deferred {
  handles(ex: Exchange): boolean;
  judge(ex: Exchange, out: Verdicts): void;
}


/** The order each list is kept in: the seed's for releases, chats and messages; our contract's for the rest. */
export const LIST_ORDER: Record<string, { key: string; desc: boolean; seedOrder: boolean }> = {
  listStudies: { key: "created_at", desc: true, seedOrder: false },
  listInterviews: { key: "created_at", desc: true, seedOrder: false },
  listReleases: { key: "merged_at", desc: true, seedOrder: true },
  listChats: { key: "created_at", desc: true, seedOrder: true },
  listChatMessages: { key: "created_at", desc: false, seedOrder: true },
};

interface ParamCheck {
  query: ValidateFunction;
  path: ValidateFunction;
  body: ValidateFunction | null;
  declared: Set<string>;
  integers: string[];
  pathNames: string[];
}

/** The request side: each operation's parameters and body compiled once from the contract (coercing, as the server reads them). */
export class RequestJudge {
  private readonly ajv = createContractAjv(undefined, { coerceTypes: true });
  private readonly strict = createContractAjv();
  private readonly compiled = new Map<string, ParamCheck>();

  constructor(private readonly contract: Contract) {}

  private forOperation(op: Operation): ParamCheck {
    let c = this.compiled.get(op.operationId);
    if (c) return c;
    const params = (op.op.parameters ?? []).map((p: any) => this.contract.resolve(p));
    const schemaOf = (p: any) => (p.schema?.$ref ? { $ref: `openapi.json${p.schema.$ref}` } : p.schema ?? {});
    const object = (where: string) => {
      const ps = params.filter((p: any) => p.in === where);
      return { type: "object", properties: Object.fromEntries(ps.map((p: any) => [p.name, schemaOf(p)])), required: ps.filter((p: any) => p.required).map((p: any) => p.name) };
    };
    const body = op.op.requestBody?.content?.["application/json"]?.schema;
    c = {
      query: this.ajv.compile(object("query")),
      path: this.ajv.compile(object("path")),
      body: body ? this.strict.compile(body.$ref ? { $ref: `openapi.json${body.$ref}` } : body) : null,
      declared: new Set(params.filter((p: any) => p.in === "query").map((p: any) => p.name)),
      integers: params.filter((p: any) => p.in === "query" && this.contract.resolve(p.schema)?.type === "integer").map((p: any) => p.name),
      pathNames: [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]),
    };
    this.compiled.set(op.operationId, c);
    return c;
  }

  /** The fields of the request the contract refuses (parameters and body), and the query parameters it does not declare. */
  problems(op: Operation, ex: Exchange): { invalid: string[]; unknown: string[]; messages: string[] } {
    const c = this.forOperation(op);
    const invalid = new Set<string>();
    const messages: string[] = [];
    const query: Record<string, unknown> = {};
    for (const [k, v] of ex.query) query[k] = v;
    const unknown = Object.keys(query).filter((k) => !c.declared.has(k));
    for (const k of unknown) delete query[k];
    for (const name of c.integers) {
      if (typeof query[name] === "string" && !INTEGER_TEXT.test(query[name] as string)) {
        invalid.add(name);
        messages.push(`${name}=${JSON.stringify(query[name])} is not an integer`);
        delete query[name];
      }
    }
    if (!c.query(query)) for (const e of c.query.errors ?? []) {
      const field = e.instancePath.split("/")[1] ?? (e.params as { missingProperty?: string }).missingProperty ?? "(query)";
      if (!invalid.has(field)) messages.push(`${field} ${e.message}`);
      invalid.add(field);
    }
    const m = op.regex.exec(ex.path);
    if (m) {
      const segments = ex.path.split("/");
      const template = op.path.split("/");
      const values: Record<string, string> = {};
      template.forEach((t, i) => {
        const name = /^\{(.+)\}$/.exec(t)?.[1];
        if (name) values[name] = decodedSegment(segments[i] ?? "");
      });
      if (!c.path(values)) for (const e of c.path.errors ?? []) {
        const field = e.instancePath.split("/")[1] ?? "(path)";
        invalid.add(field);
        messages.push(`path ${field} ${JSON.stringify(values[field])} ${e.message}`);
      }
    }
    if (c.body && ex.requestBody !== null) {
      const type = ex.requestHeaders["content-type"] ?? "";
      const body = jsonOf(ex.requestBody);
      if (!isJsonType(type)) messages.push(`the body is sent as ${JSON.stringify(type)}, not application/json`), invalid.add("(body)");
      else if (!c.body(body)) {
        invalid.add("(body)");
        messages.push(`the body ${(c.body.errors ?? []).slice(0, 3).map((e) => `${e.instancePath || "(root)"} ${e.message}`).join("; ")}`);
      }
    }
    return { invalid: [...invalid], unknown, messages };
  }
}

/** The exchange as the suite's judges read a reply. */
export function replyOf(ex: Exchange, curl: string): Reply {
  const text = ex.responseBody?.toString("utf8") ?? "";
  return { status: ex.status, headers: ex.responseHeaders, text, body: jsonOf(ex.responseBody), curl, method: ex.method, path: ex.url };
}

/**
 * Everything one exchange shows. `faulted`: the client asked the target for injected faults (PUT /_sim/faults) for
 * this key, so the target's answers are not its own: not judged.
 */
export function judgeExchange(contract: Contract, requests: RequestJudge, ex: Exchange, reply: Reply, out: Verdicts, faulted: boolean, removal?: Deferred): void {
  const op = contract.match(ex.method, ex.path);
  const sentInvalid = op && !op.tooling ? judgeRequest(contract, requests, op, ex, out) : [];
  if (ex.upstreamError) {
    out.verdict("implementation", acrossRules.answers, false, `${ex.method} ${ex.path}: ${ex.upstreamError}`, ex);
    return;
  }
  if (faulted) return;
  // A HEAD answer has its GET's status and headers and no body (RFC 9110 9.3.2), and so has a 304 to a conditional
  // request the client made (If-None-Match, If-Modified-Since: its cached copy is still current, 15.4.5): judged by
  // those alone.
  const conditional = ex.status === 304 && ("if-none-match" in ex.requestHeaders || "if-modified-since" in ex.requestHeaders);
  const head = ex.method === "HEAD" || conditional;
  // The implementation's: the contract and the seed's per-response rules, as the suite judges every reply.
  if ((ex.responseBody !== null || ex.status === 204) && !head) {
    const problems = contract.judge(reply, op);
    for (const rule of contract.judgedRules(reply, op)) {
      const mine = problems.filter((p) => p.rule === rule.id);
      out.verdict("implementation", rule, mine.length === 0, mine.map((p) => p.message).join("; "), ex);
    }
  }
  // GET /v1/experiments past the seed's day may be served or removed: its headers and keyless answers wait for which.
  const watched = removal?.handles(ex) ?? false;
  if (watched) removal!.judge(ex, out);
  else for (const [rule, ok, message] of deprecationVerdicts(ex.method, ex.url, ex.status, ex.responseHeaders)) out.verdict("implementation", rule, ok, message, ex);
  if (!op || op.tooling) return;
  // Authentication 4: no key, or one that cannot be a project key, is 401 whatever else is wrong.
  if (op.auth === "project" && !op.path.startsWith("/_sim") && (ex.key === null || !ex.key.startsWith("svc_live_"))) {
    if (!watched) out.verdict("implementation", acrossRules["auth-first"], ex.status === 401, `${ex.method} ${ex.url} with ${ex.key === null ? "no key" : "a key without the svc_live_ prefix"} answered ${ex.status}, not 401`, ex);
    return;
  }
  if (ex.status === 401 || ex.responseBody === null || head) return;
  // A 429 or 503 says the implementation would not answer now (a rate limit, which the seed leaves open, or load), not
  // what it answers to this request: what the seed says of the answer's kind is judged on the answer itself.
  if (ex.status === 429 || ex.status === 503) return;
  judgeAnswerKind(op, ex, reply.body, sentInvalid, out);
  if (ex.status !== 200 || sentInvalid.length) return;
  // Participant endpoints: "a launch decision object whose mode is webview, external_browser or not_eligible".
  if (op.operationId === "createParticipantLaunch") {
    const mode = (reply.body as any)?.mode;
    out.verdict("implementation", SHOWN_RULES.launchDecision, LAUNCH_MODES.includes(mode), `${ex.method} ${ex.url} answered 200 with mode ${JSON.stringify(mode)}: a launch decision's mode is webview, external_browser or not_eligible`, ex);
  }
  if (op.operationId === "getStudy") acceptingVerdict(reply.body, ex, out);
  if (["getChat", "listChats", "listChatMessages"].includes(op.operationId)) {
    const leaked = internalKeys(reply.body, op.operationId === "getChat" ? "chat" : "data");
    out.verdict("implementation", SHOWN_RULES.noMetadata, leaked.length === 0, `${ex.method} ${ex.url} returns internal metadata: ${leaked.slice(0, 6).join(", ")}`, ex);
  }
  if (op.operationId === "getInterview") judgeInterview(reply.body, ex, out);
  const body = reply.body as any;
  if (op.operationId === "listInterviews" && Array.isArray(body?.data)) for (const i of body.data) outcomeVerdicts(i, ex, out);
  if (body?.object === "list" && Array.isArray(body.data)) judgeList(op.operationId, body, ex, out);
}

/** The client's side: the request against the contract. Returns the fields it sent that the contract refuses. */
function judgeRequest(contract: Contract, requests: RequestJudge, op: Operation, ex: Exchange, out: Verdicts): string[] {
  const p = requests.problems(op, ex);
  out.verdict("client", clientRules["invalid-request"], p.invalid.length === 0, `${ex.method} ${ex.path}: ${p.messages.join("; ")}`, ex);
  const declared = contract.queryParameters(op).map((x) => x.name).join(", ") || "none";
  out.verdict("client", clientRules["unknown-parameter"], p.unknown.length === 0, `${ex.method} ${ex.path}: ${p.unknown.join(", ")} ${p.unknown.length === 1 ? "is not a parameter" : "are not parameters"} of ${op.operationId} (declared: ${declared})`, ex);
  if (op.auth === "project" && !op.path.startsWith("/_sim")) out.verdict("client", clientRules["no-key"], ex.key !== null, `${ex.method} ${ex.path} was sent without Authorization: Bearer <API_KEY>`, ex);
  return p.invalid;
}

/** A limit the suite's own rule refuses (pagination.limit-range): a whole number outside 1..100, a negative, a fraction or a word. */
const outOfRange = (v: string | null): boolean => v !== null && (/^\d+$/.test(v) ? Number(v) < 1 || Number(v) > 100 : /^(-\d+|\d+\.\d+|[a-z]+)$/i.test(v));

/**
 * What the seed says of the answer's kind for this request, whatever its status: the webhook's answers, a hidden chat's
 * 404, the messages list's 400s, a well-formed id never refused as malformed, limit=100 always a page.
 */
function judgeAnswerKind(op: Operation, ex: Exchange, body: unknown, sentInvalid: string[], out: Verdicts): void {
  if (ex.path === "/v1/webhooks" && ["PUT", "GET", "DELETE"].includes(ex.method) && ex.status < 300) {
    const wrong = webhookAnswerProblem(ex.method, ex.status, body);
    const held = ex.method === "PUT" ? (ex.status === 201 ? "create" : "update") : ex.method === "GET" ? "secret-hidden" : "delete-204";
    out.verdict("implementation", SHOWN_RULES[wrong?.breaks ?? held], !wrong, `${ex.method} ${ex.url}: ${wrong?.problem}`, ex);
  }
  if (op.operationId === "getChat" && ex.status === 200) {
    const internal = internallySourced([body]);
    out.verdict("implementation", SHOWN_RULES.chatHidden, internal.length === 0, `${ex.method} ${ex.url} answered 200 with source ${JSON.stringify((body as any)?.source)}: a chat whose source is internal-only answers 404`, ex);
  }
  if (op.operationId === "listChatMessages" && ex.status !== 404) {
    const offending = sentInvalid.filter((f) => f === "limit" || f === "starting_after");
    if (offending.length && offending.length === sentInvalid.length) {
      for (const [rule, ok, message] of invalidParametersVerdicts(ex.status, body, offending, `${ex.method} ${ex.url}`)) out.verdict("implementation", rule, ok, message, ex);
    } else if (ex.status === 400 && !sentInvalid.length && UUID.test(ex.query.get("starting_after") ?? "")) {
      for (const [rule, ok, message] of noSuchMessageVerdicts(ex.status, body, ex.query.get("starting_after")!, `${ex.method} ${ex.url}`)) out.verdict("implementation", rule, ok, message, ex);
    }
  }
  // Errors: 400 for invalid parameters: a limit that is not a whole number from 1 to 100 is refused on every list.
  if (op.operationId.startsWith("list") && op.operationId !== "listChatMessages" && outOfRange(ex.query.get("limit")) && ex.status >= 200 && ex.status < 300) {
    out.verdict("implementation", SHOWN_RULES.limitRange, false, `${ex.method} ${ex.url} answered ${ex.status}: limit ${JSON.stringify(ex.query.get("limit"))} is not a whole number from 1 to 100, so it answers 400`, ex);
  }
  // Endpoints: PUT /v1/webhooks, url and events required, events only interview.completed: a body without them, or
  // naming another event, is refused.
  if (ex.method === "PUT" && ex.path === "/v1/webhooks" && ex.status >= 200 && ex.status < 300 && ex.requestBody) {
    const sent = jsonOf(ex.requestBody) as any;
    const missing = ["url", "events"].filter((f) => sent === null || typeof sent !== "object" || sent[f] === undefined);
    out.verdict("implementation", SHOWN_RULES.requiredFields, missing.length === 0, `${ex.method} ${ex.url} answered ${ex.status} to a body without ${missing.join(" and ")}: both are required`, ex);
    const others = Array.isArray(sent?.events) ? sent.events.filter((e: unknown) => e !== "interview.completed") : [];
    out.verdict("implementation", SHOWN_RULES.eventsOnly, others.length === 0, `${ex.method} ${ex.url} answered ${ex.status} to events ${JSON.stringify(sent?.events)}: only interview.completed can be subscribed`, ex);
    // What the answer says was set is what was sent (Endpoints: PUT /v1/webhooks answers {url, events}).
    const answered = body as any;
    if (missing.length === 0 && others.length === 0 && answered && typeof answered === "object" && "url" in answered) {
      const rule = ex.status === 201 ? SHOWN_RULES.create : SHOWN_RULES.update;
      out.verdict("implementation", rule, sameUrl(answered.url, sent.url) && sameEvents(answered.events, sent.events), `${ex.method} ${ex.url} was sent url ${JSON.stringify(sent.url)} and events ${JSON.stringify(sent.events)}, and answered ${ex.status} with url ${JSON.stringify(answered.url)} and events ${JSON.stringify(answered.events)}: the webhook is set as sent`, ex);
    }
  }
  if (ex.status !== 400 || sentInvalid.length) return;
  // Errors 1: a retrieval of a well-formed id is the resource (200) or 404, never a 400; Limits: limit=100 is a page.
  if (["getStudy", "getInterview", "getRelease", "getChat"].includes(op.operationId)) {
    out.verdict("implementation", SHOWN_RULES.unknownId, false, `${ex.method} ${ex.url} answered 400: a retrieval of a well-formed id answers 200 or 404`, ex);
  }
  // An interview list without study_id may be refused for that alone: the seed leaves open whether it is mandatory.
  const unscoped = op.operationId === "listInterviews" && !ex.query.has("study_id");
  if (ex.query.get("limit") === "100" && !ex.query.has("starting_after") && op.operationId.startsWith("list") && !unscoped) {
    out.verdict("implementation", SHOWN_RULES.maxPageSize, false, `${ex.method} ${ex.url} answered 400: every list takes limit=100`, ex);
  }
  // Endpoints: limit min 1, max 100. A first page asked for with a whole limit in range and nothing else (a study_id
  // on interviews) is a page, never a 400.
  const limit = ex.query.get("limit") ?? "";
  const others = [...ex.query.keys()].filter((k) => k !== "limit" && !(k === "study_id" && op.operationId === "listInterviews"));
  if (/^[1-9]\d?$/.test(limit) && others.length === 0 && op.operationId.startsWith("list") && !unscoped) {
    out.verdict("implementation", SHOWN_RULES.walkEnds, false, `${ex.method} ${ex.url} answered 400: limit ${limit} is within 1..100, so the list's first page answers 200`, ex);
  }
}

/** A language code that names a language other than English (not und, mul, zxx or mis, which name none). */
const translatable = (lang: unknown): boolean => typeof lang === "string" && /^[a-z]{2,3}(-[a-z0-9]{2,8})*$/i.test(lang) && !isEnglish(lang) && !/^(und|mul|zxx|mis)(-|$)/i.test(lang);

/** A completed interview, listed or read, carries its outcome: when it completed and its score (Interview: completed_at, quality_score). */
function outcomeVerdicts(i: any, ex: Exchange, out: Verdicts): void {
  if (i?.status !== "completed") return;
  out.verdict("implementation", SHOWN_RULES.interviewTimes, typeof i.completed_at === "string", `${ex.method} ${ex.url}: interview ${i.id} reads completed with completed_at ${JSON.stringify(i.completed_at)}`, ex);
  out.verdict("implementation", SHOWN_RULES.quality, QUALITY_SCORES.includes(i.quality_score), `${ex.method} ${ex.url}: interview ${i.id} reads completed with quality_score ${JSON.stringify(i.quality_score)}, not insightful, successful or unsuccessful`, ex);
}

/** One interview read: `translated` only off English and on every entry off it, its transcript in order, and question_answers indexed 0..n-1. */
function judgeInterview(i: any, ex: Exchange, out: Verdicts): void {
  if (isEnglish(i?.language)) out.verdict("implementation", SHOWN_RULES.translated, !carriesTranslated(i), `${ex.method} ${ex.url}: interview ${i.id} is in ${i.language} but its transcript carries \`translated\``, ex);
  // Off English (a language the read names, not undetermined), every entry of a completed transcript carries it.
  else if (i?.status === "completed" && translatable(i?.language) && Array.isArray(i.transcript) && i.transcript.length) {
    const without = i.transcript.filter((t: any) => typeof t?.translated !== "string").length;
    out.verdict("implementation", SHOWN_RULES.translated, without === 0, `${ex.method} ${ex.url}: interview ${i.id} is in ${i.language}, but ${without} of its ${i.transcript.length} transcript entries carry no \`translated\``, ex);
  }
  outcomeVerdicts(i, ex, out);
  if (Array.isArray(i?.transcript)) {
    const backwards = transcriptOutOfOrder(i.transcript);
    out.verdict("implementation", SHOWN_RULES.transcript, !backwards, `${ex.method} ${ex.url}: interview ${i.id}'s transcript is not in chronological order (time_in_call_secs ${JSON.stringify(backwards?.slice(0, 12))})`, ex);
  }
  if (i?.status === "completed" && typeof i.started_at === "string" && typeof i.completed_at === "string") {
    const times = completedTimes(i);
    out.verdict("implementation", SHOWN_RULES.interviewTimes, times.inOrder, `${ex.method} ${ex.url}: interview ${i.id} completed_at ${i.completed_at} is before started_at ${i.started_at}`, ex);
    out.verdict("implementation", SHOWN_RULES.duration, times.durationFits, `${ex.method} ${ex.url}: completed interview ${i.id} has duration_secs ${JSON.stringify(i.duration_secs)}, not a whole number of seconds between 0 and ${times.spanSecs.toFixed(1)} (started_at ${i.started_at}, completed_at ${i.completed_at})`, ex);
  }
  if (i?.status === "completed" && Array.isArray(i.question_answers)) {
    out.verdict("implementation", SHOWN_RULES.questionAnswers, questionAnswersAgree(i.question_answers), `${ex.method} ${ex.url}: question_answers' question_index ${JSON.stringify(i.question_answers.map((a: any) => a?.question_index))} is not 0..n-1, each once`, ex);
    if (Array.isArray(i.transcript)) {
      const outside = excerptsOutside(i.question_answers, i.transcript)[0];
      out.verdict("implementation", SHOWN_RULES.questionAnswers, !outside, `${ex.method} ${ex.url}: interview ${i.id} (${i.language}): the answer_excerpt ${JSON.stringify(outside?.excerpt)} of question ${outside?.question_index} is no ${outside?.excerpt?.role} entry's words in its transcript`, ex);
    }
  }
}

/** One page of a list: its size, its order, and what each list's items may show. */
function judgeList(operationId: string, body: { data: any[]; has_more?: unknown }, ex: Exchange, out: Verdicts): void {
  const items = body.data;
  const asked = ex.query.get("limit");
  const limit = asked === null ? 20 : Number(asked);
  out.verdict("implementation", acrossRules["page-size"], items.length <= limit, `${ex.method} ${ex.url}: ${items.length} items on a page of limit ${limit}${asked === null ? " (the default)" : ""}`, ex);
  if (body.has_more === true) out.verdict("implementation", acrossRules["page-size"], items.length === limit, `${ex.method} ${ex.url}: has_more is true on a page of ${items.length} items, not a full page of ${limit}`, ex);
  const order = LIST_ORDER[operationId];
  if (order) {
    const problem = orderProblem(items, { path: ex.path, ...order }, false);
    out.verdict("implementation", order.seedOrder ? paginationRules.order : paginationRules["pinned-order"], !problem, `${ex.method} ${ex.url}: ${problem}`, ex);
  }
  const filters = FILTERS[operationId]?.filter((f) => ex.query.has(f)) ?? [];
  if (filters.length) {
    const filter = Object.fromEntries(filters.map((f) => [f, ex.query.get(f)!]));
    const wrong = mismatching(items, filter)[0];
    out.verdict("implementation", SHOWN_RULES.filters, !wrong, `${ex.method} ${ex.url}: ${wrong?.id} is listed but does not match ${JSON.stringify(filter)} (${JSON.stringify(Object.fromEntries(filters.map((k) => [k, wrong?.[k]])))})`, ex);
  }
  if (operationId === "listChatMessages") {
    for (const m of items) for (const [rule, ok, message] of messageVerdicts(m, `message ${m?.id}`)) out.verdict("implementation", rule, ok, message, ex);
    for (const m of items) {
      const bad = (Array.isArray(m?.parts) ? m.parts : []).map(partProblem).find(Boolean);
      if (Array.isArray(m?.parts) && m.parts.length) out.verdict("implementation", SHOWN_RULES.publicParts, !bad, `${ex.method} ${ex.url}: message ${m?.id} has ${bad}`, ex);
    }
    // Evidence of "null when none" only on a page with a message that has none.
    const empty = noSourcesAsEmpty(items)[0];
    if (items.some((m) => m?.sources === null) || empty) out.verdict("implementation", SHOWN_RULES.nullForms, !empty, `${ex.method} ${ex.url}: message ${empty?.id} shows no sources as [], not null`, ex);
    const off = usageOffAssistant(items)[0];
    if (items.some((m) => m?.role !== "assistant")) out.verdict("implementation", SHOWN_RULES.usage, !off, `${ex.method} ${ex.url}: message ${off?.id} (role ${off?.role}) has usage ${JSON.stringify(off?.usage)}`, ex);
  }
  if (operationId === "listChats") {
    const internal = internallySourced(items)[0];
    out.verdict("implementation", SHOWN_RULES.chatsListed, !internal, `${ex.method} ${ex.url}: chat ${internal?.id} with internal-only source ${internal?.source} is listed`, ex);
  }
  if (operationId === "listStudies") {
    for (const study of items) acceptingVerdict(study, ex, out);
    const other = listedNotActive(items)[0];
    out.verdict("implementation", SHOWN_RULES.studiesActive, !other, `${ex.method} ${ex.url}: study ${other?.id} with status ${JSON.stringify(other?.status)} is listed; GET /v1/studies lists active studies`, ex);
  }
}
