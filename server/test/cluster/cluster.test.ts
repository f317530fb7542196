/**
 * Three sandbox processes on one PostgreSQL (Debian's, started by the test): what the seed's behaviour needs to stay
 * true when a load balancer sends each request anywhere. Every assertion is made through HTTP on the processes.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACME, GLOBEX, call, listen, ok, probe, receiver, sleep, streamsOpen, waitFor, type Receiver } from "./client.ts";
import { startPostgres, type Postgres } from "./postgres.ts";
import { ROOT, startSandbox, stopSandbox, type Sandbox } from "./processes.ts";
import { readDataset } from "../../src/model/dataset.ts";

let db: Postgres;
let url: string;
const procs: Sandbox[] = [];
const receivers: Receiver[] = [];
const ENV = {
  WEBHOOK_RETRY_DELAYS_MS: "1500,2000,3000",
  WEBHOOK_TIMEOUT_MS: "2000",
  WEBHOOK_MAX_CONCURRENT_PER_TENANT: "4",
  SIM_PROCESSING_MS: "400",
  MAX_STREAMS_PER_TENANT: "3",
};
const start = () => startSandbox({ DATABASE_URL: url, ...ENV });
const base = (i: number) => procs[i % procs.length].base;

beforeAll(async () => {
  db = await startPostgres();
  url = db.database("cluster");
  // Started together on an empty database: the migrations run once, the others wait for them.
  procs.push(...(await Promise.all([start(), start(), start()])));
}, 120_000);

afterAll(async () => {
  await Promise.all(procs.map((p) => stopSandbox(p, "SIGKILL")));
  await Promise.all(receivers.map((r) => r.close()));
  db?.stop();
});

async function plantStudy(b: string, key: string): Promise<string> {
  return (await ok(b, "/_sim/studies", { key, method: "POST", body: { name: "cluster" } }, 201)).id;
}

async function hook(b: string, key: string, to: string): Promise<void> {
  await call(b, "/v1/webhooks", { key, method: "DELETE" });
  await ok(b, "/v1/webhooks", { key, method: "PUT", body: { url: to, events: ["interview.completed"] } }, 201);
}

/** A held interview completed at once, through process `i`. */
async function complete(i: number, key: string, study: string): Promise<string> {
  const created = await ok(base(i), "/_sim/interviews", { key, method: "POST", body: { study_id: study, hold: true } }, 201);
  await ok(base(i + 1), `/_sim/interviews/${created.id}/complete`, { key, method: "POST" });
  return created.id;
}

describe("three processes on one PostgreSQL", () => {
  it("migrate once when started together (each migration recorded once), and each says it is ready", async () => {
    for (const p of procs) {
      expect(await ok(`http://127.0.0.1:${p.port}`, "/readyz")).toEqual({ status: "ready", store: "postgres" });
      expect(await ok(`http://127.0.0.1:${p.port}`, "/healthz")).toEqual({ status: "ok" });
    }
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query("SELECT name FROM sandbox.sandbox_migrations ORDER BY name");
      expect(rows.map((r) => r.name)).toEqual(readdirSync(join(ROOT, "server/migrations")).sort().map((f) => f.replace(/\.sql$/, "")));
    } finally {
      await client.end();
    }
  });

  it("consumes fault counters exactly once over every process, and a consumption never undoes a newer PUT", async () => {
    const made = await ok(base(0), "/_sim/projects", { key: ACME, method: "POST", body: { name: "counters" } }, 201);
    const key = made.api_key;
    await ok(base(0), "/_sim/faults", { key, method: "PUT", body: { fail_next: 2, fail_next_kind: "503" } });
    // Six reads at once, two on each process: exactly two fail, whichever processes they reach.
    const statuses = (await Promise.all(Array.from({ length: 6 }, (_, n) => call(base(n), "/v1/studies?limit=1", { key })))).map((r) => r.status);
    expect(statuses.filter((s) => s === 503)).toHaveLength(2);
    expect(statuses.filter((s) => s === 200)).toHaveLength(4);
    for (let i = 0; i < 3; i++) expect((await ok(base(i), "/_sim/faults", { key })).fail_next).toBe(0);
    // A new PUT through one process after consumptions on the others counts from its own value.
    await ok(base(1), "/_sim/faults", { key, method: "PUT", body: { fail_next: 1, webhook_failures: 0 } });
    expect((await call(base(2), "/v1/studies?limit=1", { key })).status).toBe(503);
    expect((await call(base(0), "/v1/studies?limit=1", { key })).status).toBe(200);
    await ok(base(2), "/_sim/faults", { key, method: "PUT", body: { fail_next: 3 } });
    for (let i = 0; i < 3; i++) expect((await ok(base(i), "/_sim/faults", { key })).fail_next).toBe(3);
    await ok(base(0), "/_sim/faults", { key, method: "DELETE" }, 204);
    expect((await Promise.all([0, 1, 2].map((i) => call(base(i), "/v1/studies?limit=1", { key })))).map((r) => r.status)).toEqual([200, 200, 200]);
  });

  it("a write acknowledged by any process is read on every other at once", async () => {
    for (let n = 0; n < 30; n++) {
      const w = n % 3;
      const made = await ok(base(w), "/_sim/projects", { key: ACME, method: "POST", body: { name: `p${n}` } }, 201);
      // The new key authenticates on the two other processes with no wait.
      for (const r of [w + 1, w + 2]) expect((await call(base(r), "/v1/studies", { key: made.api_key })).status).toBe(200);
      await ok(base(w + 1), "/v1/webhooks", { key: made.api_key, method: "PUT", body: { url: `http://127.0.0.1:9/p${n}`, events: ["interview.completed"] } }, 201);
      expect((await ok(base(w + 2), "/v1/webhooks", { key: made.api_key })).url).toBe(`http://127.0.0.1:9/p${n}`);
      const study = await plantStudy(base(w + 2), made.api_key);
      expect((await ok(base(w), `/v1/studies/${study}`, { key: made.api_key })).id).toBe(study);
    }
  });

  it("sends each webhook attempt from exactly one process", async () => {
    const r = await receiver(() => ({ status: 200 }));
    receivers.push(r);
    const made = await ok(base(0), "/_sim/projects", { key: ACME, method: "POST", body: { name: "once" } }, 201);
    await hook(base(1), made.api_key, r.url);
    const study = await plantStudy(base(2), made.api_key);
    const ids = await Promise.all(Array.from({ length: 30 }, (_, i) => complete(i, made.api_key, study)));
    await waitFor("30 deliveries", () => (new Set(r.received.map((x) => x.interviewId)).size === 30 ? true : undefined), 20_000);
    await sleep(1_500);
    expect(r.received.length).toBe(30);
    expect(new Set(r.received.map((x) => x.interviewId))).toEqual(new Set(ids));
    const list = await ok(base(1), "/_sim/webhook-deliveries?limit=100", { key: made.api_key });
    expect(list.data).toHaveLength(30);
    expect(list.data.every((d: any) => d.status === "succeeded" && d.attempt === 1)).toBe(true);
  });

  it("a retry survives the death of the process that scheduled it, and goes out on its schedule", async () => {
    const seen = new Map<string, number>();
    const r = await receiver((_n, id) => {
      seen.set(id, (seen.get(id) ?? 0) + 1);
      return { status: seen.get(id) === 1 ? 500 : 200 };
    });
    receivers.push(r);
    const made = await ok(base(0), "/_sim/projects", { key: ACME, method: "POST", body: { name: "retry" } }, 201);
    await hook(base(0), made.api_key, r.url);
    const study = await plantStudy(base(0), made.api_key);
    const interview = await complete(0, made.api_key, study);
    const attempts = await waitFor("the failed first attempt and its pending retry", async () => {
      const list = (await ok(base(2), `/_sim/webhook-deliveries?interview_id=${interview}`, { key: made.api_key })).data;
      return list.length === 2 && list[0].status === "failed" && list[1].status === "pending" ? list : undefined;
    });
    // Whoever scheduled the retry, only the third process is left when it is due.
    await Promise.all([stopSandbox(procs[0], "SIGKILL"), stopSandbox(procs[1], "SIGKILL")]);
    const done = await waitFor("the retry's success", async () => {
      const list = (await ok(procs[2].base, `/_sim/webhook-deliveries?interview_id=${interview}`, { key: made.api_key })).data;
      return list[1]?.status === "succeeded" ? list : undefined;
    }, 15_000);
    expect(done[1].scheduled_at).toBe(attempts[1].scheduled_at);
    const late = Date.parse(done[1].sent_at) - Date.parse(done[1].scheduled_at);
    expect(late).toBeGreaterThanOrEqual(0);
    expect(late).toBeLessThan(1_000);
    expect(r.received.filter((x) => x.interviewId === interview).map((x) => x.status)).toEqual([500, 200]);
    procs[0] = await start();
    procs[1] = await start();
  }, 60_000);

  it("the event stream carries every event on every process; ids never repeat; Last-Event-ID resumes on any", async () => {
    const made = await ok(base(0), "/_sim/projects", { key: ACME, method: "POST", body: { name: "stream" } }, 201);
    const study = await plantStudy(base(0), made.api_key);
    const onFirst = listen([procs[0].base], made.api_key);
    await streamsOpen([onFirst]);
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push(await complete(1 + (i % 2), made.api_key, study));
    await waitFor("12 stream events on the first process", () => (onFirst.events.length >= 12 ? true : undefined));
    onFirst.stop();
    expect(onFirst.events.map((e) => e.data.interview_id)).toEqual(ids);
    const sseIds = onFirst.events.map((e) => e.id);
    expect(new Set(sseIds).size).toBe(12);
    // Resumed after the fifth, on the third process: exactly the seven after it.
    const res = await fetch(`${procs[2].base}/_sim/events`, { headers: { authorization: `Bearer ${made.api_key}`, "last-event-id": sseIds[4] } });
    const reader = res.body!.getReader();
    let text = "";
    const until = Date.now() + 5_000;
    while ((text.match(/event: interview.completed/g) ?? []).length < 7 && Date.now() < until) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    await reader.cancel();
    const resumedIds = [...text.matchAll(/^id: (.+)$/gm)].map((m) => m[1]);
    expect(resumedIds).toEqual(sseIds.slice(5));
    expect(text).not.toContain("event: reset");
  });

  it("caps deliveries per tenant over all processes, so another tenant's events still arrive within 2 s", async () => {
    const stuck = await receiver(() => ({ status: 200, hang: true }));
    const fine = await receiver(() => ({ status: 200 }));
    receivers.push(stuck, fine);
    await hook(base(0), ACME, stuck.url);
    await hook(base(1), GLOBEX, fine.url);
    const acmeStudy = await plantStudy(base(0), ACME);
    const globexStudy = await plantStudy(base(0), GLOBEX);
    await Promise.all(Array.from({ length: 24 }, (_, i) => complete(i, ACME, acmeStudy)));
    await waitFor("Acme's receiver holding its share", () => (stuck.open() >= 4 ? true : undefined));
    const sent: Array<{ id: string; at: number }> = [];
    for (let i = 0; i < 6; i++) sent.push({ id: await complete(i, GLOBEX, globexStudy), at: Date.now() });
    await waitFor("Globex's six deliveries", () => (sent.every((s) => fine.received.some((x) => x.interviewId === s.id)) ? true : undefined), 10_000);
    // Within the seed's 30 s (an event is sent 5 to 30 seconds after completion) although Acme holds its share; how
    // soon is a figure, printed, not an assertion (the bench measures the flood's effect side by side).
    const waits = sent.map((s) => fine.received.find((x) => x.interviewId === s.id)!.at - s.at);
    console.log(`Globex's deliveries beside Acme's held share: ${waits.join(", ")} ms after completion`);
    for (const wait of waits) expect(wait).toBeLessThanOrEqual(30_000);
    // Four per tenant over all three processes (per process it would be twelve).
    expect(stuck.maxOpen()).toBeLessThanOrEqual(4);
    await call(base(0), "/v1/webhooks", { key: ACME, method: "DELETE" });
    await call(base(0), "/v1/webhooks", { key: GLOBEX, method: "DELETE" });
  }, 60_000);

  it("claims each tenant's deliveries apart: while a claim holds Acme's, Globex's go out from every process, and Acme's follow", async () => {
    const acmeHook = await receiver(() => ({ status: 200 }));
    const globexHook = await receiver(() => ({ status: 200 }));
    receivers.push(acmeHook, globexHook);
    await hook(base(0), ACME, acmeHook.url);
    await hook(base(1), GLOBEX, globexHook.url);
    const acmeStudy = await plantStudy(base(0), ACME);
    const globexStudy = await plantStudy(base(1), GLOBEX);
    const got = (r: Receiver, ids: string[]) => ids.every((id) => r.received.some((x) => x.interviewId === id));
    const first = await complete(0, ACME, acmeStudy);
    await waitFor("Acme's first delivery", () => (got(acmeHook, [first]) ? true : undefined), 15_000);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      // A claim of Acme's in progress, held from outside: its tenant's row in `delivery_tenants`, locked.
      const tenant = (await client.query("SELECT tenant FROM sandbox.attempts WHERE interview_id = $1", [first])).rows[0].tenant;
      await client.query("BEGIN");
      expect((await client.query("SELECT tenant FROM sandbox.delivery_tenants WHERE tenant = $1 FOR UPDATE", [tenant])).rows).toHaveLength(1);
      const acme: string[] = [];
      const globex: string[] = [];
      for (let i = 0; i < 3; i++) acme.push(await complete(i, ACME, acmeStudy));
      for (let i = 0; i < 3; i++) globex.push(await complete(i, GLOBEX, globexStudy));
      // Globex's are claimed by every process meanwhile (one lock over every tenant would hold them too).
      await waitFor("Globex's deliveries while Acme's claim is held", () => (got(globexHook, globex) ? true : undefined), 15_000);
      expect(acmeHook.received.filter((x) => acme.includes(x.interviewId))).toEqual([]);
      await client.query("COMMIT");
      await waitFor("Acme's deliveries once its claim is let go", () => (got(acmeHook, acme) ? true : undefined), 15_000);
    } finally {
      await client.query("ROLLBACK").catch(() => {});
      await client.end();
      await call(base(0), "/v1/webhooks", { key: ACME, method: "DELETE" });
      await call(base(0), "/v1/webhooks", { key: GLOBEX, method: "DELETE" });
    }
  }, 60_000);

  it("caps open event streams per tenant over all processes, and frees a slot when a stream closes", async () => {
    const open = async (i: number) => {
      const controller = new AbortController();
      const res = await fetch(`${base(i)}/_sim/events`, { headers: { authorization: `Bearer ${GLOBEX}` }, signal: controller.signal });
      return { status: res.status, body: res.status === 200 ? null : await res.json(), close: () => controller.abort() };
    };
    const streams = [await open(0), await open(1), await open(2)];
    expect(streams.map((s) => s.status)).toEqual([200, 200, 200]);
    // One per process, three in all: the fourth is refused on any process.
    for (const i of [0, 1, 2]) {
      const refused = await open(i);
      expect(refused.status).toBe(429);
      expect(refused.body.error.message).toMatch(/already has 3 open event streams/);
    }
    streams[1].close();
    const again = await waitFor("a slot freed by the closed stream", async () => {
      const s = await open(2);
      if (s.status === 200) return s;
      return undefined;
    }, 5_000, 100);
    again.close();
    for (const s of streams) s.close();
  });

  it("holds no lock over a tenant: with one of Acme's rows locked, its changes that need it wait, holding no admission slot, while Globex's writes and timers go through on every process", async () => {
    // History completed at once: its event takes the next number from its project's `stream_heads` row.
    const history = (study: string) => ({ study_id: study, created_at: new Date(Date.now() - 60_000).toISOString() });
    const made = await ok(base(1), "/_sim/projects", { key: ACME, method: "POST", body: { name: "row-locked" } }, 201);
    const acmeStudy = await plantStudy(base(1), made.api_key);
    await ok(base(1), "/_sim/interviews", { key: made.api_key, method: "POST", body: history(acmeStudy) }, 201);
    const globexStudy = await plantStudy(base(1), GLOBEX);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      // Process 0 has served no other team for a second: Acme alone there may take every admission slot.
      await sleep(1_100);
      // Held from outside, as a long change of Acme's would hold it.
      await client.query("BEGIN");
      expect((await client.query("SELECT n FROM sandbox.stream_heads WHERE project_id = $1 FOR UPDATE", [made.id])).rows).toEqual([{ n: "1" }]);
      let acmeAnswered = false;
      // More of Acme's writes than process 0 has admission slots (8) and pooled connections (6): past its turns (all
      // connections but one) they wait in memory, holding neither, so Globex's writes on the same process go through
      // (with every slot and connection taken by Acme's waiting changes, they would wait for as long as the lock).
      const acme = Promise.all(Array.from({ length: 12 }, () => call(base(0), "/_sim/interviews", { key: made.api_key, method: "POST", body: history(acmeStudy) }))).finally(() => (acmeAnswered = true));
      await sleep(300);
      for (let i = 0; i < 3; i++) await ok(base(i), "/_sim/interviews", { key: GLOBEX, method: "POST", body: history(globexStudy) }, 201);
      // Acme's changes of other rows (a project, a webhook, a study) go through on the other processes.
      const other = await ok(base(1), "/_sim/projects", { key: ACME, method: "POST", body: { name: "beside" } }, 201);
      await ok(base(2), "/v1/webhooks", { key: other.api_key, method: "PUT", body: { url: "http://127.0.0.1:9/beside", events: ["interview.completed"] } }, 201);
      await ok(base(1), "/_sim/studies", { key: ACME, method: "POST", body: { name: "beside" } }, 201);
      const study = (await ok(base(2), "/_sim/studies", { key: GLOBEX, method: "POST", body: { name: "beside" } }, 201)).id;
      // Globex's simulated interview moves on its timers meanwhile.
      const timed = (await ok(base(1), "/_sim/interviews", { key: GLOBEX, method: "POST", body: { study_id: study } }, 201)).id;
      await waitFor("Globex's interview completed on its timers while Acme's row is locked", async () => ((await ok(base(2), `/v1/interviews/${timed}`, { key: GLOBEX })).status === "completed" ? true : undefined));
      expect(acmeAnswered).toBe(false);
      await client.query("COMMIT");
      expect((await acme).map((r) => r.status)).toEqual(new Array(12).fill(201));
      // Each took the next number, none twice.
      expect((await client.query("SELECT n FROM sandbox.stream_heads WHERE project_id = $1", [made.id])).rows).toEqual([{ n: "13" }]);
    } finally {
      await client.end();
    }
  });

  it("makes each simulated interview's transitions once, from rows: a process killed before its interviews' timers are due leaves them to the others", async () => {
    const made = await ok(base(0), "/_sim/projects", { key: GLOBEX, method: "POST", body: { name: "timers" } }, 201);
    const study = await plantStudy(base(0), made.api_key);
    const r = await receiver(() => ({ status: 200 }));
    receivers.push(r);
    await hook(base(0), made.api_key, r.url);
    // Created through process 0, which is killed before any is due (200 ms to processing, 400 ms to completion).
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push((await ok(base(0), "/_sim/interviews", { key: made.api_key, method: "POST", body: { study_id: study } }, 201)).id);
    await stopSandbox(procs[0], "SIGKILL");
    try {
      await waitFor("every interview completed on the others", async () => {
        const list = await ok(base(1), "/v1/interviews?limit=100", { key: made.api_key });
        return ids.every((id) => list.data.find((i: { id: string; status: string }) => i.id === id)?.status === "completed") ? true : undefined;
      });
      await waitFor("every completion delivered", () => (ids.every((id) => r.received.some((x) => x.interviewId === id)) ? true : undefined));
      // One event per interview, whichever process claimed its rows, and no row left.
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const { rows } = await client.query("SELECT interview_id, count(*)::int AS n FROM sandbox.events WHERE interview_id = ANY($1) GROUP BY interview_id", [ids]);
        expect(rows.map((x) => x.n)).toEqual(ids.map(() => 1));
        expect((await client.query("SELECT count(*)::int AS n FROM sandbox.timers WHERE interview_id = ANY($1)", [ids])).rows[0].n).toBe(0);
      } finally {
        await client.end();
      }
    } finally {
      procs[0] = await start();
    }
  });

  it("a change the database refuses after its handler ran is nowhere, on any process, and the process goes on as it was", async () => {
    const made = await ok(base(0), "/_sim/projects", { key: ACME, method: "POST", body: { name: "refused" } }, 201);
    const study = await plantStudy(base(0), made.api_key);
    const history = { study_id: study, created_at: new Date(Date.now() - 60_000).toISOString() };
    const before = await ok(base(0), "/_sim/interviews", { key: made.api_key, method: "POST", body: history }, 201);
    // The database refuses the project's next stream event (a trigger), after the handler numbered and built it.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(`CREATE FUNCTION sandbox.refuse_marked() RETURNS trigger AS $$ BEGIN
        IF NEW.project_id = '${made.id}' THEN RAISE EXCEPTION 'refused by the test'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`);
      await client.query("CREATE TRIGGER refuse_marked BEFORE INSERT ON sandbox.stream FOR EACH ROW EXECUTE FUNCTION sandbox.refuse_marked()");
      const refused = await call(base(0), "/_sim/interviews", { key: made.api_key, method: "POST", body: history });
      expect(refused.status).toBe(503);
      expect(refused.headers.get("retry-after")).toBe("1");
      // The client is told to retry; what the database said is in the process's log (warn), never in the answer.
      expect(refused.body.error.message).toBe("Service unavailable: the service is briefly unavailable; retry after a second");
      // The log line reaches this test through the child's stdout pipe, after the answer may have: wait for it.
      const logged = /"msg":"store unavailable".*refused by the test|refused by the test.*"msg":"store unavailable"/;
      await waitFor("the store's warning in the log", () => (logged.test(procs[0].output()) ? true : undefined));
      // No process holds anything the database does not: each is ready, and none lists the refused interview.
      for (const i of [0, 1, 2]) {
        expect((await probe(`http://127.0.0.1:${procs[i].port}/readyz`)).status).toBe(200);
        expect((await ok(base(i), "/v1/interviews", { key: made.api_key })).data.map((x: { id: string }) => x.id)).toEqual([before.id]);
      }
      await client.query("DROP TRIGGER refuse_marked ON sandbox.stream");
      // It goes on taking changes, numbering the stream after the last committed event (2: the refused one's number
      // was never given).
      await ok(base(0), "/_sim/interviews", { key: made.api_key, method: "POST", body: history }, 201);
      const ns = (await client.query("SELECT n FROM sandbox.stream WHERE project_id = $1 ORDER BY n", [made.id])).rows.map((r) => r.n);
      expect(ns).toEqual([1, 2]);
      expect(procs[0].output()).not.toMatch(/reading it again|state read again/);
      expect(procs[0].child.exitCode).toBeNull();
    } finally {
      await client.query("DROP TRIGGER IF EXISTS refuse_marked ON sandbox.stream").catch(() => {});
      await client.query("DROP FUNCTION IF EXISTS sandbox.refuse_marked()").catch(() => {});
      await client.end();
    }
  });

  it("/readyz answers 503 in the envelope when the database is gone, while /healthz stays 200 and no process crashes", async () => {
    // Work in progress when the database goes: writes, a stream, the claim loops.
    const made = await ok(base(0), "/_sim/projects", { key: ACME, method: "POST", body: { name: "gone" } }, 201);
    const l = listen(procs.map((p) => p.base), made.api_key);
    const writes = Promise.allSettled(Array.from({ length: 20 }, (_, i) => call(base(i), "/_sim/studies", { key: made.api_key, method: "POST", body: {} })));
    db.stop();
    await writes;
    for (const p of procs) {
      // A connection per probe: the point is the process's answer, not a kept-alive socket's.
      const origin = `http://127.0.0.1:${p.port}`;
      const r = await waitFor("a 503", async () => {
        const res = await probe(`${origin}/readyz`);
        return res.status === 503 ? res : undefined;
      });
      expect(r.body.error.type).toBe("api_error");
      expect(r.body.error.message).toBe("Not ready: the database does not answer");
      expect((await probe(`${origin}/healthz`)).status).toBe(200);
      // A read needs the database too: a 503 in the envelope with Retry-After, never a dropped connection.
      const read = await probe(`${p.base}/v1/studies`, ACME);
      expect(read.status).toBe(503);
      expect(read.headers.get("retry-after")).toBe("1");
      expect(read.body.error.type).toBe("api_error");
      // What the driver said (the database's address) is for the log, never for a client.
      expect(read.body.error.message).toBe("Service unavailable: the service is briefly unavailable; retry after a second");
    }
    l.stop();
    await sleep(1_500);
    expect(procs.map((p) => p.child.exitCode)).toEqual([null, null, null]);
  });
});
