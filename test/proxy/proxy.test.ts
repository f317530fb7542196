// The contract-checking proxy (conformance/src/proxy) between real clients and real servers: in front of the reference
// server, driven by the typed client and the mobile library's participant calls, it finds nothing; in front of broken
// variants of it (test/conformance/broken), each is flagged with the right rule; a client that misuses the API is
// flagged as the client's; bodies, streams and compression pass byte for byte; a broken upstream gives a 502.
import { createHmac } from "node:crypto";
import { createServer as createNet } from "node:net";
import { createServer, request, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProxy, type RunningProxy } from "../../conformance/src/proxy/index.ts";
import { PROXY_RULES } from "../../conformance/src/proxy/judging.ts";
import { statements } from "../../conformance/src/seed/statements.ts";
import type { Report } from "../../conformance/src/run.ts";
import { createApiClient, paginate } from "../../sdk/src/index.ts";
import { ParticipantApi } from "../../mobile/src/core/api.ts";
import { startServer, type RunningServer } from "../../server/src/testing.ts";
import { BrokenProxy, type Mutation } from "../conformance/broken/proxy.ts";
import { ACME, GLOBEX, variants } from "../conformance/broken/variants.ts";
import { call } from "../support/http.ts";

const PUBLIC = "pk_live_acme_0123456789abcdef0123456789abcdef";
const lines: string[] = [];
const failures = (report: Report, party: "implementation" | "client") => report.results.find((r) => r.name === party)!.failures.map((f) => `${f.rule}: ${f.message}`);
const rulesOf = (report: Report, party: "implementation" | "client") => [...new Set(report.results.find((r) => r.name === party)!.failures.map((f) => f.rule))];


/** What a client that reads the whole project does, through the typed client: every list walked, every item read. */
async function readEverything(baseUrl: string, key: string): Promise<number> {
  const client = createApiClient({ baseUrl, apiKey: key, retry: false });
  let n = 0;
  for (const path of ["/v1/studies", "/v1/releases", "/v1/chats"] as const) {
    for await (const item of paginate(client, path, { query: { limit: 7 } } as never)) {
      n++;
      const detail = path === "/v1/studies" ? "/v1/studies/{id}" : path === "/v1/releases" ? "/v1/releases/{id}" : "/v1/chats/{id}";
      await (client.GET as any)(detail, { params: { path: { id: (item as any).id } } });
      if (path === "/v1/chats") for await (const _ of paginate(client, "/v1/chats/{id}/messages", { path: { id: (item as any).id }, query: { limit: 13 } } as never)) n++;
      if (path === "/v1/studies") for await (const i of paginate(client, "/v1/interviews", { query: { study_id: (item as any).id, limit: 25 } } as never)) await (client.GET as any)("/v1/interviews/{id}", { params: { path: { id: (i as any).id } } });
    }
  }
  // The whole unfiltered lists after the reads one by one: what was read is listed.
  for (const path of ["/v1/interviews", "/v1/releases", "/v1/chats"] as const) for await (const _ of paginate(client, path, { query: { limit: 100 } } as never)) n++;
  await client.GET("/v1/experiments");
  return n;
}

/** A target of the test's own (`handler`, served under /api) behind a proxy; `run` drives it; both closed however it ends. */
async function behindFake(handler: (req: IncomingMessage, res: ServerResponse) => void, run: (front: RunningProxy) => Promise<void>): Promise<void> {
  const target = createServer(handler);
  await new Promise<void>((ok) => target.listen(0, "127.0.0.1", ok));
  const front = await startProxy({ target: `http://127.0.0.1:${(target.address() as AddressInfo).port}/api` });
  try {
    await run(front);
  } finally {
    await front.close();
    target.close();
  }
}

/** The implementation's findings of `rule` so far, once the judge caught up. */
async function findingsOf(front: RunningProxy, rule: string): Promise<string[]> {
  await front.settled();
  return failures(await front.report(false), "implementation").filter((f) => f.startsWith(rule));
}

it("cites only statements of the seed, with every seed rule it judges by", () => {
  const ids = new Set(statements.map((s) => s.id));
  for (const rule of PROXY_RULES) {
    expect(rule.cites.filter((c) => !ids.has(c)), rule.id).toEqual([]);
    if (rule.level === "seed") expect(rule.cites.length, rule.id).toBeGreaterThan(0);
  }
});

describe("the proxy in front of the reference server", () => {
  let server: RunningServer;
  let proxy: RunningProxy;
  beforeAll(async () => {
    server = await startServer({ validateResponses: true, simProcessingMs: 50, webhookRetryDelaysMs: [200, 400, 600] });
    proxy = await startProxy({ target: server.baseUrl, print: (l) => lines.push(l) });
  });
  afterAll(async () => {
    await proxy?.close();
    await server?.close();
  });

  it("driven by the typed client and the mobile library's participant calls, judges every exchange and finds nothing", async () => {
    expect(await readEverything(proxy.url, ACME)).toBeGreaterThan(100);
    await readEverything(proxy.url, GLOBEX);
    const participant = new ParticipantApi(proxy.url, PUBLIC, fetch);
    const config = await participant.config("user_1");
    expect(config).toBeTypeOf("object");
    await participant.promptEvent({ eventId: "6c5b4a39-2817-4f6e-9d5c-4b3a29180f7e", phase: "shown", referenceId: "user_1", occurredAt: new Date().toISOString() } as never).catch(() => undefined);
    await proxy.settled();
    const report = await proxy.report(true);
    expect(failures(report, "implementation")).toEqual([]);
    expect(failures(report, "client")).toEqual([]);
    expect(report.requests).toBeGreaterThan(200);
    // It judged the seed's statements it can see: the truncation rule on the fixtures' large values among them.
    const passed = report.statements.filter((s) => s.verdict === "passed").map((s) => s.id);
    expect(passed).toEqual(expect.arrayContaining(["list.has-more", "endpoints.order", "truncation.rule", "versioning.deprecated", "resources.timestamps", "chat.message-count", "endpoints.list-chats"]));
    const held = report.results[0].rules.map((r) => r.id);
    expect(held).toEqual(expect.arrayContaining(["proxy.count-agrees", "proxy.listed", "proxy.walk-once", "proxy.walk-order", "proxy.immutable", "truncation.markers", "truncation.kept"]));
    expect(report.exitCode).toBe(0);
  }, 120_000);

  it("takes back every cursor a list showed, and holds an interview to its filters and its study's questions: nothing found, the client's polls past has_more its own", async () => {
    const watching = await startProxy({ target: server.baseUrl });
    try {
      const questions = [{ text: "What did you try to do?" }, { text: "What got in the way?" }];
      const study = await call(watching.url, "/_sim/studies", { key: GLOBEX, method: "POST", body: { name: "Proxy questions", questions } });
      expect(study.status, study.text).toBe(201);
      await call(watching.url, `/v1/studies/${study.body.id}`, { key: GLOBEX });
      // Its respondent comes after the study was read, by more than the Date header's second.
      await new Promise((r) => setTimeout(r, 1_100));
      const planted = await call(watching.url, "/_sim/interviews", { key: GLOBEX, method: "POST", body: { study_id: study.body.id, reference_id: "proxy_cursor" } });
      expect(planted.status, planted.text).toBe(201);
      await call(watching.url, `/_sim/interviews/${planted.body.id}/complete`, { key: GLOBEX, method: "POST", body: {} });
      const read = await call(watching.url, `/v1/interviews/${planted.body.id}`, { key: GLOBEX });
      expect(read.body.status).toBe("completed");
      for (const q of [`study_id=${study.body.id}`, "reference_id=proxy_cursor", "status=completed&limit=100", `quality_score=${read.body.quality_score}&limit=100`]) {
        for (let page: any = { has_more: true, data: [] }, after = ""; page.has_more; after = page.data.at(-1).id) page = (await call(watching.url, `/v1/interviews?${q}${after ? `&starting_after=${after}` : ""}`, { key: GLOBEX })).body;
      }
      // Each list walked whole, then asked for what came after its last item (as a client polling for new ones does).
      const chat = (await call(watching.url, "/v1/chats?limit=1", { key: GLOBEX })).body.data[0].id;
      for (const list of ["releases", "chats", "interviews", `chats/${chat}/messages`]) {
        let last = "";
        for (let page: any = { has_more: true }; page.has_more; last = page.data.at(-1)?.id ?? last) page = (await call(watching.url, `/v1/${list}?limit=100${last ? `&starting_after=${last}` : ""}`, { key: GLOBEX })).body;
        expect((await call(watching.url, `/v1/${list}?limit=100&starting_after=${last}`, { key: GLOBEX })).status, list).toBe(200);
      }
      await watching.settled();
      const report = await watching.close();
      expect(failures(report, "implementation")).toEqual([]);
      expect(rulesOf(report, "client")).toEqual(["client.has-more"]);
      const held = report.results[0].rules.map((r) => r.id);
      expect(held).toEqual(expect.arrayContaining(["proxy.cursor-kept", "proxy.listed", "fields.question-answers", "fields.transcript"]));
    } finally {
      await watching.close();
    }
  }, 60_000);

  it("judges a path whose escape is malformed (%E0) as the implementation answered it, never failing itself", async () => {
    const watching = await startProxy({ target: server.baseUrl });
    try {
      for (const path of ["/v1/chats/%E0/messages", "/v1/interviews/%E0", "/v1/studies/%zz", "/v1/chats/%E0%A4"]) {
        const res = await call(watching.url, path, { key: GLOBEX });
        expect([400, 404], `${path}: ${res.text}`).toContain(res.status);
      }
      await watching.settled();
      const report = await watching.close();
      expect(report.results.flatMap((r) => r.notes).filter((n) => n.includes("could not judge"))).toEqual([]);
      expect(failures(report, "implementation")).toEqual([]);
      expect(report.requests).toBe(4);
    } finally {
      await watching.close();
    }
  });

  it("relays webhook deliveries to the client's receiver, judging their signature, and the receiver's answer time", async () => {
    const received: Array<{ headers: IncomingMessage["headers"]; body: string }> = [];
    const receiver = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        received.push({ headers: req.headers, body });
        res.statusCode = 204;
        res.end();
      });
    });
    await new Promise<void>((ok) => receiver.listen(0, "127.0.0.1", ok));
    const relaying = await startProxy({ target: server.baseUrl, relayWebhooks: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, print: (l) => lines.push(l) });
    try {
      const hook = await call(relaying.url, "/v1/webhooks", { key: GLOBEX, method: "PUT", body: { url: relaying.relayUrl, events: ["interview.completed"] } });
      expect(hook.status, hook.text).toBe(201);
      const study = (await call(relaying.url, "/v1/studies?limit=1", { key: GLOBEX })).body.data[0];
      const planted = await call(relaying.url, "/_sim/interviews", { key: GLOBEX, method: "POST", body: { study_id: study.id, reference_id: "relay" } });
      expect(planted.status, planted.text).toBe(201);
      await call(relaying.url, `/_sim/interviews/${planted.body.id}/complete`, { key: GLOBEX, method: "POST", body: {} });
      for (let i = 0; i < 200 && received.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
      expect(received.length).toBe(1);
      expect(JSON.parse(received[0].body).data.interview_id).toBe(planted.body.id);
      // A delivery that was not signed with the issued secret, posted to the relay as a forger would.
      const forged = await fetch(relaying.relayUrl!, { method: "POST", headers: { "content-type": "application/json", "x-webhook-event": "interview.completed", "x-webhook-signature": `sha256=${"0".repeat(64)}` }, body: received[0].body });
      expect(forged.status).toBe(204);
      await call(relaying.url, "/v1/webhooks", { key: GLOBEX, method: "DELETE" });
      await relaying.settled();
      const report = await relaying.close();
      expect(rulesOf(report, "implementation").sort()).toEqual(["proxy.relay-signature", "webhooks.signature"]);
      expect(failures(report, "implementation").join("\n")).toMatch(/delivery 2 relayed/);
    } finally {
      await relaying.close();
      receiver.close();
    }
  }, 60_000);
});

describe("the proxy's judgement of a webhook receiver, and its bounds", () => {
  it("labels a receiver that answers after the seed's 10 s as the client's", async () => {
    const slow = createServer((req, res) => {
      req.resume();
      req.on("end", () => setTimeout(() => res.end("late"), 10_300));
    });
    await new Promise<void>((ok) => slow.listen(0, "127.0.0.1", ok));
    const relaying = await startProxy({ target: "http://127.0.0.1:9/api", relayWebhooks: `http://127.0.0.1:${(slow.address() as AddressInfo).port}/hook` });
    try {
      // A delivery as the service sends one (its secret never seen by the proxy: only the signature's form is judged).
      const id = "3f0c1a9e-5b7d-4e2f-8a6c-1d9b7e5f3a20";
      const study = "9a1e7c3b-2d5f-4b8a-9c6e-0f4d2b8a6c1e";
      const at = new Date().toISOString();
      const body = JSON.stringify({ event: "interview.completed", timestamp: at, data: { interview_id: id, study_id: study, study_name: "Onboarding", session_id: id, experiment_id: study, experiment_name: "Onboarding", interview_link: "https://talk.example/i/abc", status: "completed", started_at: at, completed_at: at, duration_secs: 60, quality_score: "successful", language: "en", reference_id: null, respondent_email: null, respondent_id: null } });
      const signature = `sha256=${createHmac("sha256", "whsec_unseen").update(body).digest("hex")}`;
      const answer = await fetch(relaying.relayUrl!, { method: "POST", headers: { "content-type": "application/json", "x-webhook-event": "interview.completed", "x-webhook-signature": signature }, body });
      expect(answer.status).toBe(200);
      const report = await relaying.close();
      // Past the seed's 10 s; how far past is the loaded machine's, not a bound of the seed's.
      const late = /^client.receiver-timeout: #-1: delivery 1 relayed to .*: the receiver answered after (\d+) ms/m.exec(failures(report, "client").join("\n"));
      expect(late, failures(report, "client").join("\n")).not.toBeNull();
      expect(Number(late![1])).toBeGreaterThan(10_000);
      expect(failures(report, "implementation")).toEqual([]);
    } finally {
      await relaying.close();
      slow.close();
      slow.closeAllConnections();
    }
  }, 30_000);

  it("keeps bodies within its memory budget: a larger one is forwarded whole and counted as not judged", async () => {
    const server = await startServer({});
    const proxy = await startProxy({ target: server.baseUrl, memoryBudget: 50_000 });
    try {
      const chats = (await call(server.baseUrl, "/v1/chats?limit=100", { key: ACME })).body.data;
      let large = 0;
      for (const chat of chats.slice(0, 10)) {
        const path = `/v1/chats/${chat.id}/messages?limit=100`;
        const direct = await raw(server.baseUrl, path, { authorization: `Bearer ${ACME}` });
        const through = await raw(proxy.url, path, { authorization: `Bearer ${ACME}` });
        expect(through.body.equals(direct.body)).toBe(true);
        if (direct.body.length > 50_000) large++;
      }
      expect(large).toBeGreaterThan(0);
      await proxy.settled();
      expect(await proxy.progress()).toMatch(new RegExp(`\\(${large} bodies not judged\\)`));
      const report = await proxy.close();
      expect(failures(report, "implementation")).toEqual([]);
    } finally {
      await proxy.close();
      await server.close();
    }
  }, 60_000);

  it("remembers within its caps, and says once when it starts to forget", async () => {
    const server = await startServer({});
    const notes: string[] = [];
    const proxy = await startProxy({ target: server.baseUrl, caps: { resources: 5, walks: 2, members: 5 }, print: (l) => notes.push(l) });
    try {
      await readEverything(proxy.url, ACME);
      const report = await proxy.close();
      expect(notes.filter((l) => l.startsWith("note: resources read: over 5 remembered"))).toHaveLength(1);
      expect(report.results[0].notes.join("\n")).toMatch(/walks in progress: over 2 remembered, the oldest are forgotten/);
      expect(failures(report, "implementation")).toEqual([]);
    } finally {
      await proxy.close();
      await server.close();
    }
  }, 60_000);
});

describe("the proxy in front of broken variants", () => {
  let server: RunningServer;
  beforeAll(async () => void (server = await startServer({ validateResponses: false })));
  afterAll(() => server?.close());

  // Each variant with the rule that must flag it when a client reads the whole project through the proxy.
  const expected: Record<string, string[]> = {
    "has_more off by one on the last page": ["proxy.page-size"],
    "the cursor item repeated on the next page": ["proxy.walk-once"],
    "an item skipped after every cursor": ["proxy.page-size", "proxy.walk-once"],
    "the first two items of a page swapped": ["pagination.order", "pagination.pinned-order"],
    "a retrieval falls back to another project's data": ["proxy.listed"],
    "a detail-only field leaking into study list items": ["response.detail-only"],
    "message_count counts a hidden message": ["proxy.count-agrees"],
    "no Sunset header": ["deprecated.headers"],
    "release-generated chats retrievable by id": ["chats.release-chats"],
    "a 500 on bad input": ["response.no-5xx"],
    "every answer public for five minutes": ["response.cacheable"],
  };
  const all = variants();
  for (const [name, rules] of Object.entries(expected)) {
    it(`flags "${name}" with ${rules.join(" or ")}`, async () => {
      const variant = all.find((v) => v.mutation.name === name);
      expect(variant, name).toBeDefined();
      const broken = new BrokenProxy(server.origin, variant!.mutation as Mutation);
      await broken.start();
      const proxy = await startProxy({ target: broken.baseUrl });
      try {
        await readEverything(proxy.url, ACME);
        if (name === "a retrieval falls back to another project's data") {
          // Another project's interview read by id with this key: then this key's whole list of interviews lacks it.
          const theirs = (await call(server.baseUrl, "/v1/interviews?limit=1", { key: GLOBEX })).body.data[0];
          await call(proxy.url, `/v1/interviews/${theirs.id}`, { key: ACME });
          await readEverything(proxy.url, ACME);
        }
        if (name === "release-generated chats retrievable by id") {
          const release = (await call(proxy.url, "/v1/releases?limit=1", { key: ACME })).body.data[0];
          await call(proxy.url, `/v1/chats/${release.chat_id}`, { key: ACME });
        }
        if (name === "a 500 on bad input") await call(proxy.url, "/v1/chats?limit=0", { key: ACME });
        await proxy.settled();
        const report = await proxy.close();
        const found = rulesOf(report, "implementation");
        expect(found.some((r) => rules.includes(r)), `${name}: ${failures(report, "implementation").slice(0, 5).join("\n")}`).toBe(true);
        expect(report.exitCode).toBe(1);
        // Each finding names the exchange it came from, as a curl line against the target.
        expect(report.results[0].failures.every((f) => f.curl?.startsWith("curl "))).toBe(true);
      } finally {
        await proxy.close();
        await broken.close();
      }
    }, 60_000);
  }
});

describe("the proxy's judgement of the client", () => {
  let server: RunningServer;
  let proxy: RunningProxy;
  beforeAll(async () => {
    server = await startServer({});
    proxy = await startProxy({ target: server.baseUrl, print: (l) => lines.push(l) });
  });
  afterAll(async () => {
    await proxy?.close();
    await server?.close();
  });

  it("labels invalid parameters, an unknown parameter, a missing key, a walk past has_more and a retry before Retry-After as the client's", async () => {
    await call(proxy.url, "/v1/chats?limit=0", { key: ACME });
    await call(proxy.url, "/v1/interviews?studyId=x", { key: ACME });
    await call(proxy.url, "/v1/studies");
    const all = await call(proxy.url, "/v1/releases?limit=100", { key: ACME });
    expect(all.body.has_more).toBe(false);
    await call(proxy.url, `/v1/releases?limit=100&starting_after=${all.body.data.at(-1).id}`, { key: ACME });
    // The sandbox's injected 503 asks for a second; the client asks again at once.
    expect((await call(proxy.url, "/_sim/faults", { key: ACME, method: "PUT", body: { fail_next: 1, fail_next_kind: "503" } })).status).toBe(200);
    const refused = await call(proxy.url, "/v1/studies", { key: ACME });
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("1");
    await call(proxy.url, "/v1/studies", { key: ACME });
    await call(proxy.url, "/_sim/faults", { key: ACME, method: "DELETE" });
    await proxy.settled();
    const report = await proxy.report(false);
    expect(rulesOf(report, "client").sort()).toEqual(["client.has-more", "client.invalid-request", "client.no-key", "client.retry-after", "client.unknown-parameter"]);
    // None is the implementation's: it answered each as it should (the 503 was asked for).
    expect(failures(report, "implementation")).toEqual([]);
    // The client's findings fail the run only when asked.
    expect(report.exitCode).toBe(0);
    expect((await proxy.report(true)).exitCode).toBe(1);
    expect(lines.some((l) => l.startsWith("CLIENT [contract] client.has-more"))).toBe(true);
  });
});

/** GET through `base` with raw bytes kept (no decoding), the answer's status, headers and bytes. */
function raw(base: string, path: string, headers: Record<string, string>): Promise<{ status: number; headers: IncomingMessage["headers"]; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("the proxy's forwarding", () => {
  let server: RunningServer;
  let proxy: RunningProxy;
  beforeAll(async () => {
    server = await startServer({});
    proxy = await startProxy({ target: server.baseUrl, via: false });
  });
  afterAll(async () => {
    await proxy?.close();
    await server?.close();
  });

  it("passes large and compressed bodies byte for byte, and large request bodies whole", async () => {
    const chats = (await call(server.baseUrl, "/v1/chats?limit=100", { key: ACME })).body.data;
    const auth = { authorization: `Bearer ${ACME}` };
    let biggest = 0;
    for (const chat of chats.slice(0, 10)) {
      for (const encoding of ["identity", "gzip", "br"]) {
        const path = `/v1/chats/${chat.id}/messages?limit=100`;
        const direct = await raw(server.baseUrl, path, { ...auth, "accept-encoding": encoding });
        const through = await raw(proxy.url, path, { ...auth, "accept-encoding": encoding });
        expect(through.status).toBe(direct.status);
        expect(through.headers["content-encoding"]).toBe(direct.headers["content-encoding"]);
        expect(through.body.equals(direct.body), `${path} ${encoding}`).toBe(true);
        biggest = Math.max(biggest, direct.body.length);
      }
    }
    expect(biggest).toBeGreaterThan(100_000);
    // A request body near the server's limit arrives whole: the planted chat reads back the same text.
    const text = "é".repeat(40_000);
    const planted = await call(proxy.url, "/_sim/chats", { key: ACME, method: "POST", body: { title: "big", messages: [{ role: "user", parts: [{ type: "text", text }] }] } });
    expect(planted.status, planted.text.slice(0, 200)).toBe(201);
    const back = await call(server.baseUrl, `/v1/chats/${planted.body.id}/messages`, { key: ACME });
    expect(back.body.data[0].parts[0].text).toBe(text);
  });

  it("says once where to point a client that kept the target's base path in its own", async () => {
    const said: string[] = [];
    const front = await startProxy({ target: server.baseUrl, print: (l) => said.push(l) });
    try {
      for (let i = 0; i < 2; i++) expect((await call(front.url, "/api/v1/studies", { key: ACME })).status).toBe(404);
      expect((await call(front.url, "/v1/studies", { key: ACME })).status).toBe(200);
      await front.settled();
      const notes = said.filter((l) => l.startsWith("note: /api/v1/studies reached the target as /api/api/v1/studies"));
      expect(notes, said.join("\n")).toHaveLength(1);
      expect(notes[0]).toContain("point the client at the proxy's address without /api");
    } finally {
      await front.close();
    }
  });

  it("judges a HEAD answer by its status and headers, never by the body it does not have", async () => {
    const before = failures(await proxy.report(false), "implementation").length;
    for (const path of ["/v1/studies", "/v1/experiments", "/v1/chats?limit=5"]) {
      const res = await fetch(`${proxy.url}${path}`, { method: "HEAD", headers: { authorization: `Bearer ${ACME}` } });
      expect(res.status).toBe(200);
      expect(await res.text()).toBe("");
    }
    await proxy.settled();
    // Each HEAD was judged as "content-type is application/json and the body is not JSON".
    expect(failures(await proxy.report(false), "implementation").slice(before)).toEqual([]);
  });

  it("judges a 304 to the client's conditional request by its status and headers alone", async () => {
    // A target that gives its lists a validator (as Express does by default) and answers a request that names it 304.
    const body = JSON.stringify({ object: "list", data: [], has_more: false });
    await behindFake((req, res) => {
      if (req.url !== "/api/v1/studies") return void res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { type: "not_found_error", message: "No such route" } }));
      if (req.headers["if-none-match"] === '"v1"') return void res.writeHead(304, { etag: '"v1"' }).end();
      res.writeHead(200, { "content-type": "application/json", etag: '"v1"' }).end(body);
    }, async (front) => {
      const first = await call(front.url, "/v1/studies", { key: ACME });
      expect(first.status).toBe(200);
      const again = await fetch(`${front.url}/v1/studies`, { headers: { authorization: `Bearer ${ACME}`, "if-none-match": '"v1"' } });
      expect(again.status).toBe(304);
      await front.settled();
      // The 304 was judged as a JSON answer whose status the contract does not declare.
      expect(failures(await front.report(false), "implementation")).toEqual([]);
    });
  });

  it("holds a created_at to its instant between reads, however each read writes it", async () => {
    // A target whose list writes UTC as Z and whose retrieval writes it as +00:00 (the seed: ISO 8601 in UTC, not
    // which form), and whose second release's created_at moves by a second between the two.
    const release = (id: string, at: string) => ({ id, object: "release", status: "active", chat_id: "6f1c2a9e-0b7d-4c3e-9a51-2d8e4f6a7b10", vcs_pr_number: 1, vcs_pr_title: "t", vcs_pr_url: "https://example.com/pr/1", vcs_pr_author: "a", merged_at: at, last_analysis_at: null, created_at: at });
    const [same, moved] = ["1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d", "2b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d"];
    await behindFake((req, res) => {
      const json = (body: unknown) => void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
      if (req.url === "/api/v1/releases") return json({ object: "list", data: [release(same, "2026-01-01T00:00:00.000Z"), release(moved, "2026-01-02T00:00:00.000Z")], has_more: false });
      if (req.url === `/api/v1/releases/${same}`) return json({ ...release(same, "2026-01-01T00:00:00.000+00:00"), vcs_pr_description: "" });
      if (req.url === `/api/v1/releases/${moved}`) return json({ ...release(moved, "2026-01-02T00:00:01.000Z"), vcs_pr_description: "" });
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { type: "not_found_error", message: "No such route" } }));
    }, async (front) => {
      for (const path of ["/v1/releases", `/v1/releases/${same}`, `/v1/releases/${moved}`]) expect((await call(front.url, path, { key: ACME })).status).toBe(200);
      const immutable = await findingsOf(front, "proxy.immutable");
      expect(immutable).toHaveLength(1);
      expect(immutable[0]).toContain(`release ${moved}: created_at read "2026-01-02T00:00:00.000Z", then "2026-01-02T00:00:01.000Z"`);
    });
  });

  it("judges a message refused as a cursor only once a later page lists it again (an edit may have hidden its branch)", async () => {
    // A target whose chat shows two messages, then one (the second's branch hidden by an edit), then both again; every
    // cursor it is given it refuses with the seed's 400.
    const chat = "3c2b1a09-8f7e-4d6c-9b5a-4e3d2c1b0a99";
    const message = (id: string, at: string) => ({ id, object: "message", chat_id: chat, role: "user", parts: [{ type: "text", text: "hi" }], sources: null, feedback: null, usage: null, created_at: at, completed_at: at });
    const [first, second] = [message("4c2b1a09-8f7e-4d6c-9b5a-4e3d2c1b0a01", "2026-01-01T00:00:00.000Z"), message("4c2b1a09-8f7e-4d6c-9b5a-4e3d2c1b0a02", "2026-01-01T00:00:01.000Z")];
    const shown = [[first, second], [first], [first, second]];
    let reads = 0;
    await behindFake((req, res) => {
      const url = new URL(req.url!, "http://x");
      const json = (status: number, body: unknown) => void res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
      if (url.pathname !== `/api/v1/chats/${chat}/messages`) return json(404, { status: 404, message: "Not found" });
      const after = url.searchParams.get("starting_after");
      if (after) return json(400, { status: 400, message: `No such message: ${after}` });
      json(200, { object: "list", data: shown[Math.min(reads++, shown.length - 1)], has_more: false });
    }, async (front) => {
    const messages = (query = "") => call(front.url, `/v1/chats/${chat}/messages${query}`, { key: ACME });
    const found = () => findingsOf(front, "proxy.cursor-kept");
      await messages();
      expect((await messages(`?starting_after=${second.id}`)).status).toBe(400);
      // Listed without it next: it may have left the list, so the 400 may be the seed's.
      await messages();
      expect(await found()).toEqual([]);
      // Refused again, then listed again: visible before the refusal and after it.
      expect((await messages(`?starting_after=${first.id}`)).status).toBe(400);
      await messages();
      const cursorKept = await found();
      expect(cursorKept).toHaveLength(1);
      expect(cursorKept[0]).toContain(`message ${first.id} as its cursor`);
    });
  });

  it("judges a cursor only on a list it was served with those filters (the interviews may need study_id, as the seed allows)", async () => {
    // A target that refuses the interview list without study_id, and refuses every cursor.
    const study = "5d2b1a09-8f7e-4d6c-9b5a-4e3d2c1b0a10";
    const interview = { id: "6d2b1a09-8f7e-4d6c-9b5a-4e3d2c1b0a11", object: "interview", study_id: study, status: "started", reference_id: "r", respondent_email: null, language: "en", quality_score: null, duration_secs: null, headline: null, summary: null, started_at: "2026-01-01T00:00:00.000Z", completed_at: null, created_at: "2026-01-01T00:00:00.000Z" };
    await behindFake((req, res) => {
      const url = new URL(req.url!, "http://x");
      const json = (status: number, body: unknown) => void res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
      if (url.pathname !== "/api/v1/interviews") return json(404, { status: 404, message: "Not found" });
      if (url.searchParams.get("study_id") !== study) return json(400, { status: 400, message: "study_id is required" });
      if (url.searchParams.has("starting_after")) return json(400, { status: 400, message: "Bad cursor" });
      json(200, { object: "list", data: [interview], has_more: false });
    }, async (front) => {
      expect((await call(front.url, `/v1/interviews?study_id=${study}`, { key: ACME })).status).toBe(200);
      // The unfiltered list was never served: its 400 is about the list.
      expect((await call(front.url, `/v1/interviews?starting_after=${interview.id}`, { key: ACME })).status).toBe(400);
      expect(await findingsOf(front, "proxy.cursor-kept")).toEqual([]);
      // The list by study was: its 400 to an item it showed is the cursor's.
      expect((await call(front.url, `/v1/interviews?study_id=${study}&starting_after=${interview.id}`, { key: ACME })).status).toBe(400);
      expect(await findingsOf(front, "proxy.cursor-kept")).toHaveLength(1);
    });
  });

  it("holds two keys to two projects once one's whole walk lacks an item the other listed before it: then no resource answers both", async () => {
    const chat = (n: number) => ({ id: `7d2b1a09-8f7e-4d6c-9b5a-4e3d2c1b0a1${n}`, object: "chat", title: null, source: "web", is_streaming: false, created_at: `2026-01-0${n}T00:00:00.000Z`, updated_at: `2026-01-0${n}T00:00:00.000Z` });
    const release = { id: "8d2b1a09-8f7e-4d6c-9b5a-4e3d2c1b0a10", object: "release", status: "active", chat_id: "9d2b1a09-8f7e-4d6c-9b5a-4e3d2c1b0a10", vcs_pr_number: 1, vcs_pr_title: "t", vcs_pr_url: "https://example.com/1", vcs_pr_author: "a", merged_at: "2026-01-01T00:00:00.000Z", last_analysis_at: null, created_at: "2026-01-01T00:00:00.000Z", vcs_pr_description: "" };
    // Globex's key sees one chat; Acme's sees it and one begun later. Both read one release (the leak).
    await behindFake((req, res) => {
      const json = (status: number, body: unknown) => void res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
      const path = new URL(req.url!, "http://x").pathname;
      if (path === "/api/v1/chats") return json(200, { object: "list", data: req.headers.authorization === `Bearer ${ACME}` ? [chat(2), chat(1)] : [chat(1)], has_more: false });
      if (path === `/api/v1/releases/${release.id}`) return json(200, release);
      json(404, { status: 404, message: "Not found" });
    }, async (front) => {
    const isolation = () => findingsOf(front, "proxy.isolation");
      // Globex walks first: Acme's later walk listing one more chat shows nothing (a chat may have begun between).
      await call(front.url, "/v1/chats", { key: GLOBEX });
      await call(front.url, "/v1/chats", { key: ACME });
      for (const key of [ACME, GLOBEX]) expect((await call(front.url, `/v1/releases/${release.id}`, { key })).status).toBe(200);
      expect(await isolation()).toEqual([]);
      // Globex walks again, after Acme's walk listed a chat it lacks: two projects, and the release answered both.
      await call(front.url, "/v1/chats", { key: GLOBEX });
      const found = await isolation();
      expect(found).toHaveLength(1);
      // Named: what both read (the release, or the chat both list), and the chat one lacks.
      expect(found[0]).toMatch(new RegExp(`showed (${release.id}|${chat(1).id}), which another key read too`));
      expect(found[0]).toContain(`${chat(2).id}, listed by one key's whole walk`);
    });
  });

  it("streams an event stream as it happens, and adds a Via header only when asked", async () => {
    const stop = new AbortController();
    const res = await fetch(`${proxy.url}/_sim/events`, { headers: { authorization: `Bearer ${ACME}`, accept: "text/event-stream" }, signal: stop.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(res.headers.get("via")).toBeNull();
    const reader = res.body!.getReader();
    // An event made after the stream opened arrives through it while the stream stays open.
    const study = (await call(server.baseUrl, "/v1/studies?limit=1", { key: ACME })).body.data[0];
    const planted = await call(server.baseUrl, "/_sim/interviews", { key: ACME, method: "POST", body: { study_id: study.id } });
    let seen = "";
    for (let i = 0; i < 50 && !seen.includes(planted.body.id); i++) seen += new TextDecoder().decode((await reader.read()).value);
    expect(seen).toContain(planted.body.id);
    stop.abort();
    // The client closed its stream, as a listener does: the proxy breaks off its request to the target, and nobody is
    // blamed for the answer that then never ends (it was blamed on the target). Once the target has seen the proxy's
    // stream close (a stream of its own is then the only listener), the proxy has long handled the break.
    for (let alone = false, tries = 0; !alone; tries++) {
      expect(tries, "the target still counts the proxied stream").toBeLessThan(100);
      const own = new AbortController();
      const direct = await fetch(`${server.baseUrl}/_sim/events`, { headers: { authorization: `Bearer ${ACME}` }, signal: own.signal });
      alone = new TextDecoder().decode((await direct.body!.getReader().read()).value).startsWith(": 1 listener(s)");
      own.abort();
      if (!alone) await new Promise((r) => setTimeout(r, 50));
    }
    await proxy.settled();
    const report = await proxy.report(false);
    expect(failures(report, "implementation").filter((f) => f.includes("/_sim/events"))).toEqual([]);
    const announcing = await startProxy({ target: server.baseUrl, via: true });
    try {
      const r = await call(announcing.url, "/v1/studies", { key: ACME });
      expect(r.headers.get("via")).toBe("1.1 api-conformance-proxy");
    } finally {
      await announcing.close();
    }
  });

  it("answers 502 in the error envelope for a target that refuses, and for one that never answers, without hanging", async () => {
    // The silent target first: a port freed just before it listens may be handed to it, and the refused target would
    // then be the silent one (a CI run answered "no answer" where a refusal was due).
    const silent = createNet((socket) => socket.on("data", () => undefined));
    await new Promise<void>((ok) => silent.listen(0, "127.0.0.1", ok));
    const closed = createNet();
    await new Promise<void>((ok) => closed.listen(0, "127.0.0.1", ok));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((ok) => closed.close(() => ok()));
    const refusedProxy = await startProxy({ target: `http://127.0.0.1:${port}/api` });
    const silentProxy = await startProxy({ target: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/api`, upstreamTimeoutMs: 500 });
    try {
      const refused = await call(refusedProxy.url, "/v1/studies", { key: ACME });
      expect(refused.status).toBe(502);
      expect(refused.body.error.message).toMatch(/^Bad gateway: .*ECONNREFUSED/);
      const started = Date.now();
      const stalled = await call(silentProxy.url, "/v1/studies", { key: ACME });
      expect(stalled.status).toBe(502);
      expect(stalled.body.error.type).toBe("api_error");
      expect(Date.now() - started).toBeLessThan(5_000);
      await silentProxy.settled();
      const silentReport = await silentProxy.report(false);
      expect(failures(silentReport, "implementation").join("\n"), JSON.stringify(silentReport.results)).toMatch(/proxy.answers: #1: GET \/v1\/studies: .*no answer within 500 ms/);
    } finally {
      await refusedProxy.close();
      await silentProxy.close();
      silent.close();
    }
  });
});
