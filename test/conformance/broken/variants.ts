/** The broken implementations the suite must catch, each with the check expected to catch it. */
import { createHmac } from "node:crypto";
import type { Exchange, Mutation } from "./proxy.ts";
import { Relay } from "./relay.ts";
import { modelVariants } from "./model-variants.ts";
import { seedVariants } from "./seed-variants.ts";

export const ACME = "svc_live_acme_0123456789abcdef0123456789abcdef";
export const GLOBEX = "svc_live_globex_0123456789abcdef0123456789abcdef";

export interface Variant {
  mutation: Mutation;
  /** Caught at --level seed too (a seed rule), and at any --seed (a deterministic case). */
  seedRule?: boolean;
  /** Server options of a dedicated upstream (e.g. retry delays other than the suite is told). */
  server?: { webhookRetryDelaysMs: number[]; webhookTimeoutMs?: number };
  /** The check that must fail. */
  caughtBy: string;
  /** The rule that must be among its failures (the one the variant breaks), where one rule names it. */
  rule?: string;
  /** Instead of `rule`: any of these rules catching it passes (a fault more than one rule can see first). */
  rules?: string[];
  /** Seed statements (conformance/src/seed/statements.ts) the variant breaks; `rule` must cite each, and it runs at --level seed. */
  breaks?: string[];
  /** Checks to run (the catching one, plus neighbours that must not crash). */
  only: string[];
  /** Needs the webhook relay. */
  relay?: Relay;
  /** A broken metrics engine module to hold to the laws instead of the real one. */
  metricsEngine?: string;
  /** The failure must say what was wrong in these words (not only restate a status). */
  message?: RegExp;
  /** More suite options (e.g. the slow receiver). */
  options?: Record<string, unknown>;
}

export const isList = (body: any) => body && body.object === "list" && Array.isArray(body.data);
const jsonBytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v), "utf8");
export const auth = (ex: { requestHeaders: Record<string, string> }) => ({ authorization: ex.requestHeaders.authorization ?? "" });

/** The release chat ids of the caller's project, read from the real server once per proxy. */
async function releaseChats(ex: Exchange, memory: Map<string, any>): Promise<Set<string>> {
  const key = `release-chats ${ex.requestHeaders.authorization}`;
  if (!memory.has(key)) {
    const page = await ex.upstream("/api/v1/releases?limit=100", { headers: auth(ex) });
    memory.set(key, new Set(page.status === 200 ? page.body.data.map((r: any) => r.chat_id) : []));
  }
  return memory.get(key);
}

export function webhookRelay(tamper: (body: Buffer, headers: Record<string, string>, secret: string) => { body: Buffer; headers: Record<string, string> }): { relay: Relay; mutation: Mutation } {
  let secret = "";
  const relay = new Relay((body, headers) => tamper(body, headers, secret));
  return {
    relay,
    mutation: {
      name: "webhook relay",
      request(ex) {
        if (ex.method === "PUT" && ex.path === "/api/v1/webhooks" && /^https?:\/\//.test(String(ex.requestBody?.url)) && !String(ex.requestBody.url).startsWith("https://hooks.example.com")) {
          relay.target = ex.requestBody.url;
          ex.requestBody = { ...ex.requestBody, url: relay.url };
        }
      },
      response(ex) {
        if (ex.method === "PUT" && ex.path === "/api/v1/webhooks" && ex.body?.signing_secret) secret = ex.body.signing_secret;
        if (ex.path === "/api/v1/webhooks" && ex.body?.url === relay.url) ex.body.url = relay.target;
      },
    },
  };
}

export function variants(): Variant[] {
  const seen = new Map<string, any>();
  const wrongSignature = webhookRelay((body, headers) => ({ body, headers: { ...headers, "x-webhook-signature": headers["x-webhook-signature"].replace(/.$/, (c) => (c === "0" ? "1" : "0")) } }));
  const alteredPayload = webhookRelay((body, headers, secret) => {
    const payload = JSON.parse(body.toString("utf8"));
    payload.data.duration_secs = (payload.data.duration_secs ?? 0) + 60;
    const out = Buffer.from(JSON.stringify(payload));
    return { body: out, headers: { ...headers, "x-webhook-signature": `sha256=${createHmac("sha256", secret).update(out).digest("hex")}` } };
  });
  /** Tampers with retries only (the second and later attempts of an interview's delivery). */
  const onRetries = (tamper: (body: Buffer, headers: Record<string, string>, secret: string) => { body: Buffer; headers: Record<string, string> }) => {
    const attempts = new Map<string, number>();
    return webhookRelay((body, headers, secret) => {
      const id = String(JSON.parse(body.toString("utf8"))?.data?.interview_id);
      const n = (attempts.get(id) ?? 0) + 1;
      attempts.set(id, n);
      return n === 1 ? { body, headers } : tamper(body, headers, secret);
    });
  };
  const retriesWithoutEvent = onRetries((body, headers) => {
    const { "x-webhook-event": _dropped, ...rest } = headers;
    return { body, headers: rest };
  });
  const retriesWithoutAlias = onRetries((body, headers, secret) => {
    const payload = JSON.parse(body.toString("utf8"));
    delete payload.data.session_id;
    const out = Buffer.from(JSON.stringify(payload));
    return { body: out, headers: { ...headers, "x-webhook-signature": `sha256=${createHmac("sha256", secret).update(out).digest("hex")}` } };
  });
  return [
    {
      caughtBy: "pagination", only: ["pagination"], seedRule: true, rule: "pagination.has-more", breaks: ["list.has-more"],
      mutation: { name: "has_more off by one on the last page", response(ex) { if (isList(ex.body) && !ex.body.has_more && ex.body.data.length > 0) ex.body.has_more = true; } },
    },
    {
      caughtBy: "pagination", only: ["pagination"], seedRule: true, rule: "pagination.each-once", breaks: ["endpoints.starting-after"],
      mutation: {
        name: "the cursor item repeated on the next page",
        response(ex) {
          if (!isList(ex.body)) return;
          for (const item of ex.body.data) seen.set(item.id, item);
          const after = ex.query.get("starting_after");
          if (after && seen.has(after) && ex.body.data.length > 0) ex.body.data = [seen.get(after), ...ex.body.data.slice(0, -1)];
        },
      },
    },
    {
      caughtBy: "pagination", only: ["pagination"], seedRule: true, rule: "pagination.each-once", breaks: ["list.data", "endpoints.next-page"],
      mutation: { name: "an item skipped after every cursor", response(ex) { if (isList(ex.body) && ex.query.get("starting_after") && ex.body.data.length > 1) ex.body.data = ex.body.data.slice(1); } },
    },
    {
      caughtBy: "pagination", only: ["pagination"],
      mutation: { name: "the first two items of a page swapped", response(ex) { if (isList(ex.body) && ex.body.data.length > 1) [ex.body.data[0], ex.body.data[1]] = [ex.body.data[1], ex.body.data[0]]; } },
    },
    {
      caughtBy: "isolation", only: ["isolation"], seedRule: true, rule: "isolation.retrieval-404",
      breaks: ["errors.retrieval-404", "auth.scope", "service.key-scope", "endpoints.get-study", "endpoints.get-interview", "endpoints.get-release", "endpoints.get-chat"],
      mutation: {
        name: "a retrieval falls back to another project's data",
        async response(ex) {
          if (ex.method !== "GET" || ex.status !== 404 || !/^\/api\/v1\/(studies|interviews|releases|chats)\/[0-9a-f-]{36}$/.test(ex.path)) return;
          const key = ex.requestHeaders.authorization?.includes(ACME) ? GLOBEX : ACME;
          const other = await ex.upstream(ex.path, { headers: { authorization: `Bearer ${key}` } });
          if (other.status === 200) Object.assign(ex, { status: 200, body: other.body, headers: other.headers });
        },
      },
    },
    {
      caughtBy: "schema", only: ["schema", "auth"], seedRule: true, rule: "response.no-5xx", breaks: ["errors.400"],
      mutation: { name: "a 500 on bad input", response(ex) { if (ex.status === 400) ex.status = 500; } },
    },
    {
      caughtBy: "schema", only: ["schema"], seedRule: true, rule: "response.detail-only", breaks: ["study.detail-only", "endpoints.list-studies"],
      mutation: { name: "a detail-only field leaking into study list items", response(ex) { if (ex.path === "/api/v1/studies" && isList(ex.body)) for (const s of ex.body.data) s.research_goal = "Leaked"; } },
    },
    {
      caughtBy: "filters", only: ["filters"], seedRule: true, rule: "filters.matching", breaks: ["endpoints.list-interviews"],
      mutation: { name: "the quality_score filter ignored", request(ex) { if (ex.path === "/api/v1/interviews") ex.query.delete("quality_score"); } },
    },
    {
      caughtBy: "chats", only: ["chats"], seedRule: true, rule: "chats.hidden-not-listed", breaks: ["chat.visible-only", "chat.internal-sources", "service.chat-public"],
      mutation: {
        name: "an evaluation chat listed",
        response(ex) {
          if (ex.path === "/api/v1/chats" && isList(ex.body) && !ex.query.get("starting_after")) {
            ex.body.data.push({ id: "e7a1c0de-0000-4000-8000-000000000001", object: "chat", title: "eval run 17", source: "eval", is_streaming: false, created_at: "2020-01-01T00:00:00.000Z", updated_at: "2020-01-01T00:00:00.000Z" });
          }
        },
      },
    },
    {
      caughtBy: "chats", only: ["chats"], seedRule: true, rule: "chats.message-count", breaks: ["chat.message-count"],
      mutation: { name: "message_count counts a hidden message", response(ex) { if (/^\/api\/v1\/chats\/[0-9a-f-]{36}$/.test(ex.path) && typeof ex.body?.message_count === "number") ex.body.message_count += 1; } },
    },
    {
      caughtBy: "truncation", only: ["truncation"], seedRule: true, rule: "truncation.markers", breaks: ["source.markers"],
      mutation: {
        name: "truncation markers dropped",
        response(ex) {
          if (!ex.path.endsWith("/messages") || !isList(ex.body)) return;
          for (const m of ex.body.data) for (const x of [...m.parts, ...(m.sources ?? [])]) {
            delete x.truncated;
            delete x.truncation_reason;
          }
        },
      },
    },
    {
      caughtBy: "deprecated", only: ["deprecated"], seedRule: true, rule: "deprecated.headers", breaks: ["versioning.deprecated"],
      mutation: { name: "no Sunset header", response(ex) { delete ex.headers.sunset; } },
    },
    { caughtBy: "webhooks", only: ["webhooks"], seedRule: true, rule: "webhooks.signature", breaks: ["events.signature", "auth.signed-deliveries", "service.webhook"], relay: wrongSignature.relay, mutation: { ...wrongSignature.mutation, name: "a wrong webhook signature" } },
    // The cases below are seed rules that only planted data or deterministic limits can reach.
    {
      caughtBy: "truncation", only: ["truncation"], seedRule: true, rule: "truncation.kept", breaks: ["truncation.rule", "limits.payload-cap"],
      mutation: {
        name: "truncation at >= 32768 bytes instead of > 32768",
        response(ex) {
          if (!ex.path.endsWith("/messages") || !isList(ex.body)) return;
          for (const m of ex.body.data) {
            for (const p of m.parts) {
              const field = p.type === "tool_use" ? "input" : p.type === "tool_result" ? "content" : null;
              if (field && p[field] !== null && jsonBytes(p[field]) === 32_768) Object.assign(p, { [field]: null, truncated: true, truncation_reason: "size_limit_32kb" });
            }
            for (const src of m.sources ?? []) if (src.query !== null && jsonBytes(src.query) === 32_768) Object.assign(src, { query: null, truncated: true, truncation_reason: "size_limit_32kb" });
          }
        },
      },
    },
    {
      caughtBy: "chats", only: ["chats"], seedRule: true, rule: "chats.release-chats", breaks: ["release.chat-id", "service.release-chat"],
      mutation: {
        name: "release-generated chats retrievable by id",
        async response(ex, proxy) {
          const m = /^\/api\/v1\/chats\/([0-9a-f-]{36})(\/messages)?$/.exec(ex.path);
          if (!m || ex.status !== 404 || !(await releaseChats(ex, proxy.memory)).has(m[1])) return;
          ex.status = 200;
          ex.body = m[2]
            ? { object: "list", data: [], has_more: false }
            : { id: m[1], object: "chat", title: "Release analysis", source: "releases", is_streaming: false, message_count: 0, created_at: "2026-01-01T00:00:00.000Z", updated_at: "2026-01-01T00:00:00.000Z" };
        },
      },
    },
    {
      caughtBy: "capacity", only: ["capacity"], seedRule: true, rule: "capacity.accepting-at-cap", breaks: ["study.accepting", "states.accepting", "limits.caps"],
      mutation: {
        name: "accepting_responses ignores the caps",
        response(ex) {
          const fix = (s: any) => { if (s?.object === "study") s.accepting_responses = s.status === "active"; };
          if (isList(ex.body)) ex.body.data.forEach(fix);
          else fix(ex.body);
        },
      },
    },
    {
      caughtBy: "capacity", only: ["capacity"], seedRule: true, rule: "capacity.interview-count", breaks: ["study.interview-count"],
      mutation: {
        name: "interview_count counts unfinished interviews",
        async response(ex) {
          if (ex.body?.object !== "study" || typeof ex.body.interview_count !== "number") return;
          const all = await ex.upstream(`/api/v1/interviews?limit=100&study_id=${ex.body.id}`, { headers: auth(ex) });
          if (all.status === 200) ex.body.interview_count = all.body.data.length;
        },
      },
    },
    {
      caughtBy: "pagination", only: ["pagination"], seedRule: true, rule: "pagination.has-more", breaks: ["list.has-more", "endpoints.next-page"],
      mutation: {
        name: "has_more wrong only when the list length is an exact multiple of the limit",
        response(ex) {
          const limit = Number(ex.query.get("limit") ?? 20);
          if (isList(ex.body) && !ex.body.has_more && ex.body.data.length === limit) ex.body.has_more = true;
        },
      },
    },
    {
      caughtBy: "retries", only: ["retries"], seedRule: true, rule: "webhooks.retries", breaks: ["delivery.retries", "limits.retries"], server: { webhookRetryDelaysMs: [800, 1600, 2400] },
      mutation: { name: "retry delays doubled" },
    },
    {
      caughtBy: "parameters", only: ["parameters"], seedRule: true, rule: "parameters.unknown-harmless", breaks: ["errors.400"],
      mutation: {
        name: "an unknown query parameter gives a 500",
        response(ex) {
          if ([...ex.query.keys()].some((k) => !["limit", "starting_after", "study_id", "status", "reference_id", "quality_score", "interview_id", "referenceId"].includes(k))) {
            ex.status = 500;
            ex.body = { error: { type: "api_error", message: "Internal error" } };
          }
        },
      },
    },
    { caughtBy: "webhooks", only: ["webhooks"], seedRule: true, rule: "webhooks.payload-matches", breaks: ["endpoints.interview-id", "payload.duration"], relay: alteredPayload.relay, mutation: { ...alteredPayload.mutation, name: "a signed payload that disagrees with the REST resource" } },
      // Issue 19: what the outside check found the suite blind to, each a seed rule reached deterministically.
    { caughtBy: "retries", rule: "webhooks.headers", only: ["retries"], seedRule: true, breaks: ["events.event-header"], relay: retriesWithoutEvent.relay, mutation: { ...retriesWithoutEvent.mutation, name: "retries sent without X-Webhook-Event" } },
    { caughtBy: "retries", rule: "webhooks.aliases", only: ["retries"], seedRule: true, breaks: ["versioning.aliases", "payload.session-id"], relay: retriesWithoutAlias.relay, mutation: { ...retriesWithoutAlias.mutation, name: "retries without the session_id alias (re-signed)" } },
    {
      caughtBy: "pagination", rule: "pagination.max-page-size", only: ["pagination"], seedRule: true, breaks: ["endpoints.limit", "limits.page-size"],
      mutation: {
        name: "every list refuses limit=100",
        response(ex) {
          if (ex.method === "GET" && ex.query.get("limit") === "100") Object.assign(ex, { status: 400, body: { error: { type: "invalid_request_error", message: "Invalid parameters", details: [{ location: "query", field: "limit", message: "must be at most 50" }] } } });
        },
      },
    },
    {
      caughtBy: "filters", rule: "filters.matching", only: ["filters"], seedRule: true, breaks: ["endpoints.list-interviews"],
      mutation: { name: "reference_id dropped when study_id is also given", request(ex) { if (ex.path === "/api/v1/interviews" && ex.query.has("study_id")) ex.query.delete("reference_id"); } },
    },
    {
      caughtBy: "filters", rule: "filters.exact", only: ["filters"], seedRule: true, breaks: ["interview.reference-id", "endpoints.list-interviews"],
      mutation: {
        name: "reference_id matched as a case-insensitive prefix",
        async response(ex) {
          const ref = ex.query.get("reference_id");
          if (ex.path !== "/api/v1/interviews" || !ref || ex.status !== 200 || ex.query.get("starting_after")) return;
          const all = await ex.upstream("/api/v1/interviews?limit=100", { headers: auth(ex) });
          if (all.status === 200) ex.body.data = all.body.data.filter((i: any) => String(i.reference_id).toLowerCase().startsWith(ref.trim().toLowerCase()));
        },
      },
    },
      // Issue 23 groundwork: boundaries reached through the simulation surface's planted instants and fresh projects.
    {
      caughtBy: "windows", rule: "windows.weekly", only: ["windows"], seedRule: true, breaks: ["study.weekly-used", "limits.caps"],
      mutation: {
        name: "the weekly window runs Sunday to Saturday",
        async response(ex) {
          if (!/^\/api\/v1\/studies\/[0-9a-f-]{36}$/.test(ex.path) || ex.status !== 200 || ex.body?.limits?.weekly === undefined) return;
          const now = Date.parse(String(ex.headers.date ?? "")) || Date.now();
          const d = new Date(now);
          const sunday = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) - d.getUTCDay() * 86_400_000;
          const all = await ex.upstream(`/api/v1/interviews?limit=100&study_id=${ex.body.id}`, { headers: auth(ex) });
          if (all.status === 200) ex.body.limits.weekly.used = all.body.data.filter((i: any) => Date.parse(i.created_at) >= sunday).length;
        },
      },
    },
    {
      caughtBy: "windows", rule: "windows.never-configured", only: ["windows"], seedRule: true, breaks: ["errors.webhook-404", "endpoints.get-webhook"],
      mutation: { name: "an empty webhook configuration instead of 404 when none was ever configured", response(ex) { if (ex.method === "GET" && ex.path === "/api/v1/webhooks" && ex.status === 404) Object.assign(ex, { status: 200, body: { url: "", events: [] } }); } },
    },
    {
      caughtBy: "windows", rule: "windows.zero-cap", only: ["windows"], seedRule: true, breaks: ["states.accepting", "limits.caps", "study.accepting"],
      mutation: {
        name: "a cap of 0 read as unlimited",
        response(ex) {
          const fix = (s: any) => {
            if (s?.object !== "study" || s.status !== "active") return;
            const open = (l: any) => l.limit === null || l.limit === 0 || l.used < l.limit;
            s.accepting_responses = open(s.limits.weekly) && open(s.limits.monthly);
          };
          if (isList(ex.body)) ex.body.data.forEach(fix);
          else fix(ex.body);
        },
      },
    },
    {
      caughtBy: "windows", rule: "windows.statuses", only: ["windows"], seedRule: true, breaks: ["states.study", "endpoints.list-studies"],
      mutation: {
        name: "draft studies listed",
        async response(ex, proxy) {
          if (ex.method === "POST" && ex.path === "/api/_sim/studies" && ex.requestBody?.status === "draft" && ex.status === 201) proxy.memory.set("draft", ex.body.id);
          const draft = proxy.memory.get("draft");
          if (!draft || ex.method !== "GET" || ex.path !== "/api/v1/studies" || !isList(ex.body) || ex.query.get("starting_after")) return;
          const full = await ex.upstream(`/api/v1/studies/${draft}`, { headers: auth(ex) });
          if (full.status !== 200) return;
          const { research_goal: _g, product_name: _p, questions: _q, interview_count: _c, ...summary } = full.body;
          ex.body.data.unshift(summary);
        },
      },
    },
    {
      caughtBy: "windows", rule: "windows.fresh-isolation", only: ["windows"], seedRule: true, breaks: ["errors.retrieval-404", "auth.scope"],
      mutation: {
        name: "a new project's key sees the first project's studies",
        async response(ex) {
          if (ex.status !== 404 || !/^\/api\/v1\/studies\/[0-9a-f-]{36}$/.test(ex.path) || ex.requestHeaders.authorization?.includes(ACME)) return;
          const other = await ex.upstream(ex.path, { headers: { authorization: `Bearer ${ACME}` } });
          if (other.status === 200) Object.assign(ex, { status: 200, body: other.body, headers: other.headers });
        },
      },
    },
    ...seedVariants(),
    ...modelVariants(),
  ];
}
