// A client team's daily loop against the real sandbox over HTTP, through the `api-sandbox` commands as a team runs
// them: trigger (exit code = acknowledged), listen (the delivery stream forwarded to a local endpoint that verifies
// the signature, resumed without gap or duplicate after the stream drops, every listener getting every event),
// deliveries list and resend (byte-identical, logged as an attempt of its own), and webhook endpoint failures.
import { spawn, type ChildProcess } from "node:child_process";
import { connect as connectTcp, createServer as createNetServer, type AddressInfo, type Socket } from "node:net";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { verifyWebhookSignature } from "../../receiver/src/index.ts";
import { root } from "../../test/support/processes.ts";
import { systemClock } from "../src/clock.ts";
import { ACME, startApi, type Api } from "./helpers.ts";
import { acceptingStudy, answer, closedPort, deliveries, registerHook, simulate, startReceiver, waitFor, waitForAttempts, type Receiver } from "./webhooks-helpers.ts";
import { sleep } from "../../test/support/wait.ts";

let api: Api;
const children: ChildProcess[] = [];
const receivers: Receiver[] = [];
beforeAll(async () => void (api = await startApi({ clock: systemClock, simProcessingMs: 20, webhookRetryDelaysMs: [100, 200, 300], webhookTimeoutMs: 2_000 })));
afterAll(() => api.server.close());
/** Each test's config directory (the listener's state file lives there), removed after it. */
let configDir = "";
beforeEach(() => void (configDir = mkdtempSync(join(tmpdir(), "api-sandbox-config-"))));
afterEach(async () => {
  for (const c of children.splice(0)) c.kill("SIGKILL");
  for (const r of receivers.splice(0)) await r.close();
  rmSync(configDir, { recursive: true, force: true });
});

/** Runs `api-sandbox ...` against the test's sandbox; resolves with its exit code and output. */
function cli(args: string[], base = api.server.baseUrl): { child: ChildProcess; live: { out: string; err: string }; done: Promise<{ code: number | null; out: string; err: string }> } {
  const child = spawn(process.execPath, ["--import", "tsx", "server/src/cli.ts", ...args, "--base-url", base, "--api-key", ACME], { cwd: root, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, API_SANDBOX_CONFIG_DIR: configDir } });
  children.push(child);
  const live = { out: "", err: "" };
  child.stdout!.on("data", (d) => (live.out += d));
  child.stderr!.on("data", (d) => (live.err += d));
  return { child, live, done: new Promise((resolve) => child.on("exit", (code) => resolve({ code, ...live }))) };
}

/** Until a `listen` says it is connected to the stream. */
const connected = (l: { live: { err: string } }) => waitFor("the listener connected", () => (l.live.err.includes("listening on") ? true : undefined), 15_000);

// Verified as a client team's endpoint verifies: with the receiver library, not with the test's own HMAC.
const verifies = (secret: string, body: Buffer, signature: unknown) => verifyWebhookSignature(body, signature as string | undefined, secret).ok;
const interviewOf = (body: Buffer) => JSON.parse(body.toString("utf8")).data.interview_id as string;

describe("api-sandbox trigger interview.completed", () => {
  it("prints every attempt and exits 0 when the receiver acknowledged", async () => {
    const receiver = await startReceiver(answer(204));
    receivers.push(receiver);
    await registerHook(api, receiver.url);
    const study = await acceptingStudy(api);
    const { code, out } = await cli(["trigger", "interview.completed", "--study", study.id, "--reference-id", "cli_ok", "--language", "de", "--wait", "10"]).done;
    expect(code, out).toBe(0);
    expect(out).toMatch(/attempt 1 \(event\)\s+succeeded\s+HTTP 204/);
    const body = JSON.parse(receiver.requests[0].body.toString("utf8"));
    expect(body.data).toMatchObject({ reference_id: "cli_ok", language: "de", study_id: study.id });
  }, 30_000);

  it("exits 4 after every attempt was refused, printing each with its status and error, and the receiver's status", async () => {
    const receiver = await startReceiver(answer(500));
    receivers.push(receiver);
    await registerHook(api, receiver.url);
    const { code, out } = await cli(["trigger", "interview.completed", "--wait", "10"]).done;
    expect(code, out).toBe(4);
    expect(out.match(/failed\s+HTTP 500.*http_500/g)).toHaveLength(4);
    expect(out).toMatch(/attempt 4 \(retry\)/);
    expect(out).toContain("not acknowledged: the receiver refused the event (HTTP 500)");
  }, 30_000);

  it("exits 3 naming the cause when no webhook is configured and no listener is connected", async () => {
    await api.req("/v1/webhooks", { method: "DELETE" });
    const { code, err } = await cli(["trigger", "interview.completed"]).done;
    expect(code).toBe(3);
    expect(err).toContain("no webhook is configured and no listener is connected");
  }, 30_000);

  it("exits 5 on a timeout, naming the attempt still due", async () => {
    const receiver = await startReceiver(answer(503));
    receivers.push(receiver);
    await registerHook(api, receiver.url);
    const slow = await startApi({ clock: systemClock, simProcessingMs: 20, webhookRetryDelaysMs: [60_000], webhookTimeoutMs: 2_000 });
    try {
      await slow.req("/v1/webhooks", { method: "PUT", body: { url: receiver.url, events: ["interview.completed"] } });
      const { code, out } = await cli(["trigger", "interview.completed", "--wait", "2"], slow.server.baseUrl).done;
      expect(code, out).toBe(5);
      expect(out).toMatch(/not acknowledged within 2 s; attempt 2 is due at/);
    } finally {
      await slow.server.close();
    }
  }, 30_000);

  it("exits 6 when the sandbox is unreachable, and 2 on a URL that is not http(s)", async () => {
    const down = await cli(["trigger", "interview.completed"], `http://127.0.0.1:${await closedPort()}/api`).done;
    expect(down.code).toBe(6);
    expect(down.err).toContain("cannot reach the sandbox at");
    for (const bad of ["ftp://127.0.0.1/api", "127.0.0.1:4010/api"]) {
      const r = await cli(["trigger", "interview.completed"], bad).done;
      expect(r.code, bad).toBe(2);
      expect(r.err).toContain("--base-url must be an http:// or https:// URL");
    }
    for (const bad of ["ftp://localhost/hook", "localhost:3000/hook", "file:///etc/passwd"]) {
      const r = await cli(["listen", "--forward-to", bad]).done;
      expect(r.code, bad).toBe(2);
      expect(r.err).toContain("--forward-to must be an http:// or https:// URL");
    }
  }, 30_000);
});

describe("api-sandbox listen --forward-to", () => {
  it("forwards each event once, byte for byte, to every listener, while the sandbox cannot reach the machine", async () => {
    // The configured webhook is unreachable, as a laptop is from a shared sandbox.
    await registerHook(api, `http://127.0.0.1:${await closedPort()}/hook`);
    const secret = (await api.req("/_sim/listener")).body.signing_secret;
    const local = await startReceiver(answer(200));
    receivers.push(local);
    const listeners = [1, 2].map((n) => cli(["listen", "--forward-to", `${local.url}?listener=${n}`, "--max-events", "3"]));
    await Promise.all(listeners.map(connected));
    const study = await acceptingStudy(api, ACME, 3);
    const made = [await simulate(api, study.id), await simulate(api, study.id), await simulate(api, study.id)].map((i) => i.id as string);
    const results = await Promise.all(listeners.map((l) => l.done));
    for (const r of results) {
      expect(r.code, r.err).toBe(0);
      expect(r.out.trim().split("\n")).toHaveLength(3);
      expect(r.out).toMatch(/interview\.completed\s+[0-9a-f-]{36}\s+200\s+\d+ ms/);
    }
    for (const n of [1, 2]) {
      const got = local.requests.filter((q) => q.path.endsWith(`listener=${n}`));
      expect(got.map((q) => interviewOf(q.body)).sort()).toEqual([...made].sort());
      for (const q of got) {
        expect(verifies(secret, q.body, q.headers["x-webhook-signature"]), "the local endpoint verifies with the listener secret").toBe(true);
        expect(q.headers["x-webhook-event"]).toBe("interview.completed");
        expect(q.headers["content-type"]).toBe("application/json");
      }
    }
    // The very bytes the sandbox signed: the log's request of the first attempt equals what was forwarded.
    const first = (await deliveries(api, made[0])).find((d) => d.attempt === 1);
    const request = await api.req(`/_sim/webhook-deliveries/${first.id}/request`);
    expect(local.requests.find((q) => interviewOf(q.body) === made[0])!.body.toString("utf8")).toBe(request.body.body);
  }, 60_000);

  it("resumes after the stream drops, without a gap or a duplicate", async () => {
    await registerHook(api, `http://127.0.0.1:${await closedPort()}/hook`);
    const secret = (await api.req("/_sim/listener")).body.signing_secret;
    const local = await startReceiver(answer(200));
    receivers.push(local);
    const listener = cli(["listen", "--forward-to", local.url, "--max-events", "6"]);
    await connected(listener);
    const study = await acceptingStudy(api, ACME, 6);
    const made: string[] = [];
    for (let i = 0; i < 3; i++) made.push((await simulate(api, study.id)).id);
    await waitFor("three events forwarded", () => (local.requests.length >= 3 ? true : undefined), 10_000);
    // The stream drops (as a proxy or a server restart would cut it); events keep coming while the listener is away.
    api.server.app.endStreams();
    for (let i = 0; i < 3; i++) made.push((await simulate(api, study.id)).id);
    const result = await listener.done;
    expect(result.code, result.err).toBe(0);
    expect(result.err).toMatch(/resuming after event [0-9a-f]+-\d+/);
    const got = local.requests.map((q) => interviewOf(q.body));
    expect(got).toHaveLength(6);
    expect([...got].sort()).toEqual([...made].sort());
    for (const q of local.requests) expect(verifies(secret, q.body, q.headers["x-webhook-signature"])).toBe(true);
  }, 60_000);

  it("works with no webhook configured: prints its secret, signs with it, and trigger exits 0 once the listener's forward got a 2xx", async () => {
    await api.req("/v1/webhooks", { method: "DELETE" });
    const local = await startReceiver(answer(200));
    receivers.push(local);
    const printed = await cli(["listen", "--print-secret"]).done;
    expect(printed.code).toBe(0);
    const secret = printed.out.trim();
    expect(secret).toMatch(/^whsec_[0-9a-f]{48}$/);
    const listener = cli(["listen", "--forward-to", local.url]);
    await connected(listener);
    expect(listener.live.err).toContain(`Your listener signing secret is ${secret}`);
    const study = await acceptingStudy(api, ACME, 1);
    const { code, out } = await cli(["trigger", "interview.completed", "--study", study.id, "--wait", "10"]).done;
    expect(code, out).toBe(0);
    expect(out).toMatch(/forwarded by a listener to .* HTTP 200/);
    expect(local.requests).toHaveLength(1);
    expect(verifies(secret, local.requests[0].body, local.requests[0].headers["x-webhook-signature"])).toBe(true);
    // The same secret after the listener restarts.
    expect((await cli(["listen", "--print-secret"]).done).out.trim()).toBe(secret);
  }, 60_000);

  it("trigger exits 4 with the status when the listener's endpoint refuses", async () => {
    await api.req("/v1/webhooks", { method: "DELETE" });
    const local = await startReceiver(answer(422));
    receivers.push(local);
    const listener = cli(["listen", "--forward-to", local.url]);
    await connected(listener);
    const { code, out } = await cli(["trigger", "interview.completed", "--wait", "10"]).done;
    expect(code, out).toBe(4);
    expect(out).toContain("the receiver refused the event (HTTP 422)");
  }, 60_000);

  it("delivers each event once when the forward URL is the project's webhook URL", async () => {
    const local = await startReceiver(answer(200));
    receivers.push(local);
    await registerHook(api, local.url);
    // localhost and 127.0.0.1 are the same endpoint.
    const listener = cli(["listen", "--forward-to", local.url.replace("127.0.0.1", "localhost"), "--max-events", "2"]);
    await connected(listener);
    expect(listener.live.err).toContain("this listener forwards nothing, so each event arrives once");
    const study = await acceptingStudy(api, ACME, 2);
    const made = [await simulate(api, study.id), await simulate(api, study.id)].map((i) => i.id as string);
    const result = await listener.done;
    expect(result.code, result.err).toBe(0);
    await waitFor("both delivered", () => (local.requests.length >= 2 ? true : undefined), 10_000);
    await sleep(500);
    expect(local.requests.map((q) => interviewOf(q.body)).sort()).toEqual([...made].sort());
  }, 60_000);

  it("loses nothing and repeats nothing when a TCP proxy cuts the stream at any moment, before and after forwards", async () => {
    await api.req("/v1/webhooks", { method: "DELETE" });
    const local = await startReceiver(answer(200));
    receivers.push(local);
    // A TCP proxy between the listener and the sandbox, as a flaky network or a restarting load balancer is.
    const upstream = new URL(api.server.origin);
    const live = new Set<Socket>();
    const proxy = createNetServer((client) => {
      const server = connectTcp(Number(upstream.port), upstream.hostname);
      for (const s of [client, server]) {
        live.add(s);
        s.on("error", () => undefined);
        s.on("close", () => (live.delete(s), client.destroy(), server.destroy()));
      }
      client.pipe(server).pipe(client);
    });
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
    const cut = () => {
      for (const s of live) s.destroy();
    };
    try {
      const base = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/api`;
      const study = await acceptingStudy(api, ACME, 6);
      const listener = cli(["listen", "--forward-to", local.url, "--max-events", "6"], base);
      await connected(listener);
      const made: string[] = [];
      cut(); // before the first forward
      made.push((await simulate(api, study.id)).id);
      await waitFor("first forward", () => (local.requests.length >= 1 ? true : undefined), 15_000);
      cut(); // after it
      for (let i = 0; i < 2; i++) made.push((await simulate(api, study.id)).id);
      await waitFor("three forwards", () => (local.requests.length >= 3 ? true : undefined), 15_000);
      for (let i = 0; i < 3; i++) {
        made.push((await simulate(api, study.id)).id);
        cut(); // while events arrive
      }
      const r = await listener.done;
      expect(r.code, r.err).toBe(0);
      expect(local.requests.map((q) => interviewOf(q.body))).toEqual(made);
    } finally {
      cut();
      proxy.close();
    }
  }, 90_000);

  it("loses nothing when the stream is cut before the first event", async () => {
    await api.req("/v1/webhooks", { method: "DELETE" });
    const local = await startReceiver(answer(200));
    receivers.push(local);
    const study = await acceptingStudy(api, ACME, 2);
    const listener = cli(["listen", "--forward-to", local.url, "--max-events", "2"]);
    await connected(listener);
    // Cut before anything was forwarded; the events come while the listener is away.
    api.server.app.endStreams();
    const made = [(await simulate(api, study.id)).id as string, (await simulate(api, study.id)).id as string];
    const r = await listener.done;
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(/resuming after event [0-9a-f]+-\d+/);
    expect(local.requests.map((q) => interviewOf(q.body))).toEqual(made);
  }, 60_000);

  it("resumes after its own restart from the state file, without loss or duplicates, and warns on a reset", async () => {
    await api.req("/v1/webhooks", { method: "DELETE" });
    const local = await startReceiver(answer(200));
    receivers.push(local);
    const study = await acceptingStudy(api, ACME, 4);
    const first = cli(["listen", "--forward-to", local.url, "--max-events", "1"]);
    await connected(first);
    const made = [(await simulate(api, study.id)).id as string];
    expect((await first.done).code).toBe(0);
    const state = JSON.parse(readFileSync(join(configDir, "listen-state.json"), "utf8"));
    const entry = Object.values(state)[0] as { last_event_id: string };
    expect(entry.last_event_id).toMatch(/^[0-9a-f]+-\d+$/);
    expect(JSON.stringify(state)).not.toContain(ACME);
    // Events while no listener runs: the restarted listener gets them, and not the first one again.
    for (let i = 0; i < 2; i++) made.push((await simulate(api, study.id)).id);
    const second = cli(["listen", "--forward-to", local.url, "--max-events", "2"]);
    const r = await second.done;
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain(`resuming after event ${entry.last_event_id}`);
    expect(local.requests.map((q) => interviewOf(q.body))).toEqual(made);
    // A state file naming an id the sandbox never gave (as after a restart without a data dir): a warning, then events.
    const stale = { [Object.keys(state)[0]]: { last_event_id: "0123456789-7", at: new Date().toISOString() } };
    (await import("node:fs")).writeFileSync(join(configDir, "listen-state.json"), JSON.stringify(stale));
    const third = cli(["listen", "--forward-to", local.url, "--max-events", "1"]);
    await connected(third);
    made.push((await simulate(api, study.id)).id);
    const r3 = await third.done;
    expect(r3.code, r3.err).toBe(0);
    expect(r3.err).toContain("warning: the sandbox reset the stream (unknown_epoch");
    expect(local.requests.map((q) => interviewOf(q.body))).toEqual(made);
  }, 60_000);
});

describe("api-sandbox deliveries", () => {
  it("resend sends the byte-identical body and signature, and the log records it as its own attempt", async () => {
    const receiver = await startReceiver(answer(200));
    receivers.push(receiver);
    await registerHook(api, receiver.url);
    const interview = await simulate(api, (await acceptingStudy(api)).id);
    const [first] = await waitForAttempts(api, interview.id, "the first delivery", (a) => a.some((d) => d.status === "succeeded"));
    const listed = await cli(["deliveries", "list", "--interview", interview.id]).done;
    expect(listed.out).toContain(first.id);
    const resent = await cli(["deliveries", "resend", first.id]).done;
    expect(resent.code, resent.out + resent.err).toBe(0);
    expect(receiver.requests).toHaveLength(2);
    expect(receiver.requests[1].body.equals(receiver.requests[0].body)).toBe(true);
    expect(receiver.requests[1].headers["x-webhook-signature"]).toBe(receiver.requests[0].headers["x-webhook-signature"]);
    const log = await deliveries(api, interview.id);
    expect(log.map((d) => [d.attempt, d.trigger, d.status])).toEqual([[1, "event", "succeeded"], [2, "resend", "succeeded"]]);

    // --forward-to: the same bytes, to a URL of this machine.
    const local = await startReceiver(answer(202));
    receivers.push(local);
    const forwarded = await cli(["deliveries", "resend", first.id, "--forward-to", local.url]).done;
    expect(forwarded.code, forwarded.err).toBe(0);
    expect(local.requests[0].body.equals(receiver.requests[0].body)).toBe(true);
    expect(local.requests[0].headers["x-webhook-signature"]).toBe(receiver.requests[0].headers["x-webhook-signature"]);
  }, 60_000);

  it("with a listener and no webhook: the list shows its forwards, and a forward's resend reaches the endpoint again through the listener", async () => {
    await api.req("/v1/webhooks", { method: "DELETE" });
    const secret = (await api.req("/_sim/listener")).body.signing_secret;
    const local = await startReceiver(answer(200));
    receivers.push(local);
    const listener = cli(["listen", "--forward-to", local.url]);
    await connected(listener);
    const study = await acceptingStudy(api);
    const triggered = await cli(["trigger", "interview.completed", "--study", study.id, "--wait", "10"]).done;
    expect(triggered.code, triggered.out + triggered.err).toBe(0);
    const interviewId = /interview ([0-9a-f-]{36}) created/.exec(triggered.out)![1];
    const listed = await cli(["deliveries", "list", "--interview", interviewId]).done;
    expect(listed.code).toBe(0);
    const line = listed.out.trim().split("\n");
    expect(line).toHaveLength(1);
    expect(line[0]).toMatch(new RegExp(`^[0-9a-f-]{36}  ${interviewId}  .*forwarded by a listener to ${local.url}  HTTP 200$`));
    const forwardId = line[0].slice(0, 36);

    // Back on the stream: the listener forwards the same bytes again, signed with the listener secret.
    const resent = await cli(["deliveries", "resend", forwardId]).done;
    expect(resent.code, resent.out + resent.err).toBe(0);
    expect(resent.out).toMatch(/forwarded by a listener to .* HTTP 200/);
    expect(local.requests).toHaveLength(2);
    expect(local.requests[1].body.equals(local.requests[0].body)).toBe(true);
    expect(verifies(secret, local.requests[1].body, local.requests[1].headers["x-webhook-signature"])).toBe(true);
    expect(listener.live.out).toContain("(resend) 200");
    const forwards = (await api.req(`/_sim/forwards?interview_id=${interviewId}`)).body.data;
    expect(forwards.map((f: { status: number }) => f.status)).toEqual([200, 200]);

    // --forward-to: from this machine, signed as the listener signs.
    const other = await startReceiver(answer(204));
    receivers.push(other);
    const here = await cli(["deliveries", "resend", forwardId, "--forward-to", other.url]).done;
    expect(here.code, here.err).toBe(0);
    expect(other.requests[0].body.equals(local.requests[0].body)).toBe(true);
    expect(verifies(secret, other.requests[0].body, other.requests[0].headers["x-webhook-signature"])).toBe(true);

    // With no listener left, the resend says what would receive it and exits 3; an unknown id is the API's 404.
    listener.child.kill("SIGTERM");
    await listener.done;
    await waitFor("the listener gone", async () => ((await api.req("/_sim/listener")).body.listeners === 0 ? true : undefined), 10_000);
    const alone = await cli(["deliveries", "resend", forwardId]).done;
    expect(alone.code).toBe(3);
    expect(alone.err).toContain("no listener is connected");
    const unknown = await cli(["deliveries", "resend", "00000000-0000-4000-8000-000000000000"]).done;
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain("answered 404: No such delivery");
    expect((await api.req("/_sim/forwards/00000000-0000-4000-8000-000000000000/event")).status).toBe(404);
  }, 60_000);

  it("resend of an unknown delivery is a 404, and without a webhook a 409", async () => {
    const unknown = await api.req("/_sim/webhook-deliveries/00000000-0000-4000-8000-000000000000/resend", { method: "POST" });
    expect(unknown.status).toBe(404);
    const receiver = await startReceiver(answer(200));
    receivers.push(receiver);
    await registerHook(api, receiver.url);
    const interview = await simulate(api, (await acceptingStudy(api)).id);
    const [first] = await waitForAttempts(api, interview.id, "the first delivery", (a) => a.some((d) => d.status === "succeeded"));
    await api.req("/v1/webhooks", { method: "DELETE" });
    const none = await api.req(`/_sim/webhook-deliveries/${first.id}/resend`, { method: "POST" });
    expect(none.status).toBe(409);
  }, 30_000);
});

describe("webhook endpoint failures on demand", () => {
  it("treats the endpoint as failing for the next N deliveries, so the retry schedule is watched end to end", async () => {
    const receiver = await startReceiver(answer(200));
    receivers.push(receiver);
    await registerHook(api, receiver.url);
    const set = await api.req("/_sim/faults", { method: "PUT", body: { webhook_failures: 2, webhook_failure_status: 503 } });
    expect(set.status).toBe(200);
    const interview = await simulate(api, (await acceptingStudy(api)).id);
    const attempts = await waitForAttempts(api, interview.id, "two failures then a success", (a) => a.some((d) => d.status === "succeeded"), 10_000);
    expect(attempts.map((d) => [d.attempt, d.status, d.response_status])).toEqual([[1, "failed", 503], [2, "failed", 503], [3, "succeeded", 200]]);
    expect(attempts[0].error).toContain("simulated");
    expect(receiver.requests).toHaveLength(1);
    await api.req("/_sim/faults", { method: "DELETE" });
  }, 30_000);
});
