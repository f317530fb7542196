/**
 * The same behaviour over each store behind the one store interface (stores/backend.ts): memory (the default),
 * SQLite (`--data-dir`) and PostgreSQL (`--database-url`). Each case runs the real app on a free port and talks HTTP
 * to it; a restart closes the app and opens a new one on the same data dir or database.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppOptions } from "../../src/app.ts";
import type { Backend } from "../../src/stores/backend.ts";
import { PgBackend } from "../../src/stores/postgres/backend.ts";
import { readDataset } from "../../src/model/dataset.ts";
import { startServer, type RunningServer } from "../../src/testing.ts";
import { ACME, GLOBEX, call, listen, ok, receiver, sleep, streamsOpen, waitFor, type Receiver } from "./client.ts";
import { ROOT } from "./processes.ts";
import { startPostgres, type Postgres } from "./postgres.ts";
import { failedChecks } from "./conformance-report.ts";

let db: Postgres;
const dirs: string[] = [];
const receivers: Receiver[] = [];
let dbCount = 0;

beforeAll(async () => {
  db = await startPostgres();
}, 60_000);

afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  db?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

interface StoreUnderTest {
  kind: "memory" | "sqlite" | "postgres";
  /** Starts the app on this store (the same one at each call: a restart), with `options` over the usual ones. */
  start(options?: AppOptions): Promise<RunningServer>;
}

const OPTIONS: AppOptions = { webhookRetryDelaysMs: [300, 300, 300], webhookTimeoutMs: 1_000, simProcessingMs: 200 };

function memory(): StoreUnderTest {
  return { kind: "memory", start: (options) => startServer({ ...OPTIONS, ...options }) };
}

function sqlite(): StoreUnderTest {
  const dir = mkdtempSync(join(tmpdir(), "stores-"));
  dirs.push(dir);
  return {
    kind: "sqlite",
    start: (options) => startServer({ ...OPTIONS, ...options, dataDir: dir }),
  };
}

function postgres(): StoreUnderTest {
  const url = db.database(`stores_${++dbCount}`);
  const anchor = Date.parse(readDataset().anchor);
  return {
    kind: "postgres",
    async start(options) {
      const backend: Backend = await PgBackend.open(url, {
        initialMeta: { time_shift_ms: String(Date.now() - anchor), stream_epoch: randomBytes(5).toString("hex"), launch_token_secret: randomBytes(32).toString("hex") },
      });
      return startServer({ ...OPTIONS, ...options, backend });
    },
  };
}

const STORES: Array<[string, () => StoreUnderTest]> = [
  ["memory", memory],
  ["SQLite (--data-dir)", sqlite],
  ["PostgreSQL (--database-url)", postgres],
];

/** The conformance suite's full run (--sim) against `base`: the checks that failed (each with its failures), and its output's end. */
async function conformance(base: string): Promise<{ failed: string[]; passed: number; tail: string }> {
  const dir = mkdtempSync(join(tmpdir(), "stores-conformance-"));
  dirs.push(dir);
  const report = join(dir, "report.json");
  const args = [
    "--import", "tsx", join(ROOT, "conformance/cli.ts"), "--base-url", base,
    "--api-key", ACME, "--other-key", GLOBEX, "--public-key", "pk_live_acme_0123456789abcdef0123456789abcdef",
    "--sim", "--webhook-retry-delays-ms", OPTIONS.webhookRetryDelaysMs!.join(","), "--webhook-timeout-ms", String(OPTIONS.webhookTimeoutMs),
    "--seed", "7", "--allow-untested", "--report", "json", report,
  ];
  const out = await new Promise<string>((resolve) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let text = "";
    child.stdout.on("data", (d) => (text += d));
    child.stderr.on("data", (d) => (text += d));
    child.on("exit", () => resolve(text));
  });
  if (!existsSync(report)) return { failed: ["(no report)"], passed: 0, tail: out.slice(-4_000) };
  return { ...failedChecks(report), tail: out.slice(-6_000) };
}

// The conformance suite's full run on each durable store, one process each (the memory store's is npm test's
// test/conformance/selftest.test.ts; two processes on PostgreSQL behind a proxy, compose.test.ts).
describe.each(STORES.filter(([name]) => name !== "memory"))("the %s store, alone", (_name, make) => {
  it("passes the conformance suite with its simulation surface (--sim)", async () => {
    const srv = await make().start();
    try {
      const r = await conformance(srv.baseUrl);
      expect(r.failed, r.tail).toEqual([]);
      expect(r.passed).toBeGreaterThan(10);
    } finally {
      await srv.close();
    }
  }, 240_000);
});

describe.each(STORES)("the %s store", (_name, make) => {

  it("keeps what the API changed: projects, webhooks, planted studies, interviews and their deliveries", async () => {
    const store = make();
    const r = await receiver((n) => ({ status: n === 1 ? 503 : 200 }));
    receivers.push(r);
    let srv = await store.start();
    const made = await ok(srv.baseUrl, "/_sim/projects", { key: ACME, method: "POST", body: { name: "kept" } }, 201);
    const key = made.api_key;
    await ok(srv.baseUrl, "/v1/webhooks", { key, method: "PUT", body: { url: r.url, events: ["interview.completed"] } }, 201);
    const study = (await ok(srv.baseUrl, "/_sim/studies", { key, method: "POST", body: { name: "s" } }, 201)).id;
    const interview = (await ok(srv.baseUrl, "/_sim/interviews", { key, method: "POST", body: { study_id: study } }, 201)).id;
    // A study paused after planting: out of the active list at once (PostgreSQL's partial index follows the document).
    const paused = (await ok(srv.baseUrl, "/_sim/studies", { key, method: "POST", body: { name: "paused later" } }, 201)).id;
    await ok(srv.baseUrl, `/_sim/studies/${paused}/status`, { key, method: "PUT", body: { status: "paused" } });
    expect((await ok(srv.baseUrl, "/v1/studies", { key })).data.map((s: any) => s.id)).toEqual([study]);
    // Timed: processing, then completed, then delivered (a 503 first, then the retry's 200).
    const attempts = await waitFor("the retried delivery", async () => {
      const list = (await ok(srv.baseUrl, `/_sim/webhook-deliveries?interview_id=${interview}`, { key })).data;
      return list.length === 2 && list[1].status === "succeeded" ? list : undefined;
    }, 10_000);
    expect(attempts.map((a: any) => [a.attempt, a.trigger, a.status, a.response_status])).toEqual([[1, "event", "failed", 503], [2, "retry", "succeeded", 200]]);
    expect((await ok(srv.baseUrl, `/v1/interviews/${interview}`, { key })).status).toBe("completed");
    await srv.close();

    srv = await store.start();
    try {
      const auth = await call(srv.baseUrl, "/v1/webhooks", { key });
      if (store.kind === "memory") {
        // Memory keeps nothing: the project (and so its key) is gone after a restart.
        expect(auth.status).toBe(401);
        return;
      }
      expect(auth.body).toEqual({ url: r.url, events: ["interview.completed"] });
      expect((await ok(srv.baseUrl, `/v1/studies/${study}`, { key })).id).toBe(study);
      expect((await ok(srv.baseUrl, `/v1/studies/${paused}`, { key }))).toMatchObject({ status: "paused", accepting_responses: false });
      expect((await ok(srv.baseUrl, "/v1/studies", { key })).data.map((s: any) => s.id)).toEqual([study]);
      expect((await ok(srv.baseUrl, `/v1/interviews/${interview}`, { key })).status).toBe("completed");
      const after = (await ok(srv.baseUrl, `/_sim/webhook-deliveries?interview_id=${interview}`, { key })).data;
      expect(after).toEqual(attempts);
    } finally {
      await srv.close();
    }
  });

  it("answers a project's first webhook PUT sent eight times at once with one creation (201) and seven updates (200)", async () => {
    const srv = await make().start();
    try {
      const { api_key: key } = await ok(srv.baseUrl, "/_sim/projects", { key: ACME, method: "POST", body: { name: "race" } }, 201);
      for (let round = 0; round < 3; round++) {
        const answers = await Promise.all(Array.from({ length: 8 }, (_, k) => call(srv.baseUrl, "/v1/webhooks", { key, method: "PUT", body: { url: `https://hooks.example.com/race-${k}`, events: ["interview.completed"] } })));
        expect(answers.map((a) => a.status).sort(), `round ${round}`).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
        expect(answers.filter((a) => a.status === 200).every((a) => a.body.signing_secret === undefined)).toBe(true);
        await ok(srv.baseUrl, "/v1/webhooks", { key, method: "DELETE" }, 204);
      }
    } finally {
      await srv.close();
    }
  });

  // PostgreSQL cannot store or compare text holding U+0000: a filter of it answered 503 there, retried for ever.
  it("refuses text holding U+0000 with a 400 naming the field, in a filter and in a plant, and answers on", async () => {
    const srv = await make().start();
    try {
      const nul = "must not contain the NUL character (U+0000)";
      const filter = await call(srv.baseUrl, "/v1/interviews?reference_id=a%00b", { key: ACME });
      expect(filter.status).toBe(400);
      expect(filter.body.error.details).toEqual([{ location: "query", field: "reference_id", message: nul }]);
      const plant = await call(srv.baseUrl, "/_sim/studies", { key: ACME, method: "POST", body: { name: "n\u0000" } });
      expect(plant.status).toBe(400);
      expect(plant.body.error.details).toEqual([{ location: "body", field: "name", message: nul }]);
      expect((await call(srv.baseUrl, "/v1/interviews?reference_id=a%01b", { key: ACME })).status).toBe(200);
    } finally {
      await srv.close();
    }
  });

  it("keeps each project's newest attempts past its cap, forgetting the oldest finished ones and never one still in flight", async () => {
    // The first interview's delivery hangs (in flight for the 30 s timeout); the others' are answered 200.
    const r = await receiver((n) => (n === 1 ? { status: 200, hang: true } : { status: 200 }));
    receivers.push(r);
    const srv = await make().start({ tenantLimits: { attemptsKept: 3 }, webhookTimeoutMs: 30_000 });
    try {
      const key = (await ok(srv.baseUrl, "/_sim/projects", { key: ACME, method: "POST", body: { name: "retention" } }, 201)).api_key;
      await ok(srv.baseUrl, "/v1/webhooks", { key, method: "PUT", body: { url: r.url, events: ["interview.completed"] } }, 201);
      const study = (await ok(srv.baseUrl, "/_sim/studies", { key, method: "POST", body: { weekly_limit: 100 } }, 201)).id;
      const list = async () => (await ok(srv.baseUrl, "/_sim/webhook-deliveries?limit=100", { key })).data as Array<{ id: string; interview_id: string; status: string }>;
      const interviews: string[] = [];
      const complete = async (status: string) => {
        await sleep(5);
        const id = (await ok(srv.baseUrl, "/_sim/interviews", { key, method: "POST", body: { study_id: study, hold: true } }, 201)).id;
        await ok(srv.baseUrl, `/_sim/interviews/${id}/complete`, { key, method: "POST" });
        interviews.push(id);
        await waitFor(`the delivery of interview ${interviews.length} ${status}`, async () => ((await list()).some((a) => a.interview_id === id && a.status === status) ? true : undefined), 10_000);
      };
      await complete("in_flight");
      for (let i = 0; i < 3; i++) await complete("succeeded");
      // Four attempts, one past the newest three: the oldest, still in flight, is kept.
      const four = await list();
      expect(four.map((a) => [a.interview_id, a.status])).toEqual([[interviews[0], "in_flight"], [interviews[1], "succeeded"], [interviews[2], "succeeded"], [interviews[3], "succeeded"]]);
      // A fifth: past the newest three are the one in flight and the second, finished, which is forgotten.
      await complete("succeeded");
      const kept = await waitFor("the oldest finished attempt forgotten", async () => {
        const now = await list();
        return now.length === 4 ? now : undefined;
      }, 10_000);
      expect(kept.map((a) => a.interview_id)).toEqual([interviews[0], interviews[2], interviews[3], interviews[4]]);
      expect((await call(srv.baseUrl, `/_sim/webhook-deliveries/${four[1].id}/request`, { key })).status).toBe(404);
    } finally {
      await srv.close();
    }
  });

  it("cancels a pending retry when the webhook is replaced, and numbers stream events so a listener resumes", async () => {
    const store = make();
    const failing = await receiver(() => ({ status: 500 }));
    const other = await receiver(() => ({ status: 200 }));
    receivers.push(failing, other);
    let srv = await store.start();
    const key = (await ok(srv.baseUrl, "/_sim/projects", { key: ACME, method: "POST", body: { name: "cancel" } }, 201)).api_key;
    await ok(srv.baseUrl, "/v1/webhooks", { key, method: "PUT", body: { url: failing.url, events: ["interview.completed"] } }, 201);
    const study = (await ok(srv.baseUrl, "/_sim/studies", { key, method: "POST", body: {} }, 201)).id;
    const l = listen([srv.baseUrl], key);
    await streamsOpen([l]);
    const held = (await ok(srv.baseUrl, "/_sim/interviews", { key, method: "POST", body: { study_id: study, hold: true } }, 201)).id;
    await ok(srv.baseUrl, `/_sim/interviews/${held}/complete`, { key, method: "POST" });
    await waitFor("a failed attempt and its pending retry", async () => {
      const list = (await ok(srv.baseUrl, `/_sim/webhook-deliveries?interview_id=${held}`, { key })).data;
      return list.length === 2 && list[1].status === "pending" ? true : undefined;
    });
    await ok(srv.baseUrl, "/v1/webhooks", { key, method: "PUT", body: { url: other.url, events: ["interview.completed"] } });
    const list = (await ok(srv.baseUrl, `/_sim/webhook-deliveries?interview_id=${held}`, { key })).data;
    expect(list[1]).toMatchObject({ status: "cancelled", error: "cancelled: webhook replaced" });
    await sleep(500);
    expect(other.received).toHaveLength(0);
    await waitFor("the stream event", () => (l.events.length === 1 ? true : undefined));
    l.stop();
    const [epoch, n] = l.events[0].id.split("-");
    expect(Number(n)).toBe(1);
    await srv.close();
    if (store.kind === "memory") return;
    srv = await store.start();
    try {
      // The id is known after the restart: resuming from it starts with no reset, and a new event gets the next number.
      const again = listen([srv.baseUrl], key);
      await streamsOpen([again]);
      const next = (await ok(srv.baseUrl, "/_sim/interviews", { key, method: "POST", body: { study_id: study, hold: true } }, 201)).id;
      await ok(srv.baseUrl, `/_sim/interviews/${next}/complete`, { key, method: "POST" });
      await waitFor("the next stream event", () => (again.events.length === 1 ? true : undefined));
      again.stop();
      expect(again.events[0].id).toBe(`${epoch}-2`);
    } finally {
      await srv.close();
    }
  });

  it("compacts its history (PostgreSQL keeps none): thousands of changes restart to the same state from a short log", async () => {
    const store = make();
    let srv = await store.start();
    const key = (await ok(srv.baseUrl, "/_sim/projects", { key: ACME, method: "POST", body: { name: "history" } }, 201)).api_key;
    // 2,400 changes that set the same few things over and over.
    for (let i = 0; i < 800; i++) {
      await ok(srv.baseUrl, "/v1/webhooks", { key, method: "PUT", body: { url: `http://127.0.0.1:9/h${i}`, events: ["interview.completed"] } }, i === 0 ? 201 : 200);
      await ok(srv.baseUrl, "/_sim/faults", { key, method: "PUT", body: { latency_ms: i % 7 } });
      await ok(srv.baseUrl, "/_sim/faults", { key, method: "DELETE" }, 204);
    }
    await ok(srv.baseUrl, "/_sim/faults", { key, method: "PUT", body: { latency_ms: 3 } });
    await srv.close();
    srv = await store.start();
    try {
      if (store.kind === "memory") {
        expect(srv.app.restoredChanges).toBe(0);
        return;
      }
      if (store.kind === "postgres") {
        // No change log at all: each change was its rows, and a start replays nothing.
        expect(srv.app.restoredChanges).toBe(0);
        expect((await ok(srv.baseUrl, "/v1/webhooks", { key })).url).toBe("http://127.0.0.1:9/h799");
        expect((await ok(srv.baseUrl, "/_sim/faults", { key })).latency_ms).toBe(3);
        return;
      }
      // What the start replayed: about what the state holds, not the 2,402 changes made.
      expect(srv.app.restoredChanges).toBeGreaterThan(0);
      expect(srv.app.restoredChanges).toBeLessThan(1_200);
      expect((await ok(srv.baseUrl, "/v1/webhooks", { key })).url).toBe("http://127.0.0.1:9/h799");
      expect((await ok(srv.baseUrl, "/_sim/faults", { key })).latency_ms).toBe(3);
    } finally {
      await srv.close();
    }
  }, 120_000);
});
