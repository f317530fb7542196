/**
 * A server that follows the seed and nothing else: the reference server behind a proxy that replaces every
 * choice only our contract pins with another choice the seed allows. `--level seed` must pass it; `--level
 * contract` must fail it (on contract rules only). Its differences:
 * - errors are `{"error": "<message>", "details": [{loc: [where, field], msg}]}` (FastAPI's style), not our envelope;
 * - studies and interviews are listed oldest first, releases break ties by id ascending;
 * - an unknown cursor on lists other than messages gives an empty page (an item of the project that left the list since
 *   continues the walk after its place); unknown query parameters are ignored;
 * - a non-UUID path id is a 404; plain http:// webhook URLs are refused (HTTPS only, as the seed says);
 * - the experiments body and the participant shapes are its own (snake_case; trigger rules carry no token, and a
 *   launch names its rule by launch_rule_id), and the deprecated endpoint has no Link.
 */
import type { BrokenProxy, Exchange, Mutation } from "./proxy.ts";

const LISTS: Record<string, { key: string; desc: boolean; tieDesc: boolean }> = {
  "/api/v1/studies": { key: "created_at", desc: false, tieDesc: false },
  "/api/v1/interviews": { key: "created_at", desc: false, tieDesc: false },
  "/api/v1/releases": { key: "merged_at", desc: true, tieDesc: false },
};
const KNOWN = new Set(["limit", "starting_after", "study_id", "status", "reference_id", "quality_score", "interview_id", "referenceId"]);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Every item the upstream lists for `query`; null when it refuses the query (its refusal then stands). */
async function all(ex: Exchange, path: string, query: URLSearchParams): Promise<any[] | null> {
  const items: any[] = [];
  let after: string | undefined;
  for (;;) {
    const q = new URLSearchParams(query);
    q.set("limit", "100");
    if (after) q.set("starting_after", after);
    const page = await ex.upstream(`${path}?${q}`, { headers: { authorization: ex.requestHeaders.authorization ?? "" } });
    if (page.status !== 200) return after ? items : null;
    items.push(...page.body.data);
    if (!page.body.has_more) return items;
    after = page.body.data[page.body.data.length - 1].id;
  }
}

/** Serves a list in its own order, paginating itself. */
async function repaginate(ex: Exchange): Promise<void> {
  const spec = LISTS[ex.path];
  if (!spec || ex.method !== "GET" || ex.status === 401) return;
  // A parameter given twice is the upstream's to answer (a 400): read as one, it would be a reading of neither value.
  const names = [...ex.query.keys()];
  if (new Set(names).size < names.length) return;
  const limitText = ex.query.get("limit");
  const limit = limitText === null ? 20 : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100 || !/^\d+$/.test(limitText ?? "20")) return; // upstream's 400 stands
  const filters = new URLSearchParams(ex.query);
  filters.delete("limit");
  filters.delete("starting_after");
  const found = await all(ex, ex.path, filters);
  // A filter the upstream refused (an empty reference_id=, say) is its 400 to give: served as an empty list, it is a
  // reading of no value (the covering phase's empty-values unit caught it).
  if (found === null) return;
  const items = found;
  const cmp = (a: any, b: any) => (a[spec.key] < b[spec.key] ? -1 : a[spec.key] > b[spec.key] ? 1 : 0) * (spec.desc ? -1 : 1) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) * (spec.tieDesc ? -1 : 1);
  items.sort(cmp);
  const after = ex.query.get("starting_after");
  let start = 0;
  if (after !== null) {
    const at = items.findIndex((i) => i.id === after);
    if (at >= 0) start = at + 1;
    else {
      // An item of the project that left the list (a study paused, an interview of another status) still has its
      // place in the order: the walk continues after it, as a keyset server's does. Anything else is unknown.
      const item = await ex.upstream(`${ex.path}/${encodeURIComponent(after)}`, { headers: { authorization: ex.requestHeaders.authorization ?? "" } });
      if (item.status !== 200 || typeof item.body?.[spec.key] !== "string") {
        Object.assign(ex, { status: 200, body: { object: "list", data: [], has_more: false } });
        return;
      }
      start = items.findIndex((i) => cmp(i, item.body) > 0);
      if (start < 0) start = items.length;
    }
  }
  const data = items.slice(start, start + limit);
  Object.assign(ex, { status: 200, body: { object: "list", data, has_more: start + limit < items.length } });
}

function snake(value: any): any {
  if (Array.isArray(value)) return value.map(snake);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), snake(v)]));
}

/**
 * Its participant config in snake_case, and rules that carry no token (the seed shows none): a rule is launched by its
 * `launch_rule_id`, which the proxy turns back into the reference server's signed token.
 */
function tokenlessRules(ex: Exchange, proxy: BrokenProxy): void {
  if (ex.path !== "/api/v1/interview-participant/config" || ex.status !== 200) return;
  for (const list of [ex.body?.trigger_rules, ex.body?.audience_matches]) {
    for (const rule of Array.isArray(list) ? list : []) {
      proxy.memory.set(`token ${rule.launch_rule_id}`, rule.launch_token);
      delete rule.launch_token;
      delete rule.launch_token_expires_at;
    }
  }
}

function launchByRule(ex: Pick<Exchange, "method" | "path" | "requestBody">, proxy: BrokenProxy): void {
  const b = ex.requestBody;
  if (ex.method !== "POST" || ex.path !== "/api/v1/interview-participant/launches" || !b || typeof b !== "object") return;
  const rule = b.launch_rule_id ?? b.launchRuleId;
  if (b.launchToken !== undefined || b.inviteCode !== undefined || rule === undefined) return;
  const token = proxy.memory.get(`token ${rule}`);
  ex.requestBody = { referenceId: b.reference_id ?? b.referenceId ?? null, ...(token ? { launchToken: token } : { inviteCode: "unknown-rule" }), ...(b.trigger_event ?? b.event_name ? { triggerEvent: b.trigger_event ?? b.event_name } : {}) };
}

export const seedOnly: Mutation = {
  name: "a server that follows only the seed",
  request(ex, proxy) {
    for (const name of [...ex.query.keys()]) if (!KNOWN.has(name)) ex.query.delete(name);
    launchByRule(ex, proxy);
  },
  async response(ex, proxy) {
    if (ex.method === "PUT" && ex.path === "/api/v1/webhooks" && typeof ex.requestBody?.url === "string" && ex.requestBody.url.startsWith("http://") && ex.status < 300) {
      // Refused before it was stored: undo what the upstream stored, then answer 400.
      await ex.upstream("/api/v1/webhooks", { method: "DELETE", headers: { authorization: ex.requestHeaders.authorization ?? "" } });
      Object.assign(ex, { status: 400, body: { error: { message: "Invalid parameters", details: [{ location: "body", field: "url", message: "must be an HTTPS URL" }] } } });
    }
    if (ex.method === "GET" && /^\/api\/v1\/(studies|interviews|releases|chats)\/[^/]+$/.test(ex.path) && !UUID.test(ex.path.split("/").pop()!) && ex.status === 400) {
      Object.assign(ex, { status: 404, body: { error: { message: "Not found" } } });
    }
    await repaginate(ex);
    if (ex.path === "/api/v1/experiments") {
      delete ex.headers.link;
      if (ex.status === 200) ex.body = { experiments: ex.body.data, usage: ex.body.usage };
    }
    if (ex.path.startsWith("/api/v1/interview-participant/") && ex.status < 300) ex.body = snake(ex.body);
    tokenlessRules(ex, proxy);
    if (ex.status >= 400 && ex.body?.error && typeof ex.body.error === "object") {
      const { message, details } = ex.body.error;
      ex.body = { error: message, ...(details ? { details: details.map((d: any) => ({ loc: [d.location, d.field], msg: d.message })) } : {}) };
    }
  },
};
