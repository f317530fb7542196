/**
 * One broken variant (at least) for every seed statement the suite enforces: each breaks what one statement says, in
 * the way an implementation written from the seed could get it wrong, and names the seed rule that must catch it at
 * --level seed with a random --seed. The matrix test fails when an enforced statement has none.
 */
import { createHmac } from "node:crypto";
import type { Exchange, Mutation } from "./proxy.ts";
import { ACME, auth, isList, webhookRelay, type Variant } from "./variants.ts";

type Change = Omit<Mutation, "name">;

/** Calls `fn` on every object inside a JSON value (depth first, parents before children). */
function visit(value: any, fn: (o: any) => void): void {
  if (Array.isArray(value)) for (const v of value) visit(v, fn);
  else if (value && typeof value === "object") {
    fn(value);
    for (const v of Object.values(value)) visit(v, fn);
  }
}

const UUID_PATH = /^\/api\/v1\/(studies|interviews|releases|chats)\/[0-9a-f-]{36}$/;

/** Rewrites every resource object of a kind (`object` field) in every answer, list items and retrievals alike. */
const objects = (kind: string, fn: (o: any, ex: Exchange) => void): Change => ({
  response(ex) {
    if (ex.status < 300) visit(ex.body, (o) => o.object === kind && fn(o, ex));
  },
});
/** Rewrites retrievals only (detail objects of a kind). */
const details = (kind: string, fn: (o: any, ex: Exchange) => void): Change => ({
  response(ex) {
    if (ex.status === 200 && UUID_PATH.test(ex.path) && ex.body?.object === kind) fn(ex.body, ex);
  },
});
/** Rewrites list items only. */
const items = (path: string, fn: (o: any, ex: Exchange) => void): Change => ({
  response(ex) {
    if (ex.status === 200 && ex.path === path && isList(ex.body)) for (const o of ex.body.data) fn(o, ex);
  },
});
/** Rewrites message parts of a type. */
const parts = (type: string, fn: (p: any) => void): Change => ({
  response(ex) {
    if (ex.status === 200 && ex.path.endsWith("/messages") && isList(ex.body)) for (const m of ex.body.data) for (const p of m.parts ?? []) if (p?.type === type) fn(p);
  },
});

function variant(check: string, rule: string, breaks: string[], name: string, change: Change, extra: Partial<Variant> = {}): Variant {
  return { caughtBy: check, only: [check], seedRule: true, rule, breaks, mutation: { name, ...change }, ...extra };
}
/** Broken field types, caught by response.body wherever the schema check reads them. */
const body = (breaks: string[], name: string, change: Change) => variant("schema", "response.body", breaks, name, change);
/** Broken planted values, caught by the fields check (whose replies are judged too). */
const planted = (rule: string, breaks: string[], name: string, change: Change) => variant("fields", rule, breaks, name, change);

const sign = (secret: string, raw: Buffer) => `sha256=${createHmac("sha256", secret).update(raw).digest("hex")}`;
/** A relay that rewrites the payload of every attempt and signs it again with the real secret. */
function payload(breaks: string[], rule: string, name: string, fn: (p: any) => void, check = "webhooks"): Variant {
  const { relay, mutation } = webhookRelay((raw, headers, secret) => {
    const p = JSON.parse(raw.toString("utf8"));
    fn(p);
    const out = Buffer.from(JSON.stringify(p));
    return { body: out, headers: { ...headers, "x-webhook-signature": sign(secret, out) } };
  });
  return { caughtBy: check, only: [check], seedRule: true, rule, breaks, relay, mutation: { ...mutation, name } };
}

function webhookVariants(): Variant[] {
  const out: Variant[] = [];
  const field = (id: string, f: string, bad: unknown) => out.push(payload([id], "webhooks.payload", `webhook data.${f} sent as ${JSON.stringify(bad)}`, (p) => void (p.data[f] = bad)));
  out.push(payload(["payload.event"], "webhooks.payload", "webhook event named interview_completed", (p) => void (p.event = "interview_completed")));
  out.push(payload(["payload.timestamp"], "webhooks.timestamp", "webhook timestamp is the interview's start, not when the event was sent", (p) => void (p.timestamp = p.data.started_at)));
  out.push(payload(["payload.interview-id"], "webhooks.payload", "webhook data.interview_id without hyphens", (p) => void (p.data.interview_id = String(p.data.interview_id).replace(/-/g, ""))));
  field("payload.study-id", "study_id", 12);
  field("payload.study-name", "study_name", 12);
  out.push(payload(["payload.session-id"], "webhooks.payload", "webhook data.session_id sent as null", (p) => void (p.data.session_id = null)));
  out.push(payload(["payload.experiment-id", "versioning.aliases"], "webhooks.aliases", "webhook data.experiment_id not equal to study_id", (p) => void (p.data.experiment_id = "00000000-0000-4000-8000-000000000001")));
  out.push(payload(["payload.experiment-name"], "webhooks.aliases", "webhook data.experiment_name missing", (p) => void delete p.data.experiment_name));
  field("payload.interview-link", "interview_link", 7);
  out.push(payload(["payload.status"], "webhooks.payload", "webhook data.status is processing", (p) => void (p.data.status = "processing")));
  field("payload.started-at", "started_at", null);
  field("payload.completed-at", "completed_at", 1767225600);
  field("payload.duration", "duration_secs", "42");
  field("payload.quality-score", "quality_score", "great");
  field("payload.language", "language", 1);
  field("payload.reference-id", "reference_id", 18236);
  field("payload.respondent-email", "respondent_email", false);
  out.push(payload(["payload.respondent-id"], "webhooks.respondent-id", "webhook data.respondent_id always null", (p) => void (p.data.respondent_id = null)));
  return out;
}

function deliveryVariants(): Variant[] {
  const out: Variant[] = [];
  // Deliveries go to a URL nobody listens on: nothing is ever delivered.
  out.push(variant("webhooks", "webhooks.delivered", ["events.emitted-by", "service.webhook", "events.sent-to"], "webhooks sent to a dead URL (nothing delivered)", {
    request(ex) { if (ex.method === "PUT" && ex.path === "/api/v1/webhooks" && typeof ex.requestBody?.url === "string") ex.requestBody = { ...ex.requestBody, url: "http://127.0.0.1:9/dead" }; },
    response(ex) { if (ex.path === "/api/v1/webhooks" && ex.body?.url === "http://127.0.0.1:9/dead") ex.body.url = "unchanged"; },
  }));
  // A held interview is completed at once (hold ignored) but reads as started on its first retrieval.
  out.push(variant("webhooks", "webhooks.after-completion", ["transitions.interview"], "an interview delivered before it completes", {
    request(ex) { if (ex.method === "POST" && ex.path === "/api/_sim/interviews" && ex.requestBody?.hold) ex.requestBody = { ...ex.requestBody, hold: false }; },
    async response(ex, proxy) {
      if (ex.method === "POST" && ex.path === "/api/_sim/interviews" && ex.status === 201 && proxy.memory.size === 0) { proxy.memory.set("held", ex.body.id); ex.body.status = "started"; }
      const held = proxy.memory.get("held");
      if (held && ex.path === `/api/v1/interviews/${held}` && !proxy.memory.has("read")) { proxy.memory.set("read", true); ex.body.status = "started"; }
      if (held && ex.path === `/api/_sim/interviews/${held}/complete`) Object.assign(ex, (await ex.upstream(`/api/v1/interviews/${held}`, { headers: auth(ex) })));
    },
  }));
  // Planting a chat also sends a signed chat.created to the webhook.
  out.push(variant("webhooks", "webhooks.only-interviews", ["events.only-interview"], "a chat.created event sent when a chat is created", {
    async response(ex, proxy) {
      if (ex.method === "PUT" && ex.path === "/api/v1/webhooks" && ex.status < 300) proxy.memory.set("url", ex.requestBody?.url);
      if (ex.body?.signing_secret) proxy.memory.set("secret", ex.body.signing_secret);
      const url = proxy.memory.get("url");
      if (ex.method === "POST" && ex.path === "/api/_sim/chats" && ex.status === 201 && url) {
        const raw = Buffer.from(JSON.stringify({ event: "chat.created", timestamp: new Date().toISOString(), data: { chat_id: ex.body.id } }));
        await fetch(url, { method: "POST", headers: { "content-type": "application/json", "x-webhook-event": "chat.created", "x-webhook-signature": sign(proxy.memory.get("secret") ?? "", raw) }, body: raw }).catch(() => undefined);
      }
    },
  }));
  out.push(variant("webhooks", "webhooks.recreate", ["auth.webhook-delete"], "a re-created webhook keeps the old signing secret in its answer", {
    response(ex, proxy) {
      if (ex.method !== "PUT" || ex.path !== "/api/v1/webhooks" || !ex.body?.signing_secret) return;
      if (!proxy.memory.has("first")) proxy.memory.set("first", ex.body.signing_secret);
      else ex.body.signing_secret = proxy.memory.get("first");
    },
  }));
  out.push(variant("webhooks", "webhooks.required-fields", ["endpoints.put-webhook", "errors.400"], "a PUT without events defaults them instead of answering 400", {
    request(ex) { if (ex.method === "PUT" && ex.path === "/api/v1/webhooks" && ex.requestBody && typeof ex.requestBody === "object" && !("events" in ex.requestBody)) ex.requestBody = { ...ex.requestBody, events: ["interview.completed"] }; },
  }));
  out.push(variant("webhooks", "webhooks.url-validated", ["webhook-config.url"], "an ftp: webhook url accepted", {
    request(ex) { if (ex.method === "PUT" && ex.path === "/api/v1/webhooks" && String(ex.requestBody?.url).startsWith("ftp:")) ex.requestBody = { ...ex.requestBody, url: "https://hooks.example.com/a" }; },
  }));
  out.push(variant("webhooks", "webhooks.url-validated", ["webhook-config.url"], "plain http: webhook urls to any host accepted", {
    request(ex) { if (ex.method === "PUT" && ex.path === "/api/v1/webhooks" && String(ex.requestBody?.url).startsWith("http://hooks.example.com")) ex.requestBody = { ...ex.requestBody, url: "https://hooks.example.com/a" }; },
  }));
  out.push(variant("webhooks", "webhooks.events-only", ["webhook-config.events", "limits.subscription"], "unknown event types accepted in events", {
    request(ex) { if (ex.method === "PUT" && ex.path === "/api/v1/webhooks" && Array.isArray(ex.requestBody?.events) && ex.requestBody.events.some((e: string) => e !== "interview.completed")) ex.requestBody = { ...ex.requestBody, events: ["interview.completed"] }; },
  }));
  out.push(variant("webhooks", "webhooks.subscribed-only", ["events.sent-to"], "events: [] accepted, and interviews still delivered", {
    request(ex) { if (ex.method === "PUT" && ex.path === "/api/v1/webhooks" && Array.isArray(ex.requestBody?.events) && ex.requestBody.events.length === 0) ex.requestBody = { ...ex.requestBody, events: ["interview.completed"] }; },
  }));
  out.push(variant("webhooks", "webhooks.create", ["errors.201", "webhook-config.secret"], "the first PUT answers 200", { response(ex) { if (ex.method === "PUT" && ex.path === "/api/v1/webhooks" && ex.status === 201) ex.status = 200; } }));
  out.push(variant("webhooks", "webhooks.update", ["webhook-config.secret"], "every PUT answers the signing secret", {
    response(ex, proxy) {
      if (ex.body?.signing_secret) proxy.memory.set("secret", ex.body.signing_secret);
      if (ex.method === "PUT" && ex.path === "/api/v1/webhooks" && ex.status === 200) ex.body.signing_secret = proxy.memory.get("secret");
    },
  }, { message: /the update answer showed the signing secret again/ }));
  out.push(variant("webhooks", "webhooks.update", ["webhook-config.one", "limits.one-webhook"], "a second PUT keeps the first webhook's url", {
    response(ex, proxy) {
      if (ex.method === "PUT" && ex.path === "/api/v1/webhooks" && ex.status === 201) proxy.memory.set("url", ex.requestBody.url);
      if (ex.method === "GET" && ex.path === "/api/v1/webhooks" && ex.status === 200 && proxy.memory.has("url")) ex.body.url = proxy.memory.get("url");
    },
  }));
  out.push(variant("webhooks", "webhooks.secret-hidden", ["endpoints.get-webhook"], "GET /v1/webhooks shows the signing secret", {
    response(ex, proxy) {
      if (ex.body?.signing_secret) proxy.memory.set("secret", ex.body.signing_secret);
      if (ex.method === "GET" && ex.path === "/api/v1/webhooks" && ex.status === 200) ex.body.signing_secret = proxy.memory.get("secret");
    },
  }, { message: /the signing secret was present in the GET \/v1\/webhooks body/ }));
  out.push(variant("webhooks", "webhooks.delete-204", ["endpoints.delete-webhook", "errors.204"], "DELETE /v1/webhooks answers 200 with a body", {
    response(ex) { if (ex.method === "DELETE" && ex.path === "/api/v1/webhooks" && ex.status === 204) Object.assign(ex, { status: 200, body: { deleted: true }, headers: { ...ex.headers, "content-type": "application/json" } }); },
  }, { message: /the 204 carried a body|answered 200, not 204/ }));
  const put = webhookRelay((raw, headers) => ({ body: raw, headers }));
  put.relay.method = "PUT";
  out.push({ caughtBy: "webhooks", only: ["webhooks"], seedRule: true, rule: "webhooks.headers", breaks: ["events.method"], relay: put.relay, mutation: { ...put.mutation, name: "deliveries sent with PUT" } });
  const textPlain = webhookRelay((raw, headers) => ({ body: raw, headers: { ...headers, "content-type": "text/plain" } }));
  out.push({ caughtBy: "webhooks", only: ["webhooks"], seedRule: true, rule: "webhooks.headers", breaks: ["events.content-type"], relay: textPlain.relay, mutation: { ...textPlain.mutation, name: "deliveries sent as text/plain" } });
  // The relay answers the server 200 when the receiver refused with 401: a rejection counts as delivered.
  const accepting = webhookRelay((raw, headers) => ({ body: raw, headers }));
  accepting.relay.respond = (status) => (status === 401 ? 200 : status);
  out.push({ caughtBy: "retries", only: ["retries"], seedRule: true, rule: "webhooks.retries", breaks: ["events.verify"], relay: accepting.relay, mutation: { ...accepting.mutation, name: "a 401 from the receiver counts as delivered (no retry)" } });
  // A success after a failure is passed on as a failure: retries go on after a 2xx.
  const seen = new Map<string, number>();
  const onAfter2xx = webhookRelay((raw, headers) => ({ body: raw, headers }));
  onAfter2xx.relay.respond = (status, raw) => {
    const id = String(JSON.parse(raw.toString("utf8"))?.data?.interview_id);
    const n = (seen.get(id) ?? 0) + 1;
    seen.set(id, n);
    return n === 2 && status < 300 ? 500 : status;
  };
  out.push({ caughtBy: "retries", only: ["retries"], seedRule: true, rule: "webhooks.stop-on-2xx", breaks: ["delivery.retries"], relay: onAfter2xx.relay, mutation: { ...onAfter2xx.mutation, name: "retries go on after a 2xx" } });
  out.push({ caughtBy: "retries", only: ["retries"], seedRule: true, rule: "webhooks.retry-count", breaks: ["delivery.dropped", "limits.retries"], server: { webhookRetryDelaysMs: [400, 800, 1200, 400] }, mutation: { name: "a fourth retry before the event is dropped" } });
  const sessions = new Map<string, number>();
  out.push(payload(["delivery.duplicates"], "webhooks.dedupe-key", "every retry carries a new session_id", (p) => {
    const n = (sessions.get(p.data.interview_id) ?? 0) + 1;
    sessions.set(p.data.interview_id, n);
    if (n > 1) p.data.session_id = `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
  }, "retries"));
  // Told the timeout is 2 s, but the server waits 4 s: an answer 3.5 s late is taken as a delivery.
  out.push({ caughtBy: "retries", only: ["retries"], seedRule: true, rule: "webhooks.timeout", breaks: ["delivery.timeout", "limits.receiver-timeout"], server: { webhookRetryDelaysMs: [400, 800, 1200], webhookTimeoutMs: 4000 }, options: { slowReceiver: true, webhookTimeoutMs: 2000 }, mutation: { name: "the receiver timeout is 4 s, not the configured 2 s" } });
  return out;
}

function fieldTypeVariants(): Variant[] {
  const noHyphens = (id: unknown) => String(id).replace(/-/g, "");
  return [
    body(["resources.ids", "message.id"], "message ids that are not UUIDs", { response(ex) { if (ex.path.endsWith("/messages") && isList(ex.body)) for (const m of ex.body.data) m.id = `msg_${noHyphens(m.id).slice(0, 12)}`; } }),
    body(["resources.object", "interview.object"], "interview objects named Interview", objects("interview", (o) => void (o.object = "Interview"))),
    body(["list.object"], "lists whose object is collection", { response(ex) { if (isList(ex.body)) ex.body.object = "collection"; } }),
    body(["study.id"], "study ids without hyphens", objects("study", (o) => void (o.id = noHyphens(o.id)))),
    body(["study.object"], "study objects named Study", objects("study", (o) => void (o.object = "Study"))),
    body(["study.name"], "study name as a number", objects("study", (o) => void (o.name = 7))),
    body(["study.status", "states.study"], "a study status archived", objects("study", (o) => void (o.status = "archived"))),
    body(["study.interview-link", "service.study-link"], "interview_link that is not a URL", objects("study", (o) => void (o.interview_link = "interview link"))),
    body(["study.languages"], "supported_languages as one string", objects("study", (o) => void (o.supported_languages = "en"))),
    body(["study.limits"], "limits without weekly", objects("study", (o) => void delete o.limits.weekly)),
    body(["study.monthly-limit"], "limits.monthly.limit as a string", objects("study", (o) => void (o.limits.monthly.limit = "unlimited"))),
    body(["study.weekly-limit"], "limits.weekly.limit as a string", objects("study", (o) => void (o.limits.weekly.limit = "none"))),
    body(["study.created-at"], "study created_at as epoch seconds", objects("study", (o) => void (o.created_at = 1767225600))),
    body(["endpoints.get-study"], "a study retrieval without its questions", details("study", (o) => void delete o.questions)),
    body(["interview.id"], "interview ids without hyphens", details("interview", (o) => void (o.id = noHyphens(o.id)))),
    body(["interview.study-id"], "interview study_id as a number", objects("interview", (o) => void (o.study_id = 1))),
    body(["interview.status", "states.interview"], "an interview status finished", objects("interview", (o) => void (o.status = "finished"))),
    body(["interview.language"], "interview language as a number", objects("interview", (o) => void (o.language = 0))),
    body(["interview.quality-score"], "quality_score good", objects("interview", (o) => void (o.status === "completed" && (o.quality_score = "good")))),
    body(["interview.duration"], "duration_secs as a string", objects("interview", (o) => void (o.status === "completed" && (o.duration_secs = `${o.duration_secs}s`)))),
    body(["interview.headline"], "headline as a number", objects("interview", (o) => void (o.status === "completed" && (o.headline = 1)))),
    body(["interview.summary"], "summary as an array", objects("interview", (o) => void (o.status === "completed" && (o.summary = [o.summary])))),
    body(["interview.started-at"], "started_at as a date only", objects("interview", (o) => void (o.started_at = String(o.started_at).slice(0, 10)))),
    body(["interview.completed-at"], "completed_at as epoch milliseconds", objects("interview", (o) => void (o.status === "completed" && (o.completed_at = Date.parse(o.completed_at))))),
    body(["interview.created-at"], "interview created_at missing", objects("interview", (o) => void delete o.created_at)),
    body(["interview.time-in-call"], "time_in_call_secs as a string", details("interview", (o) => void (o.transcript ?? []).forEach((t: any) => (t.time_in_call_secs = `${t.time_in_call_secs}`)))),
    body(["endpoints.get-interview"], "an interview retrieval without transcript", details("interview", (o) => void delete o.transcript)),
    body(["release.id"], "release ids without hyphens", objects("release", (o) => void (o.id = noHyphens(o.id)))),
    body(["release.object"], "release objects named pull_request", objects("release", (o) => void (o.object = "pull_request"))),
    body(["release.status", "states.release"], "a release status merged", objects("release", (o) => void (o.status = "merged"))),
    body(["release.chat-id"], "release chat_id as a number", objects("release", (o) => void (o.chat_id = 3))),
    body(["release.pr-number"], "vcs_pr_number as #123", objects("release", (o) => void (o.vcs_pr_number = `#${o.vcs_pr_number}`))),
    body(["release.pr-title"], "vcs_pr_title null", objects("release", (o) => void (o.vcs_pr_title = null))),
    body(["release.pr-description", "endpoints.get-release"], "a release retrieval without vcs_pr_description", details("release", (o) => void delete o.vcs_pr_description)),
    body(["release.pr-url"], "vcs_pr_url that is not a URL", objects("release", (o) => void (o.vcs_pr_url = "pull 12"))),
    body(["release.pr-author"], "vcs_pr_author as an object", objects("release", (o) => void (o.vcs_pr_author = { login: o.vcs_pr_author }))),
    body(["release.merged-at"], "merged_at as a date only", objects("release", (o) => void (o.merged_at = String(o.merged_at).slice(0, 10)))),
    body(["release.last-analysis"], "last_analysis_at an empty string when none yet", objects("release", (o) => void (o.last_analysis_at === null && (o.last_analysis_at = "")))),
    body(["release.created-at"], "release created_at null", objects("release", (o) => void (o.created_at = null))),
    body(["chat.id"], "chat ids without hyphens", objects("chat", (o) => void (o.id = noHyphens(o.id)))),
    body(["chat.object"], "chat objects named conversation", objects("chat", (o) => void (o.object = "conversation"))),
    body(["chat.message-count"], "message_count as a string", details("chat", (o) => void (o.message_count = String(o.message_count)))),
    body(["chat.created-at"], "chat created_at as epoch seconds", objects("chat", (o) => void (o.created_at = 1767225600))),
    body(["message.object"], "message objects named chat_message", objects("message", (o) => void (o.object = "chat_message"))),
    body(["message.role"], "a message role bot", objects("message", (o) => void (o.role === "assistant" && (o.role = "bot")))),
    body(["message.created-at"], "message created_at as a number", objects("message", (o) => void (o.created_at = 0))),
    body(["message.completed-at"], "message completed_at as true", objects("message", (o) => void (o.completed_at !== null && (o.completed_at = true)))),
    planted("response.body", ["message.parts"], "parts as an object keyed by index", objects("message", (o) => void (o.parts = { ...o.parts }))),
    planted("response.body", ["message.sources"], "sources as one string", objects("message", (o) => void (Array.isArray(o.sources) && (o.sources = o.sources.map((s: any) => s.id).join(","))))),
    planted("response.body", ["message.feedback"], "feedback thumbs_up", objects("message", (o) => void (o.feedback === "positive" && (o.feedback = "thumbs_up")))),
    planted("response.body", ["usage.fields"], "usage cost_usd as a string", objects("message", (o) => void (o.usage && (o.usage.cost_usd = String(o.usage.cost_usd))))),
    planted("response.body", ["source.fields"], "a source's rows as a string", objects("message", (o) => void (o.sources ?? []).forEach((s: any) => (s.rows = `${s.rows}`)))),
    planted("response.body", ["chat.title"], "chat title as a boolean", objects("chat", (o) => void (o.title = false))),
    planted("response.body", ["chat.source"], "chat source as a number", objects("chat", (o) => void (o.source = 1))),
    planted("response.body", ["chat.is-streaming"], "is_streaming as yes", objects("chat", (o) => void (o.is_streaming = "yes"))),
    planted("response.body", ["part.text"], "a text part's text as an array", parts("text", (p) => void (p.text = [p.text]))),
    planted("response.body", ["part.thinking"], "a thinking part's thinking as a number", parts("thinking", (p) => void (p.thinking = 1))),
    planted("response.body", ["part.file"], "a file part without media_type", parts("file", (p) => void delete p.media_type)),
    planted("response.body", ["part.tool-use"], "a tool_use part without summary", parts("tool_use", (p) => void delete p.summary)),
    planted("response.body", ["part.tool-result"], "tool_result is_error as a string", parts("tool_result", (p) => void (p.is_error = String(p.is_error)))),
    planted("fields.planted-values", ["part.redacted-thinking"], "redacted_thinking parts carry the reasoning", parts("redacted_thinking", (p) => void (p.thinking = "the hidden reasoning"))),
    planted("response.body", ["part.discriminated"], "parts without their type", objects("message", (o) => void (o.parts ?? []).forEach((p: any) => delete p.type))),
    variant("schema", "response.json", ["conventions.json"], "errors answered as text/html", {
      response(ex) { if (ex.status === 404) Object.assign(ex, { body: "<html><body>Not Found</body></html>", headers: { ...ex.headers, "content-type": "text/html" } }); },
    }),
    variant("schema", "response.timestamps", ["resources.timestamps"], "timestamps without milliseconds", objects("study", (o) => void (o.created_at = String(o.created_at).replace(/\.\d{3}Z$/, "Z")))),
    variant("schema", "response.detail-only", ["interview.detail-only", "endpoints.list-interviews"], "transcripts in interview list items", items("/api/v1/interviews", (o) => void (o.transcript = []))),
    variant("schema", "response.detail-only", ["release.pr-description"], "vcs_pr_description in release list items", items("/api/v1/releases", (o) => void (o.vcs_pr_description = "leaked"))),
    variant("schema", "response.detail-only", ["chat.message-count", "endpoints.list-chats"], "message_count in chat list items", items("/api/v1/chats", (o) => void (o.message_count = 1))),
    variant("schema", "schema.bad-json", ["errors.400", "endpoints.put-webhook"], "a mistyped webhook body accepted", {
      request(ex) { if (ex.method === "PUT" && ex.path === "/api/v1/webhooks" && typeof ex.requestBody?.url === "number") ex.requestBody = { url: `https://hooks.example.com/${ex.requestBody.url}`, events: ["interview.completed"] }; },
    }),
    variant("schema", "schema.non-uuid-id", ["endpoints.uuid-paths"], "a non-UUID id answers the first item", {
      async response(ex) {
        const m = /^\/api\/v1\/(studies|interviews|releases|chats)\/not-a-uuid$/.exec(ex.path);
        if (!m) return;
        const page = await ex.upstream(`/api/v1/${m[1]}?limit=1`, { headers: auth(ex) });
        if (page.body?.data?.[0]) Object.assign(ex, { status: 200, body: page.body.data[0] });
      },
    }),
    variant("schema", "schema.unknown-id", ["errors.404", "endpoints.get-study"], "an unknown study id answers 400", { response(ex) { if (/^\/api\/v1\/studies\/0{8}-/.test(ex.path) && ex.status === 404) ex.status = 400; } }),
    variant("schema", "coverage.seed-operations", ["conventions.base-url", "versioning.v1", "errors.200"], "release retrievals never answer 200", { response(ex) { if (UUID_PATH.test(ex.path) && ex.path.includes("/releases/")) Object.assign(ex, { status: 404, body: { error: { type: "not_found_error", message: "Not found" } } }); } }, { only: ["schema", "coverage"], caughtBy: "coverage" }),
  ];
}

function listVariants(): Variant[] {
  return [
    variant("pagination", "pagination.walk-ends", ["endpoints.next-page"], "starting_after ignored: the first page again", { request(ex) { if (ex.path === "/api/v1/releases") ex.query.delete("starting_after"); } }),
    variant("pagination", "pagination.default-limit", ["endpoints.limit", "limits.page-size"], "a default page of 10", { request(ex) { if (ex.method === "GET" && !ex.query.has("limit") && !ex.query.has("starting_after") && /^\/api\/v1\/(studies|interviews|releases|chats)$/.test(ex.path)) ex.query.set("limit", "10"); } }),
    variant("pagination", "pagination.limit-range", ["endpoints.limit", "errors.400"], "limit=0 served as the default page", { request(ex) { if (ex.query.get("limit") === "0") ex.query.delete("limit"); } }),
    variant("pagination", "pagination.order", ["endpoints.order", "endpoints.list-chats", "chat.created-at"], "chats listed oldest first", {
      async response(ex) {
        if (ex.path !== "/api/v1/chats" || ex.status !== 200 || ex.query.get("starting_after")) return;
        const all = await ex.upstream("/api/v1/chats?limit=100", { headers: auth(ex) });
        const limit = Number(ex.query.get("limit") ?? 20);
        const reversed = [...all.body.data].reverse();
        ex.body = { object: "list", data: reversed.slice(0, limit), has_more: reversed.length > limit };
      },
    }),
    variant("pagination", "pagination.order", ["endpoints.list-releases", "release.merged-at"], "releases newest created_at first, not newest merged_at", {
      async response(ex) {
        if (ex.path !== "/api/v1/releases" || ex.status !== 200 || ex.query.get("starting_after") || ex.query.get("status")) return;
        const all = await ex.upstream("/api/v1/releases?limit=100", { headers: auth(ex) });
        const limit = Number(ex.query.get("limit") ?? 20);
        const sorted = [...all.body.data].sort((a: any, b: any) => (a.vcs_pr_number - b.vcs_pr_number));
        ex.body = { object: "list", data: sorted.slice(0, limit), has_more: sorted.length > limit };
      },
    }),
    variant("pagination", "pagination.order", ["endpoints.list-messages", "message.created-at"], "messages newest first", { response(ex) { if (ex.path.endsWith("/messages") && isList(ex.body) && !ex.query.get("starting_after") && ex.body.data.length > 1 && !ex.body.has_more) ex.body.data.reverse(); } }),
    variant("pagination", "pagination.messages-cursor", ["endpoints.messages-validation", "endpoints.messages-unknown-cursor"], "an unknown message cursor gives an empty page", {
      response(ex) { if (ex.path.endsWith("/messages") && ex.status === 400 && /^No such message/.test(ex.body?.error?.message ?? "")) Object.assign(ex, { status: 200, body: { object: "list", data: [], has_more: false } }); },
    }),
    variant("isolation", "isolation.lists", ["auth.scope", "service.key-scope"], "the study list shows every project's studies", {
      async response(ex) {
        if (ex.path !== "/api/v1/studies" || ex.status !== 200 || ex.query.get("starting_after")) return;
        const other = await ex.upstream("/api/v1/studies?limit=100", { headers: { authorization: `Bearer ${ex.requestHeaders.authorization?.includes(ACME) ? "svc_live_globex_0123456789abcdef0123456789abcdef" : ACME}` } });
        if (other.status === 200) ex.body.data.push(...other.body.data.slice(0, 1));
      },
    }),
    variant("filters", "filters.matching", ["endpoints.list-releases", "release.status", "states.release"], "the release status filter ignored", { request(ex) { if (ex.path === "/api/v1/releases") ex.query.delete("status"); } }),
    variant("filters", "filters.matching", ["interview.status", "states.interview"], "the interview status filter ignored", { request(ex) { if (ex.path === "/api/v1/interviews") ex.query.delete("status"); } }),
    variant("filters", "filters.matching", ["interview.study-id"], "the study_id filter ignored", { request(ex) { if (ex.path === "/api/v1/interviews") ex.query.delete("study_id"); } }),
  ];
}

function chatVariants(): Variant[] {
  return [
    variant("chats", "chats.hidden-404", ["errors.hidden-chat-404", "endpoints.get-chat"], "planted internal chats retrievable by id", {
      async response(ex, proxy) {
        if (ex.method === "POST" && ex.path === "/api/_sim/chats" && ex.status === 201 && ex.body.visibility !== "visible") proxy.memory.set(ex.body.id, true);
        const m = /^\/api\/v1\/chats\/([0-9a-f-]{36})(\/messages)?$/.exec(ex.path);
        if (m && ex.status === 404 && proxy.memory.has(m[1])) Object.assign(ex, { status: 200, body: m[2] ? { object: "list", data: [], has_more: false } : { id: m[1], object: "chat", title: null, source: "web", is_streaming: false, message_count: 0, created_at: "2026-01-01T00:00:00.000Z", updated_at: "2026-01-01T00:00:00.000Z" } });
      },
    }),
    variant("chats", "chats.chat-id", ["message.chat-id"], "messages carry another chat's id", { response(ex) { if (ex.path.endsWith("/messages") && isList(ex.body)) for (const m of ex.body.data) m.chat_id = "00000000-0000-4000-8000-00000000c4a7"; } }),
    variant("chats", "chats.public-parts", ["part.internal-hidden", "part.discriminated"], "internal compaction parts returned", { response(ex) { if (ex.path.endsWith("/messages") && isList(ex.body)) for (const m of ex.body.data) m.parts.push({ type: "compaction", summary: "earlier turns" }); } }),
    variant("chats", "chats.public-parts", ["part.tool-state", "states.tool-use"], "a transient tool state leaked", parts("tool_use", (p) => void (p.state = "input_streaming"))),
    variant("chats", "chats.invalid-parameters", ["errors.invalid-parameters"], "Invalid parameters without details", { response(ex) { if (ex.path.endsWith("/messages") && ex.status === 400 && ex.body?.error) delete ex.body.error.details; } }),
    variant("chats", "chats.no-such-message", ["errors.no-such-message"], "an unknown message cursor answers Invalid parameters", { response(ex) { if (ex.path.endsWith("/messages") && ex.status === 400 && /^No such message/.test(ex.body?.error?.message ?? "")) ex.body.error.message = "Invalid parameters"; } }),
    variant("chats", "chats.unknown-chat", ["errors.404"], "messages of an unknown chat answer an empty list", { response(ex) { if (/^\/api\/v1\/chats\/0{8}-[0-9a-f-]+\/messages$/.test(ex.path) && ex.status === 404) Object.assign(ex, { status: 200, body: { object: "list", data: [], has_more: false } }); } }),
    // Serves whole what should be nulled, as an implementation with a 64 KB cap would for planted 32-64 KB values.
    variant("truncation", "truncation.over-cap", ["truncation.rule", "limits.payload-cap"], "truncation only beyond 64 KB", parts("tool_use", (p) => {
      if (!p.truncated) return;
      p.input = { padded: "x".repeat(33_000) };
      delete p.truncated;
      delete p.truncation_reason;
    })),
    variant("truncation", "truncation.siblings", ["truncation.siblings"], "is_error flipped on a truncated tool_result", parts("tool_result", (p) => void (p.truncated && (p.is_error = !p.is_error)))),
    // Truncation decided per message instead of per source: one source over the cap nulls them all.
    variant("truncation", "truncation.kept", ["truncation.rule"], "every source of a message nulled once one is over the cap", {
      response(ex) {
        if (!ex.path.endsWith("/messages") || !isList(ex.body)) return;
        for (const m of ex.body.data) if (m.sources?.some((s: any) => s.truncated)) for (const s of m.sources) Object.assign(s, { query: null, truncated: true, truncation_reason: "size_limit_32kb" });
      },
    }),
  ];
}

function capacityVariants(): Variant[] {
  return [
    variant("capacity", "capacity.used-counts", ["study.monthly-used", "study.weekly-used"], "used counts one interview too many", objects("study", (o) => { o.limits.monthly.used += 1; o.limits.weekly.used += 1; })),
    variant("capacity", "capacity.limits-echo", ["study.monthly-limit", "study.weekly-limit"], "caps reported as unlimited", objects("study", (o) => { o.limits.monthly.limit = null; o.limits.weekly.limit = null; })),
    variant("capacity", "capacity.accepting-below", ["study.accepting", "states.accepting"], "a study with room not accepting", objects("study", (o) => void (o.limits.weekly.limit !== null && o.limits.weekly.used < o.limits.weekly.limit && (o.accepting_responses = false)))),
    variant("capacity", "capacity.paused", ["states.accepting", "endpoints.list-studies"], "paused studies accepting responses", objects("study", (o) => void (o.status === "paused" && (o.accepting_responses = true)))),
    variant("capacity", "capacity.listed", ["endpoints.list-studies"], "the study list disagrees with the retrieval on accepting_responses", items("/api/v1/studies", (o) => void (o.accepting_responses = !o.accepting_responses))),
    variant("windows", "windows.fresh-lists", ["auth.scope", "list.has-more"], "a new project's lists say has_more", { response(ex) { if (isList(ex.body) && ex.body.data.length === 0 && ex.path.startsWith("/api/v1/")) ex.body.has_more = true; } }),
  ];
}

function fieldVariants(): Variant[] {
  return [
    planted("fields.interview-study", ["service.interview-study", "interview.study-id"], "interviews naming a study that does not exist", objects("interview", (o) => void (o.study_id = "00000000-0000-4000-8000-0000000057d1"))),
    planted("fields.interview-times", ["interview.completed-at", "interview.started-at"], "completed_at before started_at", details("interview", (o) => void (o.completed_at && (o.completed_at = new Date(Date.parse(o.started_at) - 60_000).toISOString())))),
    planted("fields.transcript", ["interview.transcript", "interview.time-in-call"], "transcripts newest first", details("interview", (o) => void (o.transcript ?? []).reverse())),
    planted("fields.translated", ["interview.translated"], "English transcripts carry a translation", details("interview", (o) => void (String(o.language).startsWith("en") && (o.transcript ?? []).forEach((t: any) => (t.translated = t.message))))),
    planted("fields.question-answers", ["interview.question-answers", "interview.question-index"], "question_index 1-based", details("interview", (o) => void (o.question_answers ?? []).forEach((a: any) => (a.question_index += 1)))),
    planted("fields.interview-statuses", ["states.interview", "interview.status"], "simulated interviews read processing while held", objects("interview", (o) => void (o.status === "started" && (o.status = "processing")))),
    planted("fields.chat-no-bodies", ["chat.no-bodies"], "chats carry their messages", objects("chat", (o) => void (o.messages = []))),
    planted("fields.updated-at", ["chat.updated-at"], "updated_at before created_at", objects("chat", (o) => void (o.updated_at = new Date(Date.parse(o.created_at) - 1000).toISOString()))),
    planted("fields.usage-roles", ["message.usage"], "user messages carry usage", objects("message", (o) => void (o.role === "user" && (o.usage = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: null, cache_creation_input_tokens: null, cost_usd: 0 })))),
    planted("fields.null-forms", ["interview.respondent-email"], "respondent_email empty when not collected", objects("interview", (o) => void (o.respondent_email === null && (o.respondent_email = "")))),
    planted("fields.null-forms", ["chat.title"], "an untitled chat titled \"\"", objects("chat", (o) => void (o.title === null && (o.title = "")))),
    planted("fields.null-forms", ["message.sources"], "sources [] when none", objects("message", (o) => void (o.sources === null && (o.sources = [])))),
    planted("fields.null-forms", ["message.completed-at"], "streaming messages with a completed_at", objects("message", (o) => void (o.completed_at === null && (o.completed_at = o.created_at)))),
    planted("fields.null-forms", ["part.file"], "a file without a name named \"\"", parts("file", (p) => void (p.filename === null && (p.filename = "")))),
    planted("fields.null-forms", ["chat.is-streaming"], "is_streaming null read as false", objects("chat", (o) => void (o.is_streaming === null && (o.is_streaming = false)))),
    planted("fields.planted-values", ["interview.reference-id"], "reference_id cut to 8 characters", objects("interview", (o) => void (o.reference_id = String(o.reference_id).slice(0, 8)))),
    planted("fields.planted-values", ["chat.source"], "every chat source reported as web", objects("chat", (o) => void (o.source !== null && (o.source = "web")))),
    planted("fields.planted-values", ["message.parts"], "parts in reverse order", objects("message", (o) => void (o.parts ?? []).reverse())),
    planted("fields.planted-values", ["message.feedback"], "feedback positive and negative swapped", objects("message", (o) => void (o.feedback && (o.feedback = o.feedback === "positive" ? "negative" : "positive")))),
    planted("fields.planted-values", ["states.tool-use"], "output_denied reported as output_error", parts("tool_use", (p) => void (p.state === "output_denied" && (p.state = "output_error")))),
    planted("fields.reference-tag", ["study.reference-tag"], "the link's reference_id not taken", objects("interview", (o) => void (o.reference_id === "fields_link" && (o.reference_id = "")))),
    planted("fields.transient-states", ["part.transient-states"], "a tool call awaiting approval reported as output_available", parts("tool_use", (p) => void (p.id === "toolu_raw_server" && (p.state = "output_available")))),
    planted("fields.updated-at", ["chat.updated-at"], "a chat's updated_at left at its creation after its messages", details("chat", (o) => void (o.updated_at = o.created_at))),
    planted("fields.study-link", ["study.interview-link", "service.study-link"], "a study's link without its scheme and host", objects("study", (o) => void (o.interview_link = new URL(o.interview_link).pathname))),
    planted("fields.detail-agrees", ["endpoints.get-release", "release.pr-description"], "a release retrieved by id shows another title than its list", details("release", (o) => void (o.vcs_pr_title = `${o.vcs_pr_title} (draft)`))),
    planted("fields.last-analysis", ["release.last-analysis"], "releases analysed a day before they were merged", objects("release", (o) => void (o.last_analysis_at && (o.last_analysis_at = new Date(Date.parse(o.merged_at) - 86_400_000).toISOString())))),
    planted("fields.translated", ["interview.translated"], "a regional English transcript carries a translation", details("interview", (o) => void (/^en-/i.test(String(o.language)) && (o.transcript ?? []).forEach((t: any) => (t.translated = t.message))))),
    planted("fields.null-forms", ["chat.is-streaming"], "is_streaming left out when false", objects("chat", (o) => void (o.is_streaming === false && delete o.is_streaming))),
    variant("chats", "chats.no-metadata", ["part.internal-hidden"], "assistant messages carry the model that wrote them", objects("message", (o) => void (o.role === "assistant" && (o.model = "model-x")))),
    variant("pagination", "pagination.messages-cursor", ["endpoints.messages-validation"], "a message cursor that starts with a UUID is looked up", {
      response(ex) { if (ex.path.endsWith("/messages") && ex.status === 400 && /^[0-9a-f-]{36}./.test(ex.query.get("starting_after") ?? "")) ex.body.error.message = `No such message: ${ex.query.get("starting_after")}`; },
    }),
    planted("fields.transports", ["part.transports"], "MCP tool calls dropped as if internal", {
      response(ex) {
        if (!ex.path.endsWith("/messages") || !isList(ex.body)) return;
        for (const m of ex.body.data) m.parts = m.parts.filter((p: any) => p.id !== "toolu_raw_mcp" && p.tool_use_id !== "toolu_raw_mcp");
      },
    }),
    planted("fields.chat-order", ["endpoints.chats-stable"], "chats ordered by updated_at", {
      async response(ex) {
        if (ex.path !== "/api/v1/chats" || ex.status !== 200) return;
        const all = await ex.upstream("/api/v1/chats?limit=100", { headers: auth(ex) });
        const sorted = [...all.body.data].sort((a: any, b: any) => Date.parse(b.updated_at) - Date.parse(a.updated_at) || (a.id < b.id ? 1 : -1));
        const limit = Number(ex.query.get("limit") ?? 20);
        const after = ex.query.get("starting_after");
        const start = after ? sorted.findIndex((c: any) => c.id === after) + 1 : 0;
        ex.body = { object: "list", data: sorted.slice(start, start + limit), has_more: start + limit < sorted.length };
      },
    }),
  ];
}

function otherVariants(): Variant[] {
  return [
    variant("auth", "auth.401", ["auth.bearer"], "the Basic scheme accepted", { request(ex) { const a = ex.requestHeaders.authorization ?? ""; if (a.startsWith("Basic ") && ex.path.startsWith("/api/v1/")) ex.requestHeaders.authorization = `Bearer ${Buffer.from(a.slice(6), "base64").toString("utf8").replace(/:$/, "")}`; } }),
    variant("auth", "auth.401", ["auth.key-prefix"], "keys accepted whatever their prefix", { request(ex) { const a = ex.requestHeaders.authorization ?? ""; if (/^Bearer svc_test_/.test(a) && ex.path.startsWith("/api/v1/")) ex.requestHeaders.authorization = a.replace("svc_test_", "svc_live_"); } }),
    variant("auth", "auth.401", ["auth.401", "errors.401", "endpoints.authorization"], "no Authorization header read as the first project", { request(ex) { if (!ex.requestHeaders.authorization && ex.path.startsWith("/api/v1/") && !ex.path.includes("interview-participant")) ex.requestHeaders.authorization = `Bearer ${ACME}`; } }),
    variant("auth", "auth.first", ["auth.401"], "bad parameters checked before the key", { response(ex) { if (ex.status === 401 && ex.query.get("limit") === "0") Object.assign(ex, { status: 400, body: { error: { type: "invalid_request_error", message: "Invalid parameters" } } }); } }),
    variant("auth", "auth.tells-nothing", ["auth.401"], "the 401 names the project a key near a real one names", { response(ex) { const a = ex.requestHeaders.authorization ?? ""; if (ex.status === 401 && a.startsWith("Bearer svc_live_acme_") && a !== `Bearer ${ACME}`) ex.body = { error: { type: "authentication_error", message: "This API key is not valid for the project acme" } }; } }),
    variant("auth", "auth.401", ["auth.401"], "a HEAD answered without a key", { request(ex) { if (ex.method === "HEAD" && !ex.requestHeaders.authorization && ex.path.startsWith("/api/v1/") && !ex.path.includes("interview-participant")) ex.requestHeaders.authorization = `Bearer ${ACME}`; } }),
    variant("auth", "auth.public-key-limited", ["auth.public-key"], "the public SDK key opens the REST API", { request(ex) { if (/^Bearer pk_live_acme_/.test(ex.requestHeaders.authorization ?? "") && !ex.path.includes("interview-participant")) ex.requestHeaders.authorization = `Bearer ${ACME}`; } }),
    variant("participant", "participant.decision", ["participant.launches", "participant.paths", "participant.config", "participant.prompt-events", "versioning.participant"], "a launch decision mode inline", { response(ex) { if (ex.path === "/api/v1/interview-participant/launches" && ex.status === 200) ex.body.mode = "inline"; } }),
    variant("participant", "participant.eligible", ["participant.launches"], "every launch declined, the eligible one too", { response(ex) { if (ex.path === "/api/v1/interview-participant/launches" && ex.status === 200) Object.assign(ex.body, { mode: "not_eligible", url: null, expiresAt: null, reason: "not_accepting_responses" }); } }),
    variant("deprecated", "deprecated.sunset", ["versioning.deprecated"], "Sunset a year late", { response(ex) { if (ex.path === "/api/v1/experiments") ex.headers.sunset = "Wed, 01 Jul 2027 00:00:00 GMT"; } }),
    // Caching headers a browser's fetch or a CDN obeys: an answer shared across keys, an interview kept fresh.
    variant("schema", "response.cacheable", ["auth.scope"], "every answer public for five minutes", { response(ex) { if (ex.path.startsWith("/api/v1/")) ex.headers["cache-control"] = "public, max-age=300"; } }),
    variant("schema", "response.cacheable", ["states.interview"], "interviews kept fresh for a minute", { response(ex) { if (ex.path.startsWith("/api/v1/interviews")) ex.headers["cache-control"] = "private, max-age=60"; } }),
    variant("deprecated", "deprecated.headers", ["endpoints.experiments"], "no Deprecation header", { response(ex) { if (ex.path === "/api/v1/experiments") delete ex.headers.deprecation; } }),
    variant("deprecated", "deprecated.only-deprecated", ["versioning.deprecated"], "every endpoint announces Deprecation and Sunset", { response(ex) { if (ex.path.startsWith("/api/v1/")) Object.assign(ex.headers, { deprecation: "Thu, 01 Jan 2026 00:00:00 GMT", sunset: "Wed, 01 Jul 2026 23:59:59 GMT" }); } }),
    variant("deprecated", "deprecated.answers", ["endpoints.experiments", "errors.200"], "the deprecated endpoint fails instead of answering", { response(ex) { if (ex.path === "/api/v1/experiments" && ex.status === 200) Object.assign(ex, { status: 500, body: { error: { type: "api_error", message: "Internal error" } } }); } }),
    // Past July 1, 2026 the seed lets it be gone (410 here, or 404); gone for the bare path alone is not gone.
    variant("deprecated", "deprecated.removed", ["versioning.deprecated", "endpoints.experiments"], "the deprecated endpoint removed for the bare path only", { response(ex) { if (ex.path === "/api/v1/experiments" && ex.status === 200 && ![...ex.query.keys()].length) Object.assign(ex, { status: 410, body: { error: { type: "invalid_request_error", message: "Gone" } } }); } }),
    // Hidden set 46: a URL stored as a parser writes it. The foreign server makes its releases' URLs itself, so only a
    // surface that plants them (ours) can show it; the releases unit alone runs.
    variant("cover", "cover.release-whole", ["release.pr-url"], "a release's URL read back as a URL parser writes it", objects("release", (o) => { if (typeof o.vcs_pr_url === "string") o.vcs_pr_url = new URL(o.vcs_pr_url).href; }), { options: { coverUnits: ["releases"] } }),
  ];
}

function metricVariants(): Variant[] {
  const engine = (file: string, rule: string, breaks: string[], name: string): Variant => ({ caughtBy: "metrics", only: ["metrics"], seedRule: true, rule, breaks, metricsEngine: `test/conformance/broken/engines/${file}.ts`, mutation: { name } });
  return [
    engine("conversion-counts-volume", "metrics.conversion", ["metrics.conversion", "metrics.conversion-volume"], "conversion counts every firing"),
    engine("events-per-user-off-by-one", "metrics.events-per-user", ["metrics.events-per-user"], "events per user counts one event too many"),
    engine("active-days-ignored", "metrics.per-active-day", ["metrics.per-active-day"], "events per active day ignores active days"),
    engine("retention-threshold-ignored", "metrics.retention", ["metrics.retention"], "retention ignores its threshold"),
    engine("participants-only", "metrics.zero-filled", ["metrics.zero-filled", "metrics.mean-over-exposed"], "events per user over participants only"),
  ];
}

export function seedVariants(): Variant[] {
  return [...fieldTypeVariants(), ...listVariants(), ...chatVariants(), ...capacityVariants(), ...fieldVariants(), ...otherVariants(), ...metricVariants(), ...webhookVariants(), ...deliveryVariants()];
}

