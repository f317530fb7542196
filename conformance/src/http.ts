/**
 * The suite's HTTP client: every request is logged with a curl line that reproduces it (keys redacted), and
 * every answer is matched to its contract operation for the coverage guard.
 */
import { createParser } from "eventsource-parser";
import type { Rule } from "./rules.ts";
import { UUID_TEXT } from "../../lib/openapi-ajv.ts";
import { send, textOf, type Exchange } from "./transport.ts";

/** What the client needs of the contract: which operation a request is (the Contract class has this shape). */
export interface OperationMatcher {
  match(method: string, path: string): { operationId: string } | undefined;
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  body: any;
  curl: string;
  method: string;
  path: string;
}

export interface RequestInit {
  method?: string;
  /** `null` sends no Authorization header; default is the suite's API key. */
  key?: string | null;
  headers?: Record<string, string>;
  body?: unknown;
  rawBody?: string;
  /** Bytes sent as they are (what no string can carry: bytes that are not UTF-8). */
  rawBytes?: Uint8Array<ArrayBuffer>;
}

/**
 * Whether a Content-Type names JSON: `application/json`, parameters allowed. A media type's name is case-insensitive
 * (RFC 9110, 8.3.1), so `Application/JSON` is JSON; `application/json-patch+json` is another type.
 */
export const isJsonType = (type: string | null | undefined): boolean => /^\s*application\/json\s*(;|$)/i.test(type ?? "");

/** Whether a Content-Type names an event stream (`text/event-stream`, any case, parameters allowed). */
export const isEventStreamType = (type: string | null | undefined): boolean => /^\s*text\/event-stream\s*(;|$)/i.test(type ?? "");

/** A UUID, as the seed's ids are: the pattern the contract's `uuid` format validates with, not a copy of it. */
export const UUID = UUID_TEXT;

export const redact = (value: string) => value.replace(/((?:svc|pk)_live_)[A-Za-z0-9_]+/g, "$1…REDACTED");

export function curlOf(url: string, method: string, headers: Record<string, string>, body?: string | Uint8Array): string {
  const parts = ["curl", "-sS", "-i"];
  if (method !== "GET") parts.push("-X", method);
  for (const [k, v] of Object.entries(headers)) parts.push("-H", `'${redact(`${k}: ${v}`).replace(/'/g, "'\\''")}'`);
  // Bytes in bash's $'...' quoting: printable ASCII as it is, every other byte as \xHH.
  if (body instanceof Uint8Array) parts.push("--data-binary", `$'${[...body].map((c) => (c >= 0x20 && c < 0x7f && c !== 0x27 && c !== 0x5c ? String.fromCharCode(c) : `\\x${c.toString(16).padStart(2, "0")}`)).join("")}'`);
  else if (body !== undefined) parts.push("--data-raw", `'${body.replace(/'/g, "'\\''")}'`);
  // A key may travel in the query string too (the auth check sends one there to see it refused).
  parts.push(`'${redact(url).replace(/'/g, "'\\''")}'`);
  return parts.join(" ");
}

/**
 * Answers a service took long to give (≥ 100 ms), per origin: evidence of the service's own stalls. A retry the
 * service sent late while it also answered its API late is allowed that much (a process starved of CPU, or in a
 * long collection, runs its timers late and may even take a closed connection for its timeout); a retry late while
 * the API answered promptly is not. Shared by every client of the origin in this process, bounded.
 */
const slowAnswers = new Map<string, Array<{ sent: number; answered: number; what: string }>>();

/**
 * How long, within [from, to], `baseUrl`'s service had a request of ours unanswered (the union of those spans: a time
 * two requests waited together counts once), and the request that waited longest. The union, not the longest one: a
 * starved service is slow at every step of a retry (its timer, its database, its connection), each queued behind the
 * rest, so its lateness adds up over the stalls of a window (the CI of 77445cf: a retry after a 300 ms delay came 2.3 s
 * late with one read left unanswered 980 ms, the others too, one after another).
 */
export function serviceSlowness(baseUrl: string, from: number, to: number): { ms: number; what: string } {
  let worst = { ms: 0, what: "" };
  const spans: Array<[number, number]> = [];
  for (const a of slowAnswers.get(new URL(baseUrl).origin) ?? []) {
    const [start, end] = [Math.max(a.sent, from), Math.min(a.answered, to)];
    if (end <= start) continue;
    spans.push([start, end]);
    if (end - start > worst.ms) worst = { ms: end - start, what: a.what };
  }
  spans.sort((a, b) => a[0] - b[0]);
  let [total, reach] = [0, -Infinity];
  for (const [start, end] of spans) {
    if (end <= reach) continue;
    total += end - Math.max(start, reach);
    reach = end;
  }
  return { ms: total, what: worst.what };
}

function noteAnswerTime(baseUrl: string, sent: number, what: string): void {
  const answered = Date.now();
  if (answered - sent < 100) return;
  const origin = new URL(baseUrl).origin;
  const list = slowAnswers.get(origin) ?? [];
  if (!slowAnswers.has(origin)) slowAnswers.set(origin, list);
  list.push({ sent, answered, what });
  if (list.length > 2000) list.splice(0, list.length - 2000);
}

export class Http {
  /** Operation ids that returned a 2xx during the run. */
  readonly succeeded = new Set<string>();
  readonly requests: string[] = [];
  count = 0;
  /** Called with the curl line of every request (the model run logs its sequences through it). */
  tap: ((curl: string) => void) | null = null;

  constructor(readonly baseUrl: string, readonly apiKey: string, private readonly contract: OperationMatcher, private readonly timeoutMs: number) {}

  /** Per key: whether GET /v1/interviews needs `study_id` (needsStudyId). */
  private readonly interviewsNeedStudy = new Map<string, Promise<boolean>>();

  /**
   * Whether the interview list needs `study_id` with this key. The seed leaves it open ("Whether `study_id` is
   * mandatory on the interview list: not shown (every example supplies it)"), so it is settled by use: the list
   * without it refused with a 400 while the list of a study (one the key lists, or an id that names none) is answered
   * as a list. Such a target's whole interview list is the lists of the studies it lists, one after another (`walk`).
   */
  needsStudyId(init: RequestInit = {}): Promise<boolean> {
    const key = init.key === undefined ? this.apiKey : String(init.key);
    let settled = this.interviewsNeedStudy.get(key);
    if (!settled) {
      settled = (async () => {
        const plain = await this.req("/v1/interviews?limit=1", init);
        if (plain.status !== 400) return false;
        const study = (await this.req("/v1/studies?limit=1", init)).body?.data?.[0]?.id ?? NO_STUDY;
        const scoped = await this.req(`/v1/interviews?study_id=${study}&limit=1`, init);
        return scoped.status === 200 && Array.isArray(scoped.body?.data);
      })();
      this.interviewsNeedStudy.set(key, settled);
    }
    return settled;
  }

  /** Takes in what another client of the same run did: its requests count as this one's, its 2xx operations too. */
  absorb(other: Http): void {
    this.count += other.count;
    for (const op of other.succeeded) this.succeeded.add(op);
  }

  /** How long, within [from, to], the service left one request unanswered (see `serviceSlowness`). */
  slowness(from: number, to: number): { ms: number; what: string } {
    return serviceSlowness(this.baseUrl, from, to);
  }

  /**
   * Reads `path` every `everyMs` until the returned stop is awaited: while the suite waits on the service's timers
   * (retries), how long the service leaves one of these unanswered is the evidence of its own stalls (`slowness`). A
   * pulse is not one of the run's requests: not counted, logged or tapped.
   */
  pulse(path: string, everyMs = 200): () => Promise<void> {
    let on = true;
    const url = `${this.baseUrl}${path}`;
    const headers = { authorization: `Bearer ${this.apiKey}` };
    const loop = (async () => {
      while (on) {
        const sent = Date.now();
        try {
          await send(url, { headers, timeoutMs: this.timeoutMs });
        } catch {
          // A pulse that fails says nothing a check judges; its time still counts below.
        }
        noteAnswerTime(this.baseUrl, sent, `GET ${path.split("?")[0]}`);
        if (on) await new Promise((res) => setTimeout(res, everyMs));
      }
    })();
    return async () => {
      on = false;
      await loop;
    };
  }

  /** Notes the operation behind `method path` as having answered a 2xx (for the coverage check). */
  private recordSuccess(method: string, path: string, status: number): void {
    if (status < 200 || status >= 300) return;
    const op = this.contract.match(method, path.split("?")[0]);
    if (op) this.succeeded.add(op.operationId);
  }

  /**
   * Opens a Server-Sent Events stream and collects its `data:` lines until `until` holds for what arrived or
   * `waitMs` passes, then closes it. The status, and the events' data parsed as JSON.
   */
  async stream(path: string, until: (events: any[]) => boolean, waitMs: number, headers: Record<string, string> = {}): Promise<{ status: number; contentType: string | null; events: any[]; curl: string }> {
    const url = `${this.baseUrl}${path}`;
    const all = { authorization: `Bearer ${this.apiKey}`, accept: "text/event-stream", ...headers };
    const curl = curlOf(url, "GET", all).replace("curl -sS -i", "curl -sS -N -i");
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(), waitMs);
    // A stream answers its headers at once; one that does not within 3 s is not streaming.
    const headersTimer = setTimeout(() => stop.abort(), Math.min(3_000, waitMs));
    const events: any[] = [];
    let status = 0;
    let contentType: string | null = null;
    try {
      // fetch here, not the transport: a stream's body is read as it comes, and a run opens only a handful.
      const res = await fetch(url, { headers: all, signal: stop.signal });
      clearTimeout(headersTimer);
      status = res.status;
      contentType = res.headers.get("content-type");
      this.recordSuccess("GET", path, res.status);
      if (!res.ok || !res.body) return { status, contentType, events, curl };
      // The SSE wire format in full (CRLF or LF, multi-line data, comments): an implementation may use any of it.
      const parser = createParser({ onEvent: (e) => void events.push(JSON.parse(e.data)) });
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      while (!until(events)) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.feed(decoder.decode(value, { stream: true }));
      }
      await reader.cancel().catch(() => undefined);
    } catch (err) {
      if (!stop.signal.aborted) throw new Error(`stream failed (${(err as Error).message})\n  reproduce: ${curl}`);
    } finally {
      clearTimeout(timer);
      clearTimeout(headersTimer);
      stop.abort();
    }
    return { status, contentType, events, curl };
  }

  /** One request and its answer; a `text/event-stream` answer is returned at its headers, with an empty text. */
  async req(path: string, init: RequestInit = {}): Promise<Reply> {
    const method = init.method ?? "GET";
    const headers: Record<string, string> = { ...init.headers };
    const key = init.key === undefined ? this.apiKey : init.key;
    if (key !== null && headers.authorization === undefined && headers.Authorization === undefined) headers.authorization = `Bearer ${key}`;
    let body: string | Uint8Array<ArrayBuffer> | undefined = init.rawBytes ?? init.rawBody;
    if (init.body !== undefined) {
      body = JSON.stringify(init.body);
      headers["content-type"] ??= "application/json";
    }
    const url = `${this.baseUrl}${path}`;
    const curl = curlOf(url, method, headers, body);
    this.count++;
    this.tap?.(curl);
    let res: Exchange;
    let sent: number;
    for (let attempt = 0; ; attempt++) {
      sent = Date.now();
      try {
        // A stream is judged by its status and headers: its body never ends while the stream is live, so it is not read.
        res = await send(url, { method, headers, body, timeoutMs: this.timeoutMs, keepBody: (h) => !isEventStreamType(h.get("content-type")) });
      } catch (err) {
        throw new Error(`request failed (${(err as Error).message})\n  reproduce: ${curl}`);
      }
      // The seed leaves rate limits open ("Request rate limits: not shown"): a 429 is waited out as it asks, and the
      // request sent again, as a client does; the report says how often and how long (rateLimits).
      if (res.status !== 429 || attempt >= RATE_RETRIES) break;
      const wait = retryAfterMs(res.headers.get("retry-after"), attempt);
      if (wait > MAX_RATE_WAIT_MS) break;
      const origin = new URL(this.baseUrl).origin;
      const tally = rateLimited.get(origin) ?? { requests: 0, waitedMs: 0 };
      rateLimited.set(origin, { requests: tally.requests + 1, waitedMs: tally.waitedMs + wait });
      await new Promise((ok) => setTimeout(ok, wait));
    }
    const text = textOf(res.bytes);
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    this.recordSuccess(method, path, res.status);
    noteAnswerTime(this.baseUrl, sent, `${method} ${path.split("?")[0]}`);
    if (this.requests.length < 5000) this.requests.push(curl);
    return { status: res.status, headers: res.headers, text, body: parsed, curl, method, path };
  }

  /**
   * Every item of a list, following `starting_after` until `has_more` is false (bounded; `complete` is false when
   * maxPages cut it). A list that refuses the first page at `limit` (a 400) is walked again at the seed's default
   * page size of 20, so the checks that only need the data keep running; `limit` says which size the walk used, and
   * the pagination check's `max-page-size` rule names the refusal. An interview list without `study_id` refused by a
   * target that needs it is walked study by study (`walkByStudy`).
   */
  async walk(path: string, limit: number, init: RequestInit = {}, maxPages = 20_000, fallback = true): Promise<Walk> {
    const items: any[] = [];
    const pages: Reply[] = [];
    const cursors = new Set<string>();
    let after: string | undefined;
    for (let n = 0; n < 20_000; n++) {
      if (n >= maxPages) return { items, pages, complete: false, limit };
      const sep = path.includes("?") ? "&" : "?";
      const page = await this.req(`${path}${sep}limit=${limit}${after ? `&starting_after=${after}` : ""}`, init);
      pages.push(page);
      if (n === 0 && page.status === 400 && unscopedInterviews(path) && (await this.needsStudyId(init))) return this.walkByStudy(path, limit, init, maxPages);
      if (n === 0 && page.status === 400 && fallback && limit > 20) return this.walk(path, 20, init, maxPages, false);
      if (page.status !== 200 || !Array.isArray(page.body?.data)) throw new CheckFailure(`${path} answered ${page.status} during a walk`, { reply: page });
      items.push(...page.body.data);
      if (!page.body.has_more || page.body.data.length === 0) return { items, pages, complete: true, limit };
      after = page.body.data[page.body.data.length - 1].id as string;
      // A cursor used twice means the walk would loop forever: fail now with the page that repeats it.
      if (cursors.has(after)) throw new CheckFailure(`${path}: page ${n + 1} ends with ${after} again, so the walk never ends`, { reply: page });
      cursors.add(after);
    }
    throw new CheckFailure(`${path}: the walk did not end after 20000 pages`, {});
  }

  /**
   * The interview list (with `path`'s filters) of a target that needs `study_id`: the list of each study the key lists,
   * one after another, in the order the studies are listed. Interviews of studies it does not list (paused, draft)
   * are not in it; `scoped` says so, for the judgements that need the unfiltered list itself.
   */
  private async walkByStudy(path: string, limit: number, init: RequestInit, maxPages: number): Promise<Walk> {
    const studies = (await this.walk("/v1/studies", 100, init)).items;
    const whole: Walk = { items: [], pages: [], complete: true, limit, scoped: true };
    const sep = path.includes("?") ? "&" : "?";
    for (const study of studies) {
      const w = await this.walk(`${path}${sep}study_id=${encodeURIComponent(String(study.id))}`, limit, init, maxPages);
      whole.items.push(...w.items);
      whole.pages.push(...w.pages);
      whole.complete &&= w.complete;
      whole.limit = w.limit;
    }
    return whole;
  }
}

/** A walk's items and pages; `scoped`: an interview list walked study by study (Http.needsStudyId). */
export interface Walk {
  items: any[];
  pages: Reply[];
  complete: boolean;
  limit: number;
  scoped?: boolean;
}

/** 429s waited out, per origin: how many, and how long in all. */
const rateLimited = new Map<string, { requests: number; waitedMs: number }>();
/** A request answered 429 is sent again at most this many times, and never after a wait longer than this. */
const RATE_RETRIES = 6;
const MAX_RATE_WAIT_MS = 30_000;

/** The 429s the suite waited out on `baseUrl`'s origin so far in this process. */
export function rateLimits(baseUrl: string): { requests: number; waitedMs: number } {
  return { ...(rateLimited.get(new URL(baseUrl).origin) ?? { requests: 0, waitedMs: 0 }) };
}

/** A Retry-After header in milliseconds from `now`: delta-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number): number | null {
  if (value === null || value.trim() === "") return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1_000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** How long a 429 asks to wait: its Retry-After; without one, 1 s doubled each time, up to 8 s. */
export function retryAfterMs(value: string | null, attempt: number): number {
  return parseRetryAfter(value, Date.now()) ?? Math.min(8_000, 1_000 * 2 ** attempt);
}

/** An id that names no study, for a probe of a list that needs `study_id` when the key lists no study. */
const NO_STUDY = "00000000-0000-4000-8000-000000000000";

/** `GET /v1/interviews` without `study_id` (with or without other filters). */
function unscopedInterviews(path: string): boolean {
  const u = new URL(path, "http://list.invalid");
  return u.pathname === "/v1/interviews" && !u.searchParams.has("study_id");
}

/** A check's failure: what went wrong, the request that shows it, and (from fast-check) the counterexample. */
export class CheckFailure extends Error {
  readonly reply?: Reply;
  readonly details?: unknown;
  /** The rule it breaks, when known (a walk that cannot go on has none: it stops the check). */
  readonly rule?: Rule;
  constructor(message: string, extra: { reply?: Reply; details?: unknown; rule?: Rule }) {
    super(message);
    this.reply = extra.reply;
    this.details = extra.details;
    this.rule = extra.rule;
  }
}

/** The message and details of an error body, read leniently: the seed fixes the message text and a `details` array, not where they sit. */
export function errorMessage(body: any): string | undefined {
  if (typeof body?.error?.message === "string") return body.error.message;
  if (typeof body?.error === "string") return body.error;
  return typeof body?.message === "string" ? body.message : undefined;
}

export function errorDetails(body: any): any[] | undefined {
  const d = body?.error?.details ?? body?.details ?? body?.errors;
  return Array.isArray(d) ? d : undefined;
}

/** Whether a validation issue names `field`, however the implementation writes it (field, param, path, loc, a key, the text). */
export function issueNames(d: unknown, field: string): boolean {
  if (typeof d === "string") return new RegExp(`\\b${field}\\b`).test(d);
  if (d === null || typeof d !== "object") return false;
  const o = d as Record<string, unknown>;
  for (const key of ["field", "param", "parameter", "name", "path", "loc", "location", "pointer"]) {
    const v = o[key];
    if (v === field || (typeof v === "string" && v.split(/[./]/).includes(field)) || (Array.isArray(v) && v.includes(field))) return true;
  }
  return field in o;
}
