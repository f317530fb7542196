// Restarts of a real sandbox process, killed with SIGKILL (`kill -9`) at chosen and at random moments, with and
// without --data-dir: what a restart keeps, what it says it lost, how event ids go on, and that the store is never
// corrupted. Every child is killed and every folder removed in afterEach, even when a test fails.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createParser } from "eventsource-parser";
import { afterEach, describe, expect, it } from "vitest";
import { SqliteBackend } from "../src/stores/sqlite/backend.ts";
import { signWebhookBody } from "../src/webhooks/signing.ts";
import { freePort, root, waitUntilUp } from "../../test/support/processes.ts";
import { ACME, ACME_PK, GLOBEX } from "./helpers.ts";
import { sleep } from "../../test/support/wait.ts";

interface Sandbox {
  child: ChildProcess;
  base: string;
  port: number;
  output: () => string;
  exited: Promise<number | null>;
}

const children = new Set<ChildProcess>();
const folders: string[] = [];
const servers: Server[] = [];

afterEach(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  children.clear();
  for (const s of servers.splice(0)) await new Promise((r) => (s.closeAllConnections(), s.close(r)));
  for (const f of folders.splice(0)) rmSync(f, { recursive: true, force: true });
});

async function startSandbox(args: string[], env: Record<string, string> = {}, port?: number): Promise<Sandbox> {
  port ??= await freePort();
  const child = spawn(process.execPath, ["--import", "tsx", "server/src/cli.ts", "start", "--port", String(port), ...args], {
    cwd: root,
    env: { ...process.env, HOST: "127.0.0.1", LOG_LEVEL: "info", WEBHOOK_RETRY_DELAYS_MS: "1500,1500,1500", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.add(child);
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const base = `http://127.0.0.1:${port}/api`;
  await waitUntilUp(`${base}/v1/studies`, 30_000, child);
  return { child, base, port, output: () => out, exited };
}

async function kill9(s: Sandbox): Promise<void> {
  s.child.kill("SIGKILL");
  await s.exited;
}

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "sandbox-data-"));
  folders.push(dir);
  return dir;
}

async function call(base: string, path: string, init: { method?: string; key?: string; publicKey?: string; body?: unknown } = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${path}`, {
    method: init.method ?? "GET",
    headers: {
      ...(init.publicKey ? { "x-public-key": init.publicKey } : { authorization: `Bearer ${init.key ?? ACME}` }),
      ...(init.body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** A receiver that answers `status()` to each delivery and keeps what it got. */
async function receiver(status: () => number) {
  const got: Array<{ body: string; signature: string }> = [];
  const server = createServer((req: IncomingMessage, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      got.push({ body, signature: String(req.headers["x-webhook-signature"]) });
      res.writeHead(status()).end();
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, got };
}

/** Reads an event stream for `ms` (or until `until` holds) and returns its frames. */
async function readStream(base: string, lastEventId: string | undefined, ms: number, until?: (frames: Array<{ event?: string; id?: string; data: string }>) => boolean) {
  const frames: Array<{ event?: string; id?: string; data: string }> = [];
  const controller = new AbortController();
  const res = await fetch(`${base}/_sim/events`, { headers: { authorization: `Bearer ${ACME}`, ...(lastEventId ? { "last-event-id": lastEventId } : {}) }, signal: controller.signal });
  expect(res.status).toBe(200);
  // A fresh stream opens with `event: ready` (where it stands); the tests look at what follows.
  const parser = createParser({ onEvent: (e) => void (e.event !== "ready" && frames.push({ event: e.event, id: e.id, data: e.data })) });
  const timer = setTimeout(() => controller.abort(), ms);
  try {
    const decoder = new TextDecoder();
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      parser.feed(decoder.decode(chunk, { stream: true }));
      if (until?.(frames)) break;
    }
  } catch (err) {
    if ((err as Error).name !== "AbortError") throw err;
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  return frames;
}

const until = async (what: () => boolean | Promise<boolean>, ms = 15_000) => {
  const end = Date.now() + ms;
  while (!(await what())) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await sleep(50);
  }
};

describe("restart with --data-dir after kill -9", () => {
  it("keeps projects, keys, webhooks and secrets (the listener's too), planted data, faults, prompt events and the delivery log, and resumes pending retries", async () => {
    const dir = dataDir();
    let answer = 500;
    const hook = await receiver(() => answer);
    const first = await startSandbox(["--data-dir", dir], { SIM_PROCESSING_MS: "600" });
    const put = await call(first.base, "/v1/webhooks", { method: "PUT", body: { url: hook.url, events: ["interview.completed"] } });
    expect(put.status).toBe(201);
    const secret = put.body.signing_secret as string;
    const listenerSecret = (await call(first.base, "/_sim/listener")).body.signing_secret as string;
    const made = (await call(first.base, "/_sim/projects", { method: "POST", body: { name: "Kept" } })).body;
    const study = (await call(first.base, "/_sim/studies", { method: "POST", body: { name: "Kept study", weekly_limit: 9 } })).body;
    const paused = (await call(first.base, "/_sim/studies", { method: "POST", body: { name: "Kept paused" } })).body;
    expect((await call(first.base, `/_sim/studies/${paused.id}/status`, { method: "PUT", body: { status: "paused" } })).status).toBe(200);
    const chat = (await call(first.base, "/_sim/chats", { method: "POST", body: { title: "Kept chat", messages: [{ role: "user", parts: [{ type: "text", text: "hello" }] }] } })).body;
    const release = (await call(first.base, "/_sim/releases", { method: "POST", body: { vcs_pr_number: 9, vcs_pr_title: "Kept release", merged_at: "2020-01-01T00:00:00.000Z", last_analysis_at: null } })).body;
    const held = (await call(first.base, "/_sim/interviews", { method: "POST", body: { study_id: study.id, hold: true } })).body;
    const abandoned = (await call(first.base, "/_sim/interviews", { method: "POST", body: { study_id: study.id, hold: true } })).body;
    expect((await call(first.base, `/_sim/interviews/${abandoned.id}/abandon`, { method: "POST" })).status).toBe(200);
    expect((await call(first.base, "/_sim/faults", { method: "PUT", body: { latency_ms: 5, operations: ["getChat"] } })).status).toBe(200);
    const prompt = { eventId: "0b6f3a3e-4f39-4a43-9a55-3f0c8d7e1a21", phase: "shown", referenceId: "u1", occurredAt: new Date().toISOString() };
    const promptEvents = "/v1/interview-participant/prompt-events";
    expect((await call(first.base, promptEvents, { method: "POST", publicKey: ACME_PK, body: prompt })).body.duplicate).toBe(false);
    // One event whose first attempt fails: its retry is pending when the process dies.
    expect((await call(first.base, `/_sim/interviews/${held.id}/complete`, { method: "POST" })).status).toBe(200);
    await until(() => hook.got.length === 1);
    const before = (await call(first.base, "/_sim/webhook-deliveries")).body.data;
    expect(before.map((d: any) => d.status)).toEqual(["failed", "pending"]);
    await kill9(first);

    answer = 200;
    const second = await startSandbox(["--data-dir", dir]);
    expect(second.output()).toMatch(/State: kept in .*\(\d+ changes restored; 1 deliveries pending\)/);
    expect((await call(second.base, "/v1/webhooks")).body).toEqual({ url: hook.url, events: ["interview.completed"] });
    expect((await call(second.base, "/_sim/listener")).body.signing_secret).toBe(listenerSecret);
    expect((await call(second.base, "/v1/studies", { key: made.api_key })).status).toBe(200);
    expect((await call(second.base, `/v1/studies/${study.id}`)).body.name).toBe("Kept study");
    expect((await call(second.base, `/v1/studies/${paused.id}`)).body).toMatchObject({ status: "paused", accepting_responses: false });
    expect((await call(second.base, `/v1/chats/${chat.id}`)).body.title).toBe("Kept chat");
    expect((await call(second.base, `/v1/releases/${release.id}`)).body).toEqual(release);
    // Merged before every fixture release: last in the list.
    expect((await call(second.base, "/v1/releases?limit=100")).body.data.at(-1).id).toBe(release.id);
    expect((await call(second.base, `/v1/interviews/${held.id}`)).body.status).toBe("completed");
    expect((await call(second.base, `/_sim/interviews/${abandoned.id}/complete`, { method: "POST" })).status).toBe(409);
    expect((await call(second.base, "/_sim/faults")).body).toMatchObject({ latency_ms: 5, operations: ["getChat"] });
    expect((await call(second.base, promptEvents, { method: "POST", publicKey: ACME_PK, body: prompt })).body.duplicate).toBe(true);
    // The pending retry goes out at its time, with the same bytes and the signature of the secret from before.
    await until(() => hook.got.length === 2);
    expect(hook.got[1].body).toBe(hook.got[0].body);
    expect(hook.got[1].signature).toBe(signWebhookBody(secret, Buffer.from(hook.got[1].body)));
    await until(async () => (await call(second.base, "/_sim/webhook-deliveries")).body.data.at(-1).status === "succeeded");
    const after = (await call(second.base, "/_sim/webhook-deliveries")).body.data;
    expect(after.slice(0, 1)).toEqual(before.slice(0, 1));
    expect(after.map((d: any) => [d.attempt, d.status])).toEqual([[1, "failed"], [2, "succeeded"]]);
    await kill9(second);
  }, 90_000);

  it("finishes a simulated interview whose timer was running when the process died", async () => {
    const dir = dataDir();
    const first = await startSandbox(["--data-dir", dir], { SIM_PROCESSING_MS: "4000" });
    const study = (await call(first.base, "/_sim/studies", { method: "POST", body: {} })).body;
    const running = (await call(first.base, "/_sim/interviews", { method: "POST", body: { study_id: study.id } })).body;
    await kill9(first);
    const second = await startSandbox(["--data-dir", dir]);
    await until(async () => (await call(second.base, `/v1/interviews/${running.id}`)).body.status === "completed", 20_000);
  }, 60_000);

  it("goes on numbering stream events, and resumes a Last-Event-ID from before the kill without loss or repeat", async () => {
    const dir = dataDir();
    const hook = await receiver(() => 200);
    const first = await startSandbox(["--data-dir", dir]);
    await call(first.base, "/v1/webhooks", { method: "PUT", body: { url: hook.url, events: ["interview.completed"] } });
    const study = (await call(first.base, "/_sim/studies", { method: "POST", body: {} })).body;
    const complete = async (base: string) => {
      const i = (await call(base, "/_sim/interviews", { method: "POST", body: { study_id: study.id, hold: true } })).body;
      expect((await call(base, `/_sim/interviews/${i.id}/complete`, { method: "POST" })).status).toBe(200);
      return i.id as string;
    };
    const live = readStream(first.base, undefined, 6_000, (f) => f.length >= 2);
    await sleep(300);
    const early = [await complete(first.base), await complete(first.base)];
    const all = await live;
    expect(all.map((f) => JSON.parse(f.data).interview_id)).toEqual(early);
    expect(all.map((f) => f.id)).toEqual([`${all[0].id!.split("-")[0]}-1`, `${all[0].id!.split("-")[0]}-2`]);
    const lastSeen = all[0].id!;
    await kill9(first);

    const second = await startSandbox(["--data-dir", dir]);
    const late = await complete(second.base);
    const resumed = await readStream(second.base, lastSeen, 3_000, (f) => f.length >= 2);
    expect(resumed.map((f) => f.event)).toEqual(["interview.completed", "interview.completed"]);
    expect(resumed.map((f) => JSON.parse(f.data).interview_id)).toEqual([early[1], late]);
    expect(resumed.map((f) => f.id)).toEqual([all[1].id, `${lastSeen.split("-")[0]}-3`]);
    await kill9(second);
  }, 90_000);

  it("never corrupts the store, and keeps every acknowledged write, when killed at random moments of a write storm", async () => {
    const dir = dataDir();
    const port = await freePort();
    const acknowledged: string[] = [];
    for (let round = 0; round < 3; round++) {
      const s = await startSandbox(["--data-dir", dir], {}, port);
      let stop = false;
      const writers = Array.from({ length: 6 }, async (_, w) => {
        for (let n = 0; !stop; n++) {
          const name = `storm ${round}.${w}.${n}`;
          try {
            const r = await call(s.base, "/_sim/studies", { method: "POST", body: { name } });
            if (r.status === 201) acknowledged.push(r.body.id);
          } catch {
            return; // the process died mid-request: not acknowledged
          }
        }
      });
      await new Promise((r) => setTimeout(r, 300 + Math.floor(Math.random() * 700)));
      await kill9(s);
      stop = true;
      await Promise.all(writers);
    }
    expect(acknowledged.length).toBeGreaterThan(20);
    // Opened as the sandbox opens it (its lock taken over from the killed process), then SQLite's own check.
    const backend = new SqliteBackend(dir);
    try {
      expect(backend.integrity()).toBe("ok");
    } finally {
      backend.close();
    }
    const last = await startSandbox(["--data-dir", dir]);
    const missing: string[] = [];
    for (const id of acknowledged) if ((await call(last.base, `/v1/studies/${id}`)).status !== 200) missing.push(id);
    expect(missing).toEqual([]);
    await kill9(last);
  }, 120_000);

  it("refuses a second sandbox on the same data dir, naming the process that holds it", async () => {
    const dir = dataDir();
    const first = await startSandbox(["--data-dir", dir]);
    const port = await freePort();
    const second = spawn(process.execPath, ["--import", "tsx", "server/src/cli.ts", "start", "--port", String(port), "--data-dir", dir], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    children.add(second);
    let err = "";
    second.stderr!.on("data", (d) => (err += d));
    const code = await new Promise<number | null>((r) => second.on("exit", r));
    expect(code).toBe(2);
    expect(err).toContain(`in use by another sandbox (process ${first.child.pid})`);
    await kill9(first);
  }, 60_000);

  it("SIGTERM says how many deliveries were pending, and that the data dir keeps them", async () => {
    const dir = dataDir();
    const hook = await receiver(() => 503);
    const s = await startSandbox(["--data-dir", dir]);
    await call(s.base, "/v1/webhooks", { method: "PUT", body: { url: hook.url, events: ["interview.completed"] } });
    const study = (await call(s.base, "/_sim/studies", { method: "POST", body: {} })).body;
    const i = (await call(s.base, "/_sim/interviews", { method: "POST", body: { study_id: study.id, hold: true } })).body;
    await call(s.base, `/_sim/interviews/${i.id}/complete`, { method: "POST" });
    await until(() => hook.got.length === 1);
    s.child.kill("SIGTERM");
    expect(await s.exited).toBe(0);
    expect(s.output()).toContain("1 pending webhook deliveries are kept in the data dir and resume at the next start");
  }, 60_000);
});

describe("restart without --data-dir after kill -9", () => {
  it("says state is in memory, starts clean, and answers an old Last-Event-ID with event: reset, never reusing an id", async () => {
    const hook = await receiver(() => 200);
    const port = await freePort();
    const first = await startSandbox([], {}, port);
    expect(first.output()).toContain("State: in memory only; it is lost when the sandbox stops. Keep it with --data-dir DIR");
    await call(first.base, "/v1/webhooks", { method: "PUT", body: { url: hook.url, events: ["interview.completed"] } });
    const study = (await call(first.base, "/_sim/studies", { method: "POST", body: {} })).body;
    const i = (await call(first.base, "/_sim/interviews", { method: "POST", body: { study_id: study.id, hold: true } })).body;
    const live = readStream(first.base, undefined, 5_000, (f) => f.length >= 1);
    await sleep(300);
    await call(first.base, `/_sim/interviews/${i.id}/complete`, { method: "POST" });
    const oldId = (await live)[0].id!;
    await kill9(first);

    const second = await startSandbox([], {}, port);
    expect((await call(second.base, "/v1/webhooks")).status).toBe(404);
    expect((await call(second.base, `/v1/studies/${study.id}`)).status).toBe(404);
    await call(second.base, "/v1/webhooks", { method: "PUT", body: { url: hook.url, events: ["interview.completed"] } });
    const study2 = (await call(second.base, "/_sim/studies", { method: "POST", body: {} })).body;
    const j = (await call(second.base, "/_sim/interviews", { method: "POST", body: { study_id: study2.id, hold: true } })).body;
    const frames = readStream(second.base, oldId, 4_000, (f) => f.length >= 2);
    await sleep(300);
    await call(second.base, `/_sim/interviews/${j.id}/complete`, { method: "POST" });
    const got = await frames;
    expect(got[0].event).toBe("reset");
    expect(JSON.parse(got[0].data)).toMatchObject({ last_event_id: oldId, reason: expect.stringContaining("unknown_epoch") });
    expect(got[1].event).toBe("interview.completed");
    expect(got[1].id).not.toBe(oldId);
    expect(got[1].id!.split("-")[0]).not.toBe(oldId.split("-")[0]);
    await kill9(second);
  }, 90_000);

  it("SIGTERM says the pending deliveries are lost", async () => {
    const hook = await receiver(() => 503);
    const s = await startSandbox([]);
    await call(s.base, "/v1/webhooks", { method: "PUT", key: GLOBEX, body: { url: hook.url, events: ["interview.completed"] } });
    const study = (await call(s.base, "/_sim/studies", { method: "POST", key: GLOBEX, body: {} })).body;
    const i = (await call(s.base, "/_sim/interviews", { method: "POST", key: GLOBEX, body: { study_id: study.id, hold: true } })).body;
    await call(s.base, `/_sim/interviews/${i.id}/complete`, { method: "POST", key: GLOBEX });
    await until(() => hook.got.length === 1);
    s.child.kill("SIGTERM");
    expect(await s.exited).toBe(0);
    expect(s.output()).toContain("1 pending webhook deliveries are lost: the sandbox keeps no state without --data-dir");
  }, 60_000);
});
