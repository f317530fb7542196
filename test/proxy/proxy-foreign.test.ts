// The contract-checking proxy in front of ../shared/foreign, an implementation written from the seed alone (other error
// bodies, its own experiments report and participant shapes, studies and interviews oldest first): driven by the
// typed client, it finds nothing at --level seed; with one seed violation planted in a copy, it flags it with the rule
// named. The violations are the kinds the hidden sets written for the proxy (2026-12-03 and since) found it missing.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProxy, type RunningProxy } from "../../conformance/src/proxy/index.ts";
import type { Report } from "../../conformance/src/run.ts";
import { createApiClient, paginate, retryingFetch } from "../../sdk/src/index.ts";
import { ALLOWED, plantAll } from "../conformance/foreign/allowed.ts";
import { plant, VIOLATIONS as SUITE_VIOLATIONS, type Violation } from "../conformance/foreign/violations.ts";
import { FOREIGN, FOREIGN_SERVER, startForeign } from "../support/foreign.ts";

const failures = (report: Report) => report.results.find((r) => r.name === "implementation")!.failures.map((f) => `${f.rule}: ${f.message}`);
const rulesOf = (report: Report) => [...new Set(report.results.find((r) => r.name === "implementation")!.failures.map((f) => f.rule))];
const H = (key: string) => ({ authorization: `Bearer ${key}` });

/**
 * fetch, waiting out a 429 as its Retry-After asks (an implementation may limit its rate: the seed leaves it open), as
 * the typed client does: the SDK's own retrying fetch. Every attempt passes through the proxy and is judged.
 */
const politeFetch = retryingFetch(fetch, { retries: 20 });

/** One of the suite's own fixed cases (test/conformance/foreign/violations.ts), judged here by the proxy's `rule`. */
const suiteCase = (name: string, rule: string): Violation => ({ ...SUITE_VIOLATIONS.find((v) => v.name === name)!, rule });

/**
 * What a client does through the proxy: every list walked at a small page and whole, every item read, each chat's
 * messages walked, the filters and the deprecated report, the errors the seed prescribes, a poll for what came after
 * each list's last item, and the webhook's whole life with one delivery relayed (the interview completed through the
 * implementation's own test-support API), its interview and study read before and after, and its study paused.
 */
async function drive(proxyUrl: string, origin: string, relayUrl: string, delivered: () => number, hookBase: string): Promise<void> {
  const testing = (method: string, path: string, body: unknown) => fetch(`${origin}/testing/${path}`, { method, headers: { "x-testing-token": "testing", "x-testing-project": FOREIGN.globex, "content-type": "application/json" }, body: JSON.stringify(body) }).then((r) => r.json() as Promise<{ id: string }>);
  // A study of its own (someone set one up in the product), read with the others below long before its interview starts.
  const questions = ["What were you trying to do?", "What got in the way?"];
  const name = "Étude du proxy: café ☕";
  const study = (await testing("POST", "studies", { name, questions })).id;
  for (const key of [FOREIGN.acme, FOREIGN.globex]) {
    // The client waits out a 429 as it asks (an implementation may limit its rate: the seed leaves it open); every
    // attempt passes through the proxy and is judged.
    const client = createApiClient({ baseUrl: proxyUrl, apiKey: key, retry: { retries: 10 } });
    for (const path of ["/v1/studies", "/v1/releases", "/v1/chats"] as const) {
      for await (const item of paginate(client, path, { query: { limit: 3 } } as never)) {
        const id = (item as { id: string }).id;
        // An answer the client cannot read (not JSON, not UTF-8) is the implementation's finding; the client goes on.
        await (client.GET as any)(`${path}/{id}`, { params: { path: { id } } }).catch(() => undefined);
        if (path === "/v1/chats") for await (const _ of paginate(client, "/v1/chats/{id}/messages", { path: { id }, query: { limit: 2 } } as never));
        if (path === "/v1/studies") for await (const i of paginate(client, "/v1/interviews", { query: { study_id: id, limit: 2 } } as never)) await (client.GET as any)("/v1/interviews/{id}", { params: { path: { id: (i as { id: string }).id } } });
      }
    }
    for (const path of ["/v1/interviews", "/v1/releases", "/v1/chats"] as const) {
      try {
        for await (const _ of paginate(client, path, { query: { limit: 100 } } as never));
      } catch (err) {
        // An implementation may refuse the interview list without study_id (the seed leaves it open): a client's error.
        if (path !== "/v1/interviews") throw err;
      }
    }
    for await (const _ of paginate(client, "/v1/chats", { query: {} } as never));
    for (const q of ["interviews?status=completed", "interviews?status=started", "interviews?quality_score=insightful", "interviews?reference_id=user_42&status=completed", "releases?status=dismissed"]) await politeFetch(`${proxyUrl}/v1/${q}`, { headers: H(key) });
    await politeFetch(`${proxyUrl}/v1/interviews/00000000-0000-4000-8000-000000000000`, { headers: H(key) });
    await client.GET("/v1/experiments");
    // The deprecated endpoint without a key: 401, announced as every answer of it is (or, removed, owed nothing).
    await politeFetch(`${proxyUrl}/v1/experiments`);
    // (A page refused here is the implementation's finding; the client goes on without it.)
    const chat = ((await (await politeFetch(`${proxyUrl}/v1/chats?limit=1`, { headers: H(key) })).json()) as { data?: Array<{ id: string }> }).data?.[0]?.id;
    // Both parameters invalid at once (one validation issue each), the largest page, and a message of another chat as
    // the cursor (not a visible message of this chat: 400, never the chat's 404).
    const elsewhere = await messageOfAnotherChat(proxyUrl, key, chat);
    if (chat) for (const q of ["limit=0", "limit=101", "starting_after=abc", "limit=0&starting_after=abc", "limit=100", "starting_after=00000000-0000-4000-8000-000000000000", ...(elsewhere ? [`starting_after=${elsewhere}`] : [])]) await politeFetch(`${proxyUrl}/v1/chats/${chat}/messages?${q}`, { headers: H(key) });
    await politeFetch(`${proxyUrl}/v1/studies/00000000-0000-4000-8000-000000000000`, { headers: H(key) });
    // A client's mistake the implementation must refuse.
    await politeFetch(`${proxyUrl}/v1/releases?limit=abc`, { headers: H(key) });
    await politeFetch(`${proxyUrl}/v1/chats`, { headers: { authorization: "Bearer sk_test_not_a_project_key" } });
    // What came after each list's last item (a client that polls for new ones; past has_more false, the client's).
    for (const list of ["studies", "releases", "chats", "interviews", ...(chat ? [`chats/${chat}/messages`] : [])]) await pollAfterLast(proxyUrl, key, list);
  }
  // A client's slip with two projects' keys: the first item of each of one project's lists read with the other's key.
  for (const [owner, reader] of [[FOREIGN.acme, FOREIGN.globex], [FOREIGN.globex, FOREIGN.acme]]) {
    for (const list of ["studies", "interviews", "releases", "chats"]) {
      const first = ((await (await politeFetch(`${proxyUrl}/v1/${list}?limit=1`, { headers: H(owner) })).json()) as { data?: Array<{ id: string }> }).data?.[0]?.id;
      if (first) await politeFetch(`${proxyUrl}/v1/${list}/${first}`, { headers: H(reader) });
    }
  }
  await participant(proxyUrl);
  const hook = (method: string, body?: unknown) => politeFetch(`${hookBase}/v1/webhooks`, { method, headers: { ...H(FOREIGN.globex), "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  await hook("DELETE");
  await hook("PUT", { url: relayUrl }); // a client's mistake: events are required
  await hook("PUT", { url: relayUrl, events: ["interview.completed"] });
  await hook("GET");
  // A lost secret replaced (Authentication 5): deleted and created again, then updated (the delivery below is signed
  // with the secret of that creation).
  await hook("DELETE");
  await hook("PUT", { url: relayUrl, events: ["interview.completed"] });
  // An update to another URL (the relay's, with a query), read back, then back to the first.
  await hook("PUT", { url: `${relayUrl}?moved=1`, events: ["interview.completed"] });
  await hook("GET");
  await hook("PUT", { url: relayUrl, events: ["interview.completed"] });
  await hook("GET");
  // Its respondent comes a while after the study was read (its questions were those when the interview started).
  await new Promise((r) => setTimeout(r, 1_100));
  const interview = await testing("POST", "interviews", { study_id: study, reference_id: "proxy_foreign", language: "de" });
  const read = (path: string) => politeFetch(`${proxyUrl}/v1/${path}`, { headers: H(FOREIGN.globex) });
  // Read as it starts, with its study (an app showing an interview in progress).
  await read(`interviews/${interview.id}`);
  await read(`studies/${study}`);
  await testing("POST", `interviews/${interview.id}:finish`, {});
  // The seed's bound: a delivery within 30 s of the completion.
  // Its first attempt is answered 503 (naming a wait of an hour), so it comes again after the first delay: the retry's
  // headers, signature and bytes are judged as the first's, and its time by the schedule the service was given.
  for (let i = 0; i < 1_200 && delivered() < 1; i++) await new Promise((r) => setTimeout(r, 25));
  for (let i = 0; i < 200 && delivered() < 2; i++) await new Promise((r) => setTimeout(r, 25));
  // Once delivered: the interview, its study's interviews and the study, and the interviews by each filter it matches.
  const done = (await (await read(`interviews/${interview.id}`)).json()) as { quality_score?: string };
  const walk = async (query: string) => {
    let page: { data?: Array<{ id: string }>; has_more?: boolean } = { has_more: true };
    for (let after = ""; page.has_more && page.data?.length !== 0; after = page.data?.at(-1)?.id ?? "") page = (await (await read(`interviews?${query}${after ? `&starting_after=${after}` : ""}`)).json()) as typeof page;
  };
  await walk(`study_id=${study}&limit=2`);
  await read(`studies/${study}`);
  // A second respondent, in the study's own language (English), completed and read once delivered (its first attempt
  // fails too, so it comes twice).
  const second = await testing("POST", "interviews", { study_id: study, reference_id: "proxy_foreign_en" });
  await testing("POST", `interviews/${second.id}:finish`, {});
  for (let i = 0; i < 1_200 && delivered() < 4; i++) await new Promise((r) => setTimeout(r, 25));
  await read(`interviews/${second.id}`);
  const filters = ["reference_id=proxy_foreign", "status=completed&limit=100", `quality_score=${done.quality_score}&limit=100`];
  for (const q of filters) await walk(q);
  // Its study paused (in the product): the interview is the project's still, listed by each filter it matches.
  for (const status of ["paused", "draft"]) {
    await testing("PUT", `studies/${study}`, { name, questions, status });
    await read(`studies/${study}`);
    for (const q of ["limit=100", ...filters, `study_id=${study}`]) await walk(q);
  }
  // A chat begun since the chats were last listed (someone asked the agent), opened by its id, then the chats walked.
  await read("chats?limit=5");
  const started = await testing("POST", "chats", { title: "Proxy chat", messages: [{ role: "user", parts: [{ type: "text", text: "What changed this week?" }] }] });
  await read(`chats/${started.id}`);
  await pollAfterLast(proxyUrl, FOREIGN.globex, "chats");
  // A client's slips: a method the path does not take, and a path that is no endpoint (answered in JSON all the same).
  await politeFetch(`${proxyUrl}/v1/studies`, { method: "DELETE", headers: H(FOREIGN.globex) });
  await read("study");
  // Subscribed to nothing for a while (an implementation may refuse events [] with a 400: then nothing changed).
  await hook("PUT", { url: relayUrl, events: [] });
  await hook("GET");
  await hook("DELETE");
}

/** A list walked whole at its largest page, asked for what came after its last item, then walked again (refreshed). */
async function pollAfterLast(proxyUrl: string, key: string, list: string): Promise<void> {
  const walk = async (): Promise<string | undefined> => {
    let page: { data?: Array<{ id: string }>; has_more?: boolean } = { has_more: true };
    let last: string | undefined;
    while (page.has_more) {
      page = (await (await politeFetch(`${proxyUrl}/v1/${list}?limit=100${last ? `&starting_after=${last}` : ""}`, { headers: H(key) })).json()) as typeof page;
      if (!page.data?.length) break;
      last = page.data.at(-1)!.id;
    }
    return last;
  };
  const last = await walk();
  if (!last) return;
  await politeFetch(`${proxyUrl}/v1/${list}?limit=100&starting_after=${last}`, { headers: H(key) });
  await walk();
}

/** A message of a chat other than `chat` that the key reads, or none. */
async function messageOfAnotherChat(proxyUrl: string, key: string, chat: string | undefined): Promise<string | undefined> {
  const chats = ((await (await politeFetch(`${proxyUrl}/v1/chats?limit=5`, { headers: H(key) })).json()) as { data?: Array<{ id: string }> }).data ?? [];
  for (const other of chats.filter((c) => c.id !== chat)) {
    const page = (await (await politeFetch(`${proxyUrl}/v1/chats/${other.id}/messages?limit=1`, { headers: H(key) })).json()) as { data?: Array<{ id: string }> };
    if (page.data?.[0]) return page.data[0].id;
  }
  return undefined;
}

/**
 * The participant endpoints as the mobile library calls them (the public key, our contract's request shapes): the
 * trigger config, a launch of each rule it offers and of each study's own link opened as an invite, with the studies
 * read before and after (some of them at a cap, so their launches are declined).
 */
async function participant(proxyUrl: string): Promise<void> {
  const pk = { "x-public-key": FOREIGN.publicKey };
  const studies = async () => ((await (await politeFetch(`${proxyUrl}/v1/studies?limit=100`, { headers: H(FOREIGN.acme) })).json()) as { data: Array<{ interview_link: string }> }).data;
  const listed = await studies();
  const config = (await (await politeFetch(`${proxyUrl}/v1/interview-participant/config?referenceId=proxy_user`, { headers: pk })).json()) as { rules?: Array<{ eventName: string; launch?: { token?: string } }> };
  const launch = (body: unknown) => politeFetch(`${proxyUrl}/v1/interview-participant/launches`, { method: "POST", headers: { ...pk, "content-type": "application/json" }, body: JSON.stringify(body) });
  for (const rule of config.rules ?? []) await launch({ referenceId: "proxy_user", launchToken: rule.launch?.token, triggerEvent: rule.eventName });
  for (const s of listed) {
    const code = /\/i\/([^/]+)$/.exec(new URL(s.interview_link).pathname)?.[1];
    if (code) await launch({ referenceId: "proxy_user", inviteCode: code });
  }
  await studies();
}

/**
 * The foreign server (or a changed copy, `server`) behind the proxy at --level seed, with retries after `delays`, and
 * a receiver that answers every delivery `status` (naming `retryAfter` where given; with `firstFails`, each event's
 * first attempt 503, naming a wait of an hour), relayed through the proxy; `run` drives traffic, then the proxy's
 * report and how many deliveries arrived. Everything started is stopped, whatever `run` does.
 */
async function behindProxy(server: string | undefined, o: { delays: number[]; status: number; retryAfter?: string; firstFails?: boolean; judgeDelays?: number[] }, run: (proxy: RunningProxy, origin: string, baseUrl: string, delivered: () => number) => Promise<void>): Promise<{ report: Report; delivered: number }> {
  const foreign = await startForeign({ WEBHOOK_ALLOW_HTTP: "1", SIM_PROCESSING_MS: "100", WEBHOOK_RETRY_DELAYS_MS: o.delays.join(",") }, server);
  let delivered = 0;
  const attempts = new Map<string, number>();
  const receiver: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      delivered++;
      let id = "";
      try {
        id = String(JSON.parse(Buffer.concat(chunks).toString("utf8"))?.data?.interview_id);
      } catch {
        // not a payload: counted all the same
      }
      attempts.set(id, (attempts.get(id) ?? 0) + 1);
      // An event's first attempt failed where asked (503, naming a wait of an hour): its retry then shows what retries carry.
      const failing = o.firstFails && attempts.get(id) === 1;
      res.statusCode = failing ? 503 : o.status;
      if (o.retryAfter || failing) res.setHeader("retry-after", o.retryAfter ?? "3600");
      res.end();
    });
  });
  await new Promise<void>((ok) => receiver.listen(0, "127.0.0.1", ok));
  const proxy = await startProxy({ target: foreign.baseUrl, level: "seed", relayWebhooks: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, webhookRetryDelaysMs: o.judgeDelays, print: () => {} });
  try {
    await run(proxy, foreign.origin, foreign.baseUrl, () => delivered);
    await proxy.settled();
    return { report: await proxy.close(), delivered };
  } finally {
    await proxy.close();
    receiver.close();
    await foreign.close();
  }
}

/**
 * Runs the foreign server (or a changed copy) behind the proxy at --level seed with the traffic above; the report.
 * `direct`: the webhook is set on the server itself, not through the proxy, so the proxy never sees its secret.
 */
const throughProxy = (server?: string, direct = false) =>
  behindProxy(server, { delays: [200, 400, 600], status: 204, firstFails: true, judgeDelays: [200, 400, 600] }, (proxy, origin, baseUrl, delivered) => drive(proxy.url, origin, proxy.relayUrl!, delivered, direct ? baseUrl : proxy.url));

/** The retry schedule the copies below are configured with: short, and far enough apart that one delay is not the next. */
const DELAYS = [1_500, 3_000, 4_500];

/**
 * A receiver that answers every delivery 500, and one interview completed: its retries relayed and judged by DELAYS.
 * Waits for `attempts` deliveries, then for the window in which one more would come.
 */
const retriesThroughProxy = (server: string | undefined, attempts: number, answer: { status: number; retryAfter?: string } = { status: 500 }) =>
  behindProxy(server, { delays: DELAYS, ...answer, judgeDelays: DELAYS }, async (proxy, origin, _baseUrl, delivered) => {
    // Its fixtures configure a webhook: replaced by one pointing at the relay, whose secret the proxy sees issued.
    await fetch(`${proxy.url}/v1/webhooks`, { method: "DELETE", headers: H(FOREIGN.globex) });
    const put = await fetch(`${proxy.url}/v1/webhooks`, { method: "PUT", headers: { ...H(FOREIGN.globex), "content-type": "application/json" }, body: JSON.stringify({ url: proxy.relayUrl, events: ["interview.completed"] }) });
    expect(put.status).toBe(201);
    const studies = ((await (await fetch(`${proxy.url}/v1/studies?limit=100`, { headers: H(FOREIGN.globex) })).json()) as { data: Array<{ id: string; accepting_responses: boolean }> }).data;
    const testing = (path: string, body: unknown) => fetch(`${origin}/testing/${path}`, { method: "POST", headers: { "x-testing-token": "testing", "x-testing-project": FOREIGN.globex, "content-type": "application/json" }, body: JSON.stringify(body) }).then((r) => r.json() as Promise<{ id: string }>);
    const interview = await testing("interviews", { study_id: (studies.find((s) => s.accepting_responses) ?? studies[0]).id, reference_id: "proxy_retries" });
    await testing(`interviews/${interview.id}:finish`, {});
    for (let i = 0; i < 1_000 && delivered() < attempts; i++) await new Promise((r) => setTimeout(r, 25));
    // The window of one more retry after the last: the last delay, with its room for lateness.
    await new Promise((r) => setTimeout(r, DELAYS[DELAYS.length - 1] * 1.5 + 1_500));
  });

// One edit each of the foreign server, with the rule that must flag it from the traffic above.
const VIOLATIONS: Violation[] = [
  { name: "draft studies listed", breaks: "Endpoints: GET /v1/studies lists active studies", rule: "windows.statuses",
    find: "const items = universe.filter((s) => s.status === 'active');", replace: "const items = universe;" },
  { name: "chats whose source is eval listed", breaks: "Chat: source, internal-only sources are never returned", rule: "chats.hidden-not-listed",
    find: "const chatVisible = (c) => c.visibility === 'visible' && !INTERNAL_SOURCES.has(c.source);", replace: "const chatVisible = (c) => c.visibility === 'visible';" },
  { name: "usage on user messages", breaks: "Message: usage, assistant messages only", rule: "fields.usage-roles",
    find: "usage: m.role === 'assistant' ? usageView(m.usage) : null,", replace: "usage: usageView(m.usage)," },
  { name: "GET /v1/webhooks shows the secret", breaks: "Endpoints: GET /v1/webhooks, never the secret", rule: "webhooks.secret-hidden",
    find: "send(res, 200, { url: project.webhook.url, events: [...project.webhook.events] });", replace: "send(res, 200, { url: project.webhook.url, events: [...project.webhook.events], signing_secret: project.webhook.secret });" },
  { name: "an update shows the secret", breaks: "Webhook configuration: signing_secret, returned only in the creation response", rule: "webhooks.update",
    find: "return send(res, 200, { url: project.webhook.url, events: [...events] });", replace: "return send(res, 200, { url: project.webhook.url, events: [...events], signing_secret: project.webhook.secret });" },
  { name: "DELETE /v1/webhooks answers 200 with a body", breaks: "Endpoints: DELETE /v1/webhooks, 204, empty body", rule: "webhooks.delete-204",
    find: "  project.webhookGen++;\n  send(res, 204, null);", replace: "  project.webhookGen++;\n  send(res, 200, { deleted: true });" },
  { name: "a truncated tool input without markers", breaks: "Message: Truncation, the object gains truncated and truncation_reason", rule: "truncation.markers",
    find: "if (jsonBytes(out.input) > PAYLOAD_CAP) { out.input = null; truncMarks(out); }", replace: "if (jsonBytes(out.input) > PAYLOAD_CAP) { out.input = null; }" },
  { name: "studies walked past the cursor skip one", breaks: "Endpoints: starting_after", rule: "proxy.walk-once",
    find: "rest = items.filter((x) => cmp(x, cursor) > 0);", replace: "rest = items.filter((x) => cmp(x, cursor) > 0).slice(1);" },
  { name: "deliveries signed in upper-case hex", breaks: "Events: X-Webhook-Signature, lowercase hex", rule: "proxy.relay-signature",
    find: "const signature = 'sha256=' + crypto.createHmac('sha256', event.secret).update(body).digest('hex');", replace: "const signature = 'sha256=' + crypto.createHmac('sha256', event.secret).update(body).digest('hex').toUpperCase();" },
  { name: "deliveries without session_id", breaks: "Versioning 4: both forms are sent", rule: "webhooks.payload",
    find: "session_id: iv.id, experiment_id: study.id,", replace: "experiment_id: study.id," },
  { name: "translated on an English interview", breaks: "Interview: transcript translated, present only for non-English interviews", rule: "fields.translated",
    find: "const translate = !isEnglish(iv.language);", replace: "const translate = true;" },
  { name: "question_index from 1", breaks: "Interview: question_answers, question_index 0-based", rule: "fields.question-answers",
    find: "qa.push({ question_index: i, question_text", replace: "qa.push({ question_index: i + 1, question_text" },
  { name: "the interviews' status filter ignored", breaks: "Endpoints: GET /v1/interviews status", rule: "filters.matching",
    find: "if (filters.status !== undefined && i.status !== filters.status) return false;", replace: "" },
  { name: "accepting at the weekly cap", breaks: "States and transitions: derived rule, accepting_responses", rule: "capacity.accepting-at-cap",
    find: "const within = (used, limit) => limit === null || used < limit;", replace: "const within = (used, limit) => limit === null || used <= limit;" },
  { name: "an unknown interview answered 400", breaks: "Errors 1: a single-resource retrieval returns 404 when the id does not exist", rule: "schema.unknown-id",
    find: "if (!iv || iv.projectId !== project.id) return fail(res, 404, 'There is no interview with this id');", replace: "if (!iv || iv.projectId !== project.id) return fail(res, 400, 'There is no interview with this id');" },
  { name: "no sources shown as []", breaks: "Message: sources, null when none", rule: "fields.null-forms",
    find: "sources: Array.isArray(m.sources) && m.sources.length ? m.sources.map(sourceView) : null,", replace: "sources: Array.isArray(m.sources) ? m.sources.map(sourceView) : []," },
  { name: "interview_count one too many", breaks: "Study: interview_count, total completed interviews", rule: "capacity.interview-count",
    find: "out.interview_count = u.completed;", replace: "out.interview_count = u.completed + 1;" },
  // From a third set (16 violations the suite's own hidden sets caught, driven through the proxy: 12 flagged; of the
  // four left, three need traffic this client does not send or a value it cannot know was planted).
  { name: "a redacted_thinking part with its data", breaks: "Part types: redacted_thinking, no other fields", rule: "chats.public-parts",
    find: "case 'redacted_thinking': return { type: 'redacted_thinking' };", replace: "case 'redacted_thinking': return { type: 'redacted_thinking', data: p.data ?? '' };" },
  // From a fourth (the suite's twenty-third and twenty-fifth hidden sets, 92 violations, driven through the proxy: 33
  // flagged at first; most of the rest need traffic this client does not send, or a value it cannot know was planted).
  // These six the traffic shows: a delivery against the interview's reads, a chat against its messages read before.
  { name: "a delivery's timestamp to the second", breaks: "Resources: all timestamps with millisecond precision", rule: "response.timestamps",
    find: "    timestamp: iso(Date.now()),", replace: "    timestamp: iso(Date.now()).replace(/\\.\\d{3}Z$/, 'Z')," },
  { name: "the interview read processing after its delivery", breaks: "Events: fetch the transcript with GET /v1/interviews/:id; States: sent with status completed after processing finishes", rule: "webhooks.payload-matches",
    find: "  iv.status = 'completed';\n", replace: "  iv.status = 'processing';\n  setTimeout(() => { iv.status = 'completed'; }, 2000);\n" },
  { name: "no email read as empty, sent as null", breaks: "Interview: respondent_email, null if not collected; Events: body", rule: "webhooks.payload-matches",
    find: "respondent_email: iv.respondentEmail, language: iv.language,", replace: "respondent_email: iv.respondentEmail ?? '', language: iv.language," },
  { name: "a chat's updated_at before its messages", breaks: "Chat: updated_at, most recent update", rule: "fields.updated-at",
    find: "created_at: iso(c.createdAt), updated_at: iso(updated) };", replace: "created_at: iso(c.createdAt), updated_at: iso(c.createdAt) };" },
  { name: "translated on the respondent's turns only", breaks: "Interview: transcript translated, for non-English interviews", rule: "fields.translated",
    find: "if (translate) e.translated = en;", replace: "if (translate && role === 'user') e.translated = en;" },
  // And the webhook's life through one key: a re-created webhook's secret, what a DELETE and a PUT leave for the next request.
  { name: "the same signing secret after re-creation", breaks: "Authentication 5: a lost secret is replaced by deleting the webhook and creating a new one", rule: "webhooks.recreate",
    find: "const secret = 'whsec_' + crypto.randomBytes(24).toString('hex');", replace: "const secret = (project.lastSecret ??= 'whsec_' + crypto.randomBytes(24).toString('hex'));" },
  { name: "a DELETE that keeps the webhook", breaks: "Endpoints: DELETE /v1/webhooks; Errors 3: GET 404 when none is configured", rule: "webhooks.recreate",
    find: "  project.webhook = null;\n  project.webhookGen++;", replace: "  project.webhookGen++;" },
  { name: "an update that keeps the old events", breaks: "Endpoints: PUT /v1/webhooks, 200 with {url, events} on update", rule: "webhooks.update",
    find: "    project.webhook.events = events;\n", replace: "" },
  { name: "an update that changes the secret", breaks: "Webhook configuration: signing_secret, returned only in the creation response; Events: keyed with the webhook signing_secret", rule: "proxy.relay-signature",
    find: "    project.webhook.events = events;\n", replace: "    project.webhook.events = events;\n    project.webhook.secret = 'whsec_' + crypto.randomBytes(24).toString('hex');\n" },
  { name: "a message's internal metadata returned", breaks: "Message: internal metadata (session ids, model names, branching info) are never returned", rule: "chats.no-metadata",
    find: "    feedback: m.feedback ?? null,\n", replace: "    feedback: m.feedback ?? null,\n    ...(m.meta ? { metadata: m.meta } : {}),\n" },
  { name: "a duration in whole minutes", breaks: "Interview: duration_secs, interview length in seconds", rule: "fields.duration",
    find: "Math.max(0, Math.round((iv.finishedAt - iv.startedAt) / 1000));", replace: "Math.max(0, Math.round((iv.finishedAt - iv.startedAt) / 60000) * 60);" },
  { name: "a limit that is a word read as the default", breaks: "Endpoints: limit (integer, min 1, max 100); Errors: 400", rule: "pagination.limit-range",
    find: "if (!/^\\d{1,12}$/.test(raw)) return { error: 'limit must be a whole number from 1 to 100' };", replace: "if (!/^\\d{1,12}$/.test(raw)) return { value: 20 };" },
  { name: "a webhook without events taken", breaks: "Endpoints: PUT /v1/webhooks, events required", rule: "webhooks.required-fields",
    find: "if (b.events === undefined) problems.push('events is required');", replace: "if (b.events === undefined) b.events = ['interview.completed'];" },
  { name: "the deprecated endpoint's 401 without its headers", breaks: "Versioning 3: all its responses carry Deprecation and Sunset headers", rule: "deprecated.headers",
    find: "if (!project) return fail(res, 401, 'API key missing or not recognised', {}, ctx.headers);", replace: "if (!project) return fail(res, 401, 'API key missing or not recognised', {}, {});" },
  // From a fifth (the suite's hidden set 55, 26 violations, driven through the proxy by this client: 7 flagged at
  // first; most of the rest need traffic it does not send). These four it judges now: a study's weekly usage against
  // its interviews walked whole (the set's monthly one made weekly: the seed leaves the billing period open), a
  // completed interview read otherwise in a list filtered by reference_id (which the client sends now), and an empty
  // page after has_more true.
  { name: "weekly used 0 when the study has no weekly cap", breaks: "Study: limits.weekly.used, interviews used in the week", rule: "capacity.used-counts",
    find: "weekly: { limit: s.weeklyLimit, used: u.weekly } },", replace: "weekly: { limit: s.weeklyLimit, used: s.weeklyLimit === null ? 0 : u.weekly } }," },
  { name: "weekly used counting last week too", breaks: "Limits: weekly window Monday to Sunday UTC", rule: "capacity.used-counts",
    find: "const w0 = weekStart(now), w1 = w0 + 7 * 86400000;", replace: "const w0 = weekStart(now) - 7 * 86400000, w1 = w0 + 14 * 86400000;" },
  { name: "respondent_email dropped from a list filtered by reference_id", breaks: "Endpoints: GET /v1/interviews reference_id (list of Interview)", rule: "proxy.immutable",
    find: "  send(res, 200, page(items, universe, cmpAsc('createdAt'), p.limit, p.cursor, (i) => interviewView(i, false)));", replace: "  send(res, 200, page(items, universe, cmpAsc('createdAt'), p.limit, p.cursor, (i) => ({ ...interviewView(i, false), ...(filters.reference_id !== undefined ? { respondent_email: null } : {}) })));" },
  { name: "has_more true on a filtered list's last full page", breaks: "List envelope: has_more, true when another page exists", rule: "pagination.has-more",
    find: "return { object: 'list', data: data.map(view), has_more: rest.length > limit };", replace: "return { object: 'list', data: data.map(view), has_more: rest.length > limit || (rest.length === limit && universe.length > items.length) };" },
  // From a sixth (the suite's hidden set 56 through the proxy: 9 of 15 flagged at first, 12 now; the rest show nothing
  // on these fixtures or change what may change): excerpts against the transcript, a completed interview's headline
  // and summary kept, and a completed read carrying its outcome.
  { name: "an answer excerpt in English for a German interview", breaks: "Interview: answer_excerpt, {role, message} transcript excerpts", rule: "fields.question-answers",
    find: "answer_excerpt: [{ role: 'user', message: P.ans[k] }] });", replace: "answer_excerpt: [{ role: 'user', message: EN.ans[k] }] });" },
  { name: "the interview list's summary cut to 60 characters", breaks: "Interview: summary; Endpoints: GET /v1/interviews (list fields)", rule: "proxy.immutable",
    find: "  send(res, 200, page(items, universe, cmpAsc('createdAt'), p.limit, p.cursor, (i) => interviewView(i, false)));", replace: "  send(res, 200, page(items, universe, cmpAsc('createdAt'), p.limit, p.cursor, (i) => { const o = interviewView(i, false); if (typeof o.summary === 'string') o.summary = o.summary.slice(0, 60); return o; }));" },
  { name: "a processing interview read as completed", breaks: "Interview: status, completed_at, quality_score", rule: "fields.quality",
    find: "  send(res, 200, interviewView(iv, true));", replace: "  { const o = interviewView(iv, true); if (o.status === 'processing') o.status = 'completed'; send(res, 200, o); }" },
  { name: "a page of limit=1 refused", breaks: "Endpoints: limit min 1, max 100", rule: "pagination.walk-ends",
    find: "if (n < 1 || n > 100) return { error:", replace: "if (n < 2 || n > 100) return { error:" },
  // Sets 58 to 60 through the proxy, now that the client's receiver fails each event's first attempt (503, naming a
  // wait of an hour), sends two invalid message parameters at once, the largest page and another chat's message as a
  // cursor, and moves the webhook to another URL and reads it back.
  { name: "retries without X-Webhook-Event", breaks: "Events: headers, X-Webhook-Event on every delivery", rule: "webhooks.headers",
    find: "'x-webhook-event': 'interview.completed', 'x-webhook-signature': signature,", replace: "...(n === 0 ? { 'x-webhook-event': 'interview.completed' } : {}), 'x-webhook-signature': signature," },
  { name: "retries sent as text/plain", breaks: "Events: headers, Content-Type application/json", rule: "webhooks.headers",
    find: "'content-type': 'application/json', 'content-length': body.length,", replace: "'content-type': n === 0 ? 'application/json' : 'text/plain', 'content-length': body.length," },
  { name: "retries signed in upper-case hex", breaks: "Events: X-Webhook-Signature, lowercase hex", rule: "webhooks.signature",
    find: "update(body).digest('hex');", replace: "update(body).digest('hex')[n === 0 ? 'toLowerCase' : 'toUpperCase']();" },
  suiteCase("a 503's Retry-After waited out instead of the schedule", "webhooks.retries"),
  { name: "messages' details naming only the first field", breaks: "Errors 4: a details array with one validation issue per offending field", rule: "chats.invalid-parameters",
    find: "if (details.length) return fail(res, 400, 'Invalid parameters', { details });", replace: "if (details.length) return fail(res, 400, 'Invalid parameters', { details: details.slice(0, 1) });" },
  { name: "another chat's message as a cursor answered 404", breaks: "Errors 5: a starting_after UUID that is not a visible message of the chat gives 400", rule: "proxy.stays-found",
    find: "  const visible = visibleMessages(c);\n", replace: "  const visible = visibleMessages(c);\n  if (cursor !== undefined && messages.get(cursor) && messages.get(cursor).chatId !== c.id) return fail(res, 404, 'There is no chat with this id');\n" },
  { name: "messages refusing limit 100", breaks: "Endpoints: limit max 100", rule: "pagination.max-page-size",
    find: "Number(lims[0]) < 1 || Number(lims[0]) > 100) details.push", replace: "Number(lims[0]) < 1 || Number(lims[0]) >= 100) details.push" },
  { name: "an update with the same events keeping the old URL", breaks: "Endpoints: PUT /v1/webhooks, 200 with {url, events} on update", rule: "webhooks.update",
    find: "    project.webhook.url = body.value.url;\n", replace: "    if (JSON.stringify(events) !== JSON.stringify(project.webhook.events)) project.webhook.url = body.value.url;\n" },
  // Set 59 through the proxy: launches of studies at their caps, the studies read before and after.
  suiteCase("a launch ignoring a monthly cap", "cover.launch-declined"),
  { name: "an invite code ignoring the caps", breaks: "Participant endpoints: launches; Study: accepting_responses", rule: "cover.launch-declined",
    find: "if (!study || study.projectId !== project.id || !studyUsage(study).accepting) return no('not_accepting_responses', attribution);", replace: "if (!study || study.projectId !== project.id || !(code !== undefined && tokenText === undefined ? study.status === 'active' : studyUsage(study).accepting)) return no('not_accepting_responses', attribution);" },
  { name: "a launch decided with a mode of its own", breaks: "Participant endpoints: launches, a decision whose mode is webview, external_browser or not_eligible", rule: "participant.decision",
    find: "send(res, 200, { object: 'launch_decision', mode: study.launchMode,", replace: "send(res, 200, { object: 'launch_decision', mode: study.launchMode === 'webview' ? 'in_app' : study.launchMode," },
  // Sets 61 to 64 through the proxy: answers that are not JSON, an interview against its study, interviews of a study
  // no longer active, the page after the last item, answers kept from before a change.
  { name: "a 405 answered as plain text", breaks: "All responses are JSON except 204", rule: "response.json",
    find: "      return fail(res, 405, `${req.method} is not supported on this path`, {}, { allow: allowOf(route), ...ctx.headers });", replace: "      return sendText(res, 405, `${req.method} is not supported on this path`, { allow: allowOf(route), ...ctx.headers });" },
  { name: "a study read encoded in latin1", breaks: "All responses are JSON except 204", rule: "response.json",
    find: "  send(res, 200, studyView(s, true));", replace: "  { const text = JSON.stringify(studyView(s, true)); res.writeHead(200, { 'content-type': 'application/json; charset=iso-8859-1', 'content-length': Buffer.byteLength(text, 'latin1') }); res.end(Buffer.from(text, 'latin1')); }" },
  { name: "question_answers one short of the questions", breaks: "Interview: question_answers, one per interview question", rule: "fields.question-answers",
    find: "  study.questions.forEach((q, i) => {", replace: "  study.questions.forEach((q, i, all) => {\n    if (i === all.length - 1 && i > 0) { t += 4; say('agent', q, q); return; }" },
  { name: "transcript out of order", breaks: "Interview: transcript, in chronological order", rule: "fields.transcript",
    find: "    transcript: entries, questionAnswers: qa, talkSecs: t,", replace: "    transcript: [entries[1], entries[0], ...entries.slice(2)], questionAnswers: qa, talkSecs: t," },
  { name: "the unscoped interview list leaves out paused studies' interviews", breaks: "Endpoints: GET /v1/interviews, list of Interview", rule: "proxy.listed",
    find: "    return true;\n  });\n  send(res, 200, page(items, universe, cmpAsc('createdAt'), p.limit, p.cursor, (i) => interviewView(i, false)));", replace: "    if (filters.study_id === undefined && studies.get(i.studyId)?.status === 'paused') return false;\n    return true;\n  });\n  send(res, 200, page(items, universe, cmpAsc('createdAt'), p.limit, p.cursor, (i) => interviewView(i, false)));" },
  { name: "reference_id leaves out non-active studies' interviews", breaks: "Endpoints: GET /v1/interviews reference_id", rule: "proxy.listed",
    find: "    return true;\n  });\n  send(res, 200, page(items, universe, cmpAsc('createdAt'), p.limit, p.cursor, (i) => interviewView(i, false)));", replace: "    if (filters.reference_id !== undefined && studies.get(i.studyId)?.status !== 'active') return false;\n    return true;\n  });\n  send(res, 200, page(items, universe, cmpAsc('createdAt'), p.limit, p.cursor, (i) => interviewView(i, false)));" },
  { name: "messages after the last one answered 400", breaks: "Errors 5: 400 only when starting_after is not a visible message of the chat", rule: "proxy.cursor-kept",
    find: "  send(res, 200, page(visible, visible, cmpAsc('createdAt'), limit, cursor, messageView));", replace: "  if (cursor !== undefined && visible.length && visible[visible.length - 1].id === cursor) return fail(res, 400, `No such message: ${cursor}`);\n  send(res, 200, page(visible, visible, cmpAsc('createdAt'), limit, cursor, messageView));" },
  { name: "interviews after the last one answered 404", breaks: "Endpoints: starting_after, the id of the last item of the previous page", rule: "proxy.cursor-kept",
    find: "  send(res, 200, page(items, universe, cmpAsc('createdAt'), p.limit, p.cursor, (i) => interviewView(i, false)));", replace: "  if (p.cursor && items.length && items[items.length - 1].id === p.cursor) return fail(res, 404, 'There is no interview after this one');\n  send(res, 200, page(items, universe, cmpAsc('createdAt'), p.limit, p.cursor, (i) => interviewView(i, false)));" },
  { name: "chats after the last one: has_more true", breaks: "List envelope: has_more, true when another page exists", rule: "proxy.page-size",
    find: "  send(res, 200, page(items, items, cmpDesc('createdAt'), p.limit, p.cursor, (c) => chatView(c, false)));", replace: "  const pg = page(items, items, cmpDesc('createdAt'), p.limit, p.cursor, (c) => chatView(c, false));\n  if (p.cursor && items.length && items[items.length - 1].id === p.cursor) pg.has_more = true;\n  send(res, 200, pg);" },
  { name: "studies after the last one: the first page again", breaks: "Endpoints: starting_after", rule: "proxy.walk-once",
    find: "  send(res, 200, page(items, universe, cmpAsc('createdAt'), p.limit, p.cursor, (s) => studyView(s, false)));", replace: "  const last = p.cursor && items.length && items[items.length - 1].id === p.cursor;\n  send(res, 200, page(items, universe, cmpAsc('createdAt'), p.limit, last ? undefined : p.cursor, (s) => studyView(s, false)));" },
  { name: "interview detail cached a minute per project", breaks: "Events: fetch the transcript with GET /v1/interviews/:id; the webhook is sent after processing finishes", rule: "webhooks.payload-matches",
    find: "  if (!iv || iv.projectId !== project.id) return fail(res, 404, 'There is no interview with this id');\n  send(res, 200, interviewView(iv, true));", replace: "  if (!iv || iv.projectId !== project.id) return fail(res, 404, 'There is no interview with this id');\n  const ck = project.id + ':interview:' + id; const hit = (globalThis.__cache ??= new Map()).get(ck); if (hit && Date.now() - hit.at < 60000) return send(res, 200, hit.body);\n  const body = interviewView(iv, true); (globalThis.__cache ??= new Map()).set(ck, { at: Date.now(), body }); send(res, 200, body);" },
  { name: "chats list cached a minute per project and query", breaks: "Endpoints: GET /v1/chats, list of Chat", rule: "proxy.listed",
    find: "  send(res, 200, page(items, items, cmpDesc('createdAt'), p.limit, p.cursor, (c) => chatView(c, false)));", replace: "  const ck = project.id + ':chats?' + q.toString(); const hit = (globalThis.__cache ??= new Map()).get(ck); if (hit && Date.now() - hit.at < 60000) return send(res, 200, hit.body);\n  const body = page(items, items, cmpDesc('createdAt'), p.limit, p.cursor, (c) => chatView(c, false)); (globalThis.__cache ??= new Map()).set(ck, { at: Date.now(), body });\n  send(res, 200, body);" },
  { name: "a paused or draft study's retrieval answered 404", breaks: "Endpoints: GET /v1/studies/:id, 404 if absent or not in the project", rule: "proxy.stays-found",
    find: "  if (!s || s.projectId !== project.id) return fail(res, 404, 'There is no study with this id');\n  send(res, 200, studyView(s, true));", replace: "  if (!s || s.projectId !== project.id || s.status !== 'active') return fail(res, 404, 'There is no study with this id');\n  send(res, 200, studyView(s, true));" },
  { name: "another project's study retrieved", breaks: "Authentication 3: a key is scoped to a single project; Errors 1", rule: "proxy.isolation",
    find: "  if (!s || s.projectId !== project.id) return fail(res, 404, 'There is no study with this id');\n  send(res, 200, studyView(s, true));", replace: "  if (!s) return fail(res, 404, 'There is no study with this id');\n  send(res, 200, studyView(s, true));" },
  { name: "the payload's language null for English", breaks: "Events: data.language, detected language code", rule: "webhooks.payload-matches",
    find: "      quality_score: iv.outcome.qualityScore, language: iv.language,", replace: "      quality_score: iv.outcome.qualityScore, language: iv.language === 'en' ? null : iv.language," },
];

describe("the proxy in front of ../shared/foreign", () => {
  const dir = mkdtempSync(join(tmpdir(), "proxy-foreign-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("driven by the typed client, finds nothing at --level seed, and judges what the traffic shows", async () => {
    const { report, delivered } = await throughProxy();
    expect(delivered).toBeGreaterThan(0);
    expect(failures(report)).toEqual([]);
    expect(report.exitCode).toBe(0);
    const held = report.results[0].rules.map((r) => r.id);
    expect(held).toEqual(expect.arrayContaining(["chats.no-metadata", "fields.duration", "fields.interview-times", "webhooks.recreate", "webhooks.delete-204", "webhooks.payload-matches", "fields.updated-at", "response.timestamps", "windows.statuses", "chats.hidden-not-listed", "fields.usage-roles", "webhooks.create", "webhooks.update", "webhooks.secret-hidden", "proxy.relay-signature", "proxy.walk-once", "proxy.count-agrees", "truncation.markers", "fields.translated", "fields.question-answers", "filters.matching", "capacity.accepting-at-cap", "capacity.accepting-below", "fields.null-forms", "capacity.interview-count", "capacity.used-counts", "chats.public-parts", "participant.decision", "proxy.cursor-kept", "proxy.listed", "fields.transcript"]));
  }, 60_000);

  it("in front of a copy making every choice the seed leaves open (foreign/allowed.ts), finds nothing either", async () => {
    const { report, delivered } = await throughProxy(plantAll(ALLOWED, mkdtempSync(join(dir, "allowed-"))));
    expect(delivered).toBeGreaterThan(0);
    expect(failures(report)).toEqual([]);
    expect(report.exitCode).toBe(0);
  }, 180_000);

  it("in front of a copy that removed GET /v1/experiments (410, announcing nothing), as the seed allows past July 1, 2026, finds nothing", async () => {
    // The route answers 410, and its answers (the 401 included) announce nothing any more.
    const edits = [
      ["{ re: /^\\/v1\\/experiments$/, GET: getExperiments },", "{ re: /^\\/v1\\/experiments$/, GET: (req, res) => fail(res, 410, 'GET /v1/experiments was removed on July 1, 2026: use GET /v1/studies') },"],
      ["  if (path === '/v1/experiments') ctx.headers = { deprecation: DEPRECATED_SINCE, sunset: SUNSET };\n", ""],
    ];
    let source = readFileSync(FOREIGN_SERVER, "utf8");
    for (const [find, replace] of edits) {
      expect(source.split(find).length).toBe(2);
      source = source.split(find).join(replace);
    }
    const file = join(mkdtempSync(join(dir, "removed-")), "server.mjs");
    writeFileSync(file, source);
    const { report } = await throughProxy(file);
    expect(failures(report)).toEqual([]);
    expect(report.exitCode).toBe(0);
  }, 60_000);

  it("judges the signature's form of a delivery whose secret it never saw issued", async () => {
    const upper = VIOLATIONS.find((v) => v.name === "deliveries signed in upper-case hex")!;
    const [fine, broken] = await Promise.all([throughProxy(undefined, true), throughProxy(plant(upper, mkdtempSync(join(dir, "v-"))), true)]);
    expect(fine.delivered).toBeGreaterThan(0);
    expect(failures(fine.report)).toEqual([]);
    expect(fine.report.results[0].rules.map((r) => r.id)).toContain("webhooks.signature");
    expect(broken.delivered).toBeGreaterThan(0);
    expect(rulesOf(broken.report)).toEqual(["webhooks.signature"]);
  }, 60_000);

  it("judges the retry schedule of relayed deliveries a receiver fails: nothing on a correct server; one retry too many, a delay of the wrong slot, none at all and a 429's Retry-After waited out flagged", async () => {
    const copy = (name: string, find: string, replace: string) => plant({ name, breaks: "Events: delivery rules 2, 3", rule: "webhooks.retries", find, replace }, mkdtempSync(join(dir, "r-")));
    const schedule = "if (n < WEBHOOK_RETRY_DELAYS_MS.length) setTimeout(() => attempt(event, n + 1), WEBHOOK_RETRY_DELAYS_MS[n]);";
    // A receiver's 429 naming a Retry-After of an hour, which the relay passes back: the seed's schedule still holds.
    const limited = { status: 429, retryAfter: "3600" };
    const [fine, fourth, shifted, never, fineLimited, waited] = await Promise.all([
      retriesThroughProxy(undefined, 4),
      retriesThroughProxy(copy("a fourth retry", schedule, "if (n <= WEBHOOK_RETRY_DELAYS_MS.length) setTimeout(() => attempt(event, n + 1), WEBHOOK_RETRY_DELAYS_MS[n] ?? WEBHOOK_RETRY_DELAYS_MS.at(-1));"), 5),
      retriesThroughProxy(copy("each retry after the next slot's delay", schedule, "if (n < WEBHOOK_RETRY_DELAYS_MS.length) setTimeout(() => attempt(event, n + 1), WEBHOOK_RETRY_DELAYS_MS[Math.min(n + 1, WEBHOOK_RETRY_DELAYS_MS.length - 1)]);"), 4),
      retriesThroughProxy(copy("never retried", schedule, ""), 1),
      retriesThroughProxy(undefined, 4, limited),
      retriesThroughProxy(plant(suiteCase("a 429's Retry-After waited out instead of the schedule", "webhooks.retries"), mkdtempSync(join(dir, "r-"))), 1, limited),
    ]);
    expect(fineLimited.delivered).toBe(4);
    expect(failures(fineLimited.report)).toEqual([]);
    expect(waited.delivered).toBe(1);
    expect(rulesOf(waited.report)).toEqual(["webhooks.retries"]);
    expect(fine.delivered).toBe(4);
    expect(failures(fine.report)).toEqual([]);
    expect(fine.report.results[0].rules.map((r) => r.id)).toEqual(expect.arrayContaining(["webhooks.retries", "webhooks.retry-count", "webhooks.dedupe-key"]));
    // The receiver's 500s are the client's finding, never the implementation's.
    expect(fine.report.exitCode).toBe(0);
    expect(fourth.delivered).toBe(5);
    expect(rulesOf(fourth.report)).toEqual(["webhooks.retry-count"]);
    expect(rulesOf(shifted.report)).toEqual(["webhooks.retries"]);
    expect(never.delivered).toBe(1);
    expect(rulesOf(never.report)).toEqual(["webhooks.retries"]);
  }, 90_000);

  // Four at a time: each is a server, a proxy and a receiver waiting on one another.
  const batches = Array.from({ length: Math.ceil(VIOLATIONS.length / 4) }, (_, k) => VIOLATIONS.slice(4 * k, 4 * k + 4));
  for (const batch of batches) {
    it(`flags ${batch.map((v) => `"${v.name}" with ${v.rule}`).join(", ")}`, async () => {
      const results = await Promise.all(batch.map(async (v) => ({ v, ...(await throughProxy(plant(v, mkdtempSync(join(dir, "v-"))))) })));
      for (const { v, report } of results) {
        expect(rulesOf(report), `${v.name}: ${failures(report).slice(0, 5).join("\n")}`).toContain(v.rule);
        expect(report.exitCode, v.name).toBe(1);
      }
    }, 60_000);
  }
});
