/**
 * Changes to a copy of ../shared/foreign that the seed allows, one edit each: another implementation, equally
 * correct, may make any of these choices where the seed says nothing (or "not shown"). The suite must pass a copy with
 * all of them at once (test/conformance/allowed.test.ts): a verdict that fails one of them judges the server by our
 * habits, not by the seed. Each names the seed's words that leave the choice open.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FOREIGN_SERVER } from "../../support/foreign.ts";

export interface Allowance {
  name: string;
  /** The seed's words that leave the choice open. */
  leaves: string;
  find: string;
  replace: string;
}

export const ALLOWED: Allowance[] = [
  { name: "studies listed newest first", leaves: "Ordering: studies and interviews list order: not shown.",
    find: "const universe = [...studies.values()].filter((s) => s.projectId === project.id).sort(cmpAsc('createdAt'));\n  const items = universe.filter((s) => s.status === 'active');\n  send(res, 200, page(items, universe, cmpAsc('createdAt'),",
    replace: "const universe = [...studies.values()].filter((s) => s.projectId === project.id).sort(cmpDesc('createdAt'));\n  const items = universe.filter((s) => s.status === 'active');\n  send(res, 200, page(items, universe, cmpDesc('createdAt')," },
  { name: "interviews listed newest first", leaves: "Ordering: studies and interviews list order: not shown.",
    find: "const universe = [...interviews.values()].filter((i) => i.projectId === project.id).sort(cmpAsc('createdAt'));",
    replace: "const universe = [...interviews.values()].filter((i) => i.projectId === project.id).sort(cmpDesc('createdAt'));" },
  { name: "interviews paged newest first", leaves: "Ordering: studies and interviews list order: not shown.",
    find: "send(res, 200, page(items, universe, cmpAsc('createdAt'), p.limit, p.cursor, (i) => interviewView(i, false)));",
    replace: "send(res, 200, page(items, universe, cmpDesc('createdAt'), p.limit, p.cursor, (i) => interviewView(i, false)));" },
  { name: "items created at the same instant in the other order, where order is by time", leaves: "Releases and chats newest first; messages oldest first.",
    find: "function cmpAsc(key) { return (a, b) => (a[key] - b[key]) || (a.seq - b.seq); }\nfunction cmpDesc(key) { return (a, b) => (b[key] - a[key]) || (b.seq - a.seq); }",
    replace: "function cmpAsc(key) { return (a, b) => (a[key] - b[key]) || (b.seq - a.seq); }\nfunction cmpDesc(key) { return (a, b) => (b[key] - a[key]) || (a.seq - b.seq); }" },
  { name: "error bodies nested under `error`", leaves: "Exact JSON shape of error bodies in general and machine-readable error codes: not shown.",
    find: "const fail = (res, status, message, extra = {}, headers = {}) => send(res, status, { status, message, ...extra }, headers);",
    replace: "const fail = (res, status, message, extra = {}, headers = {}) => send(res, status, { error: { type: status === 401 ? 'authentication_error' : 'invalid_request_error', message, ...extra } }, headers);" },
  { name: "the interview link in the /interviews/ form", leaves: "handleLink | HTTPS URL of form `https://{host}/i/{inviteCode}` or `https://{host}/interviews/{inviteCode}`",
    find: "function studyLink(s) { return `https://${LINK_HOST}/i/${s.code}`; }",
    replace: "function studyLink(s) { return `https://${LINK_HOST}/interviews/${s.code}`; }" },
  { name: "the interview link in the /interviews/ form, as its test-support API reads it", leaves: "handleLink | HTTPS URL of form `https://{host}/i/{inviteCode}` or `https://{host}/interviews/{inviteCode}`",
    find: "const m = u && /^\\/i\\/([A-Za-z0-9_-]+)$/.exec(u.pathname);",
    replace: "const m = u && /^\\/interviews\\/([A-Za-z0-9_-]+)$/.exec(u.pathname);" },
  { name: "signing secrets of another form", leaves: "| signing_secret | string | returned only in the creation response |",
    find: "const secret = 'whsec_' + crypto.randomBytes(24).toString('hex');\n  project.webhook = { url: body.value.url, events, secret };",
    replace: "const secret = 'sk-' + crypto.randomBytes(32).toString('base64url');\n  project.webhook = { url: body.value.url, events, secret };" },
  { name: "DELETE /v1/webhooks with none configured answers 404", leaves: "| 404 | resource not found |",
    find: "function deleteWebhook(req, res, { project }) {\n  project.webhook = null;",
    replace: "function deleteWebhook(req, res, { project }) {\n  if (!project.webhook) return fail(res, 404, 'No webhook is configured for this project');\n  project.webhook = null;" },
  { name: "a path id that is not a UUID answered 400", leaves: "Paths with `:id` take a UUID.",
    find: "    return handler(req, res, ctx, ...ids);",
    replace: "    if (ids.some((x) => !UUID_ANYCASE_RE.test(x))) return fail(res, 400, 'Invalid id: ids are UUIDs', {}, ctx.headers);\n    return handler(req, res, ctx, ...ids);" },
  { name: "a status or quality_score filter outside the state set answered 400", leaves: "| 400 | invalid request body or parameters |",
    find: "  const universe = [...interviews.values()].filter((i) => i.projectId === project.id).sort(cmpDesc('createdAt'));",
    replace: "  if (filters.status !== undefined && !['started', 'processing', 'completed'].includes(filters.status)) return fail(res, 400, 'status must be started, processing or completed');\n  if (filters.quality_score !== undefined && !['insightful', 'successful', 'unsuccessful'].includes(filters.quality_score)) return fail(res, 400, 'quality_score must be insightful, successful or unsuccessful');\n  const universe = [...interviews.values()].filter((i) => i.projectId === project.id).sort(cmpDesc('createdAt'));" },
  { name: "a webhook with no events refused", leaves: "| PUT | /v1/webhooks | JSON body: `url` (string, required, HTTPS), `events` (string[], required) |",
    find: "  else if (!Array.isArray(b.events)) problems.push('events must be an array of event names');",
    replace: "  else if (!Array.isArray(b.events) || b.events.length === 0) problems.push('events must be a non-empty array of event names');" },
  { name: "a retry sends the first attempt's body again (its timestamp unchanged)", leaves: "| timestamp | string | when the event was sent |",
    find: "const body = Buffer.from(JSON.stringify(payloadFor(event)), 'utf8');",
    replace: "const body = (event.body ??= Buffer.from(JSON.stringify(payloadFor(event)), 'utf8'));" },
  { name: "more response headers", leaves: "All responses are JSON except `204`.",
    find: "res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store', ...headers });",
    replace: "res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'x-request-id': crypto.randomUUID(), vary: 'Authorization', ...headers });" },
  { name: "the deprecated report's experiments newest first", leaves: "| GET | /v1/experiments | | deprecated: project-level usage and per-experiment interview stats for all active experiments;",
    find: "    .sort(cmpAsc('createdAt')).map((s) => {",
    replace: "    .sort(cmpDesc('createdAt')).map((s) => {" },
  { name: "a cursor that is not an item of the list answered 400", leaves: "| 400 | invalid request body or parameters |",
    find: "    if (!cursor) return { object: 'list', data: [], has_more: false };",
    replace: "    if (!cursor) return { refused: 'starting_after is not an item of this list' };" },
  { name: "a cursor that left the list since (a study paused, an interview of another status) answered 400", leaves: "| 400 | invalid request body or parameters |",
    find: "    const cursor = universe.find((x) => x.id === cursorId);",
    replace: "    if (!items.some((x) => x.id === cursorId) && universe.some((x) => x.id === cursorId)) return { refused: 'starting_after is no longer an item of this list' };\n    const cursor = universe.find((x) => x.id === cursorId);" },
  { name: "a cursor that is not an item of the list answered 400, as sent", leaves: "| 400 | invalid request body or parameters |",
    find: "function send(res, status, body, headers = {}) {",
    replace: "function send(res, status, body, headers = {}) {\n  if (body && typeof body.refused === 'string') { body = { error: { type: 'invalid_request_error', message: body.refused } }; status = 400; }" },
  { name: "an empty limit (limit=) refused", leaves: "List endpoints take `limit` (integer, default 20, min 1, max 100)",
    find: "  if (raw === undefined || raw === '') return { value: 20 };",
    replace: "  if (raw === undefined) return { value: 20 };" },
  { name: "an empty limit (limit=) refused on messages", leaves: "`GET /v1/chats/:id/messages` validation: `limit` outside 1..100 or a `starting_after` that is not a UUID gives 400",
    find: "  else if (lims.length && lims[0] !== '') {",
    replace: "  else if (lims.length) {" },
  { name: "path ids read in any case", leaves: "All ids are UUID strings.",
    find: "    try { ids = ids.map(decodeURIComponent); }",
    replace: "    try { ids = ids.map((x) => decodeURIComponent(x).toLowerCase()); }" },
  { name: "a study_id filter that is not a UUID answered 400", leaves: "`study_id` (UUID, restricts to the study)",
    find: "  const universe = [...interviews.values()].filter((i) => i.projectId === project.id).sort(cmpDesc('createdAt'));",
    replace: "  if (filters.study_id !== undefined && !UUID_ANYCASE_RE.test(filters.study_id)) return fail(res, 400, 'study_id must be a UUID');\n  const universe = [...interviews.values()].filter((i) => i.projectId === project.id).sort(cmpDesc('createdAt'));" },
  { name: "retries a little later than their delays (up to 3% more)", leaves: "2. On a non-2xx answer or a timeout, delivery is retried up to 3 times: 1st retry after 10 seconds, 2nd after 1 minute, 3rd after 5 minutes.",
    find: "setTimeout(() => attempt(event, n + 1), WEBHOOK_RETRY_DELAYS_MS[n]);",
    replace: "setTimeout(() => attempt(event, n + 1), WEBHOOK_RETRY_DELAYS_MS[n] * (1 + Math.random() * 0.03));" },
  { name: "deliveries with more headers", leaves: "Headers:",
    find: "      'user-agent': 'interviews-webhooks/1',",
    replace: "      'user-agent': 'Mozilla/5.0 (compatible; InterviewHooks)', 'x-webhook-id': event.iv.id, 'x-webhook-attempt': String(n + 1)," },
  { name: "the interview list refused without study_id", leaves: "Whether `study_id` is mandatory on the interview list: not shown (every example supplies it).",
    find: "  if (filters.study_id !== undefined && !UUID_ANYCASE_RE.test(filters.study_id)) return fail(res, 400, 'study_id must be a UUID');",
    replace: "  if (filters.study_id === undefined) return fail(res, 400, 'study_id is required');\n  if (!UUID_ANYCASE_RE.test(filters.study_id)) return fail(res, 400, 'study_id must be a UUID');" },
  { name: "a billing period from the 15th of each month", leaves: "| limits.monthly.used | integer | interviews used in the current billing period |",
    find: "  const m0 = monthStart(now), m1 = monthStart(Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth() + 1, 1));",
    replace: "  const d0 = new Date(now), back = d0.getUTCDate() < 15 ? 1 : 0;\n  const m0 = Date.UTC(d0.getUTCFullYear(), d0.getUTCMonth() - back, 15), m1 = Date.UTC(d0.getUTCFullYear(), d0.getUTCMonth() - back + 1, 15);" },
  { name: "a hidden or unknown chat's messages answered 404 before their parameters are read", leaves: "2. Chat endpoints (`/v1/chats/:id`, `/v1/chats/:id/messages`) also return 404 when the chat is internal, evaluation or release-generated.",
    find: "  if (details.length) return fail(res, 400, 'Invalid parameters', { details });\n  const c = visibleChat(project, id);\n  if (!c) return fail(res, 404, 'There is no chat with this id');",
    replace: "  const c = visibleChat(project, id);\n  if (!c) return fail(res, 404, 'There is no chat with this id');\n  if (details.length) return fail(res, 400, 'Invalid parameters', { details });" },
  { name: "the payload's interview_link always the study's link", leaves: "| data.interview_link | string or null | public interview URL |",
    find: "interview_link: iv.openedVia ?? studyLink(study), status: 'completed',", replace: "interview_link: studyLink(study), status: 'completed'," },
  { name: "webhook URLs past 512 characters refused", leaves: "| url | string | HTTPS endpoint |",
    find: "else if (b.url.length > 2048) problems.push('url is longer than 2048 characters');", replace: "else if (b.url.length > 512) problems.push('url is longer than 512 characters');" },
  { name: "a webhook's events kept without repeats", leaves: "| events | string[] | currently only `interview.completed` |",
    find: "  const events = [...body.value.events];", replace: "  const events = [...new Set(body.value.events)];" },
  { name: "a webhook body with fields besides url and events refused", leaves: "| 400 | invalid request body or parameters |",
    find: "  if (!isObj(b)) return ['the body must be a JSON object with url and events'];", replace: "  if (!isObj(b)) return ['the body must be a JSON object with url and events'];\n  for (const k of Object.keys(b)) if (k !== 'url' && k !== 'events') return [`unknown field ${k}`];" },
  { name: "an empty filter value (reference_id=) refused", leaves: "`reference_id` (string)",
    find: "    if (all.length) filters[name] = all[0];\n  }", replace: "    if (all.length) filters[name] = all[0];\n    if (all.length && all[0] === '') return fail(res, 400, `${name} must not be empty`);\n  }" },
  { name: "the Deprecation header in its older form (`true`)", leaves: "all its responses carry `Deprecation` and `Sunset` headers",
    find: "const DEPRECATED_SINCE = 'Thu, 01 Jan 2026 00:00:00 GMT';", replace: "const DEPRECATED_SINCE = 'true';" },
  { name: "deliveries sent chunked, with a charset on their Content-Type", leaves: "Method: HTTP POST with a JSON body.",
    find: "      'content-type': 'application/json', 'content-length': body.length,", replace: "      'content-type': 'application/json; charset=utf-8'," },
  { name: "payloads pretty-printed, with an event id and the project's id besides the seed's fields", leaves: "Receivers verify by recomputing the value over the raw body",
    find: "const body = (event.body ??= Buffer.from(JSON.stringify(payloadFor(event)), 'utf8'));", replace: "const body = (event.body ??= Buffer.from(JSON.stringify({ ...payloadFor(event), id: 'evt_' + event.iv.id, data: { ...payloadFor(event).data, project_id: event.project.id } }, null, 2), 'utf8'));" },
  { name: "timestamps written with +00:00 for UTC", leaves: "All timestamps are ISO 8601 strings (UTC, millisecond precision).",
    find: "const iso = (ms) => new Date(ms).toISOString();", replace: "const iso = (ms) => new Date(ms).toISOString().replace('Z', '+00:00');" },
  { name: "rate limited: 50 requests a second per project, past them 429 with Retry-After", leaves: "Request rate limits: not shown.",
    find: "  ctx.project = project;\n  const done = await dispatch(apiRoutes", replace: "  ctx.project = project;\n  const bucket = RATE.get(project.id) ?? { t: Date.now(), n: 50 };\n  bucket.n = Math.min(50, bucket.n + (Date.now() - bucket.t) * 0.05); bucket.t = Date.now(); RATE.set(project.id, bucket);\n  if (bucket.n < 1) return fail(res, 429, 'Too many requests', {}, { 'retry-after': '1', ...ctx.headers });\n  bucket.n -= 1;\n  const done = await dispatch(apiRoutes" },
  { name: "rate limited, its buckets", leaves: "Request rate limits: not shown.",
    find: "const METHODS = ['GET', 'PUT', 'POST', 'DELETE', 'PATCH'];", replace: "const METHODS = ['GET', 'PUT', 'POST', 'DELETE', 'PATCH'];\nconst RATE = new Map();" },
  { name: "a list envelope with a field besides object, data and has_more", leaves: "### List envelope",
    find: "  return { object: 'list', data: data.map(view), has_more: rest.length > limit };", replace: "  return { object: 'list', data: data.map(view), has_more: rest.length > limit, url: 'list' };" },
  { name: "every connection closed after its answer", leaves: "All responses are JSON except `204`.",
    find: "'x-request-id': crypto.randomUUID(), vary: 'Authorization', ...headers });", replace: "'x-request-id': crypto.randomUUID(), vary: 'Authorization', connection: 'close', ...headers });" },
  { name: "the study list kept fresh for a few minutes", leaves: "Study capacity changes rarely; callers may cache the study list for a few minutes.",
    find: "  const text = JSON.stringify(body);", replace: "  if (status === 200 && /\\/v1\\/studies(\\?|$)/.test(res.req?.url ?? '')) headers = { 'cache-control': 'private, max-age=300', ...headers };\n  const text = JSON.stringify(body);" },
  // The seed names no validators; a cache it lets callers keep revalidates with HTTP's own (RFC 9110 8.8 and 13.1): an
  // ETag that changes with the answer, and its 304, are correct.
  { name: "an ETag of each answer's bytes, and a 304 to a read that names the current one", leaves: "Study capacity changes rarely; callers may cache the study list for a few minutes.",
    find: "  const text = JSON.stringify(body);", replace: "  const text = JSON.stringify(body);\n  if (status === 200 && res.req?.method === 'GET') { const tag = '\"' + crypto.createHash('sha256').update(text).digest('base64url') + '\"'; headers = { ...headers, etag: tag }; if (res.req.headers['if-none-match'] === tag) { res.writeHead(304, { etag: tag, 'cache-control': 'no-store' }); return res.end(); } }" },
];

/** A copy of the foreign server with every change of `list` made; returns its path. Each edit must apply exactly once. */
export function plantAll(list: Allowance[], dir = mkdtempSync(join(tmpdir(), "foreign-allowed-"))): string {
  let source = readFileSync(FOREIGN_SERVER, "utf8");
  for (const a of list) {
    const at = source.indexOf(a.find);
    if (at < 0 || source.indexOf(a.find, at + 1) >= 0) throw new Error(`the change "${a.name}" does not apply once to ${FOREIGN_SERVER}`);
    source = source.slice(0, at) + a.replace + source.slice(at + a.find.length);
  }
  const file = join(dir, "server.mjs");
  writeFileSync(file, source);
  return file;
}
