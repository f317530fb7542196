// Shutdown under a supervisor: requests already received are answered (with Connection: close, so keep-alive
// clients do not reuse the connection), the process exits 0 once drained and 1 when it had to cut requests after
// SHUTDOWN_GRACE_MS, and SIGTERM to the npm process leaves no orphaned server listening.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { connect } from "node:net";
import { Agent, request } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, onTestFinished } from "vitest";
import { freePort, groupGone, groupMembers, root, waitUntilUp } from "../../test/support/processes.ts";
import { ACME } from "./helpers.ts";
import { sleep } from "../../test/support/wait.ts";

async function start(command: "node" | "npm" | "cli", env: Record<string, string>): Promise<{ child: ChildProcess; exited: Promise<number | null>; base: string; port: number }> {
  const port = await freePort();
  const args = command === "npm" ? ["start"] : command === "cli" ? ["--import", "tsx", "server/src/cli.ts", "start"] : ["--import", "tsx", "server/src/main.ts"];
  const child = spawn(command === "npm" ? "npm" : process.execPath, args, { cwd: root, env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "silent", ...env }, stdio: "ignore" });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const base = `http://127.0.0.1:${port}/api`;
  await waitUntilUp(`${base}/v1/studies`, 30_000, child);
  return { child, exited, base, port };
}

const portOpen = (port: number) => new Promise<boolean>((resolve) => {
  const s = connect(port, "127.0.0.1");
  s.once("connect", () => (s.destroy(), resolve(true)));
  s.once("error", () => resolve(false));
});

const spawned: ChildProcess[] = [];
afterEach(() => {
  for (const c of spawned.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
});

describe("shutdown", () => {
  it("answers every request it received while draining keep-alive clients, with Connection: close, and exits 0", async () => {
    const { child, exited, port } = await start("node", {});
    const agent = new Agent({ keepAlive: true, maxSockets: 20 });
    const outcomes = { ok: 0, refused: 0, cut: 0 };
    const one = () => new Promise<void>((resolve) => {
      const req = request({ host: "127.0.0.1", port, path: "/api/v1/interviews?limit=100", agent, headers: { authorization: `Bearer ${ACME}` } }, (res) => {
        res.resume();
        res.on("end", () => {
          if (res.statusCode === 200) outcomes.ok++;
          resolve();
        });
        res.on("error", () => (outcomes.cut++, resolve()));
      });
      // A request refused before it was sent (the listener is gone) is fine; one cut after it was sent is not.
      req.on("error", (err: NodeJS.ErrnoException) => (err.code === "ECONNREFUSED" ? outcomes.refused++ : outcomes.cut++, resolve()));
      req.end();
    });
    const loops = Array.from({ length: 20 }, async () => {
      for (let i = 0; i < 200 && child.exitCode === null; i++) await one();
    });
    // One request in flight at the signal: headers sent, the body finished only after SIGTERM.
    const body = JSON.stringify({ url: "https://hooks.example.com/drain", events: ["interview.completed"] });
    const slow = new Promise<{ status?: number; connection?: string }>((resolve) => {
      const req = request({ host: "127.0.0.1", port, method: "PUT", path: "/api/v1/webhooks", headers: { authorization: `Bearer ${ACME}`, "content-type": "application/json", "content-length": Buffer.byteLength(body) } }, (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode, connection: res.headers.connection }));
      });
      req.on("error", (err) => resolve({ error: String(err) } as never));
      req.write(body.slice(0, 10));
      setTimeout(() => req.end(body.slice(10)), 900);
    });
    await sleep(400);
    child.kill("SIGTERM");
    await Promise.all(loops);
    agent.destroy();
    expect(await slow).toEqual({ status: 201, connection: "close" });
    expect(await exited).toBe(0);
    expect(outcomes.ok).toBeGreaterThan(20);
    expect(outcomes.cut, JSON.stringify(outcomes)).toBe(0);
  }, 60_000);

  it("cuts a request still open after SHUTDOWN_GRACE_MS and exits 1", async () => {
    const { child, exited, port } = await start("node", { SHUTDOWN_GRACE_MS: "500" });
    // Headers sent, body never finished: the request stays open.
    const socket = connect(port, "127.0.0.1");
    await new Promise((r) => socket.once("connect", r));
    socket.write(`PUT /api/v1/webhooks HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ACME}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"url"`);
    socket.on("error", () => undefined);
    await sleep(200);
    const t = Date.now();
    child.kill("SIGTERM");
    expect(await exited).toBe(1);
    expect(Date.now() - t).toBeLessThan(5_000);
    socket.destroy();
  }, 60_000);

  it.each(["SIGINT", "SIGTERM"] as const)("`api-sandbox start` stops within 2 s on %s with listeners connected", async (signal) => {
    const { child, exited, base } = await start("cli", {});
    const listeners = [1, 2].map(() => {
      const l = spawn(process.execPath, ["--import", "tsx", "server/src/cli.ts", "listen", "--forward-to", "http://127.0.0.1:9/hook", "--base-url", base, "--api-key", ACME, "--state-file", "/dev/null"], { cwd: root, stdio: "ignore" });
      spawned.push(l);
      return l;
    });
    const connected = async () => ((await (await fetch(`${base}/_sim/listener`, { headers: { authorization: `Bearer ${ACME}` } })).json()) as { listeners: number }).listeners;
    const deadline = Date.now() + 20_000;
    while ((await connected()) < 2 && Date.now() < deadline) await sleep(100);
    expect(await connected()).toBe(2);
    const t = Date.now();
    child.kill(signal);
    expect(await exited).toBe(0);
    expect(Date.now() - t).toBeLessThan(2_000);
    for (const l of listeners) l.kill("SIGKILL");
  }, 60_000);

  // A terminal's Ctrl-C signals the whole foreground process group; `kill <pid>` signals npm alone, which passes it
  // to its shell only. Either way nothing of the group may outlive it by more than 2 s.
  it.each([
    ["npm run sandbox -- start", "group", ["run", "sandbox", "--", "start"], "/api/v1/studies"],
    ["npm run sandbox -- start", "npm", ["run", "sandbox", "--", "start"], "/api/v1/studies"],
    ["npm run mock", "group", ["run", "mock"], "/api/v1/studies"],
    ["npm run mock", "npm", ["run", "mock"], "/api/v1/studies"],
  ] as const)("`%s`: a signal to the %s ends every process of the group within 2 s", async (_name, to, args, probe) => {
    const port = await freePort();
    const child = spawn("npm", [...args], { cwd: root, detached: true, env: { ...process.env, PORT: String(port), MOCK_PORT: String(port), MOCK_QUIET: "1", LOG_LEVEL: "silent" }, stdio: "ignore" });
    spawned.push(child);
    const url = `http://127.0.0.1:${port}${probe}`;
    await waitUntilUp(url, 60_000, child);
    expect(groupMembers(child.pid!).length).toBeGreaterThanOrEqual(2);
    if (to === "group") process.kill(-child.pid!, "SIGINT");
    else child.kill("SIGTERM");
    const took = await groupGone(child.pid!);
    expect(groupMembers(child.pid!), "processes of the group still running").toEqual([]);
    expect(took).toBeLessThan(2_000);
  }, 90_000);

  it("`npm run sandbox -- listen`: SIGTERM to npm alone ends the listener within 2 s", async () => {
    const { base } = await start("node", {});
    const config = mkdtempSync(join(tmpdir(), "listen-stop-"));
    onTestFinished(() => rmSync(config, { recursive: true, force: true }));
    const child = spawn("npm", ["run", "sandbox", "--", "listen", "--forward-to", "http://127.0.0.1:9/hook", "--base-url", base], { cwd: root, detached: true, env: { ...process.env, API_SANDBOX_CONFIG_DIR: config }, stdio: "ignore" });
    spawned.push(child);
    const listeners = async () => ((await (await fetch(`${base}/_sim/listener`, { headers: { authorization: `Bearer ${ACME}` } })).json()) as { listeners: number }).listeners;
    for (const t = Date.now(); (await listeners()) < 1 && Date.now() - t < 30_000; ) await sleep(100);
    expect(await listeners()).toBe(1);
    child.kill("SIGTERM");
    const took = await groupGone(child.pid!);
    expect(groupMembers(child.pid!), "listener processes still running").toEqual([]);
    expect(took).toBeLessThan(2_000);
  }, 90_000);

  it("a second signal while draining exits at once", async () => {
    const { child, exited, port } = await start("node", {});
    // A request that keeps the drain going: headers sent, body never finished.
    const socket = connect(port, "127.0.0.1");
    await new Promise((r) => socket.once("connect", r));
    socket.on("error", () => undefined);
    socket.write(`PUT /api/v1/webhooks HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ACME}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"url"`);
    await sleep(200);
    child.kill("SIGINT");
    await sleep(300);
    expect(child.exitCode).toBeNull();
    const t = Date.now();
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    expect(Date.now() - t).toBeLessThan(1_000);
    socket.destroy();
  }, 60_000);

  it("leaves no server behind when the npm process itself is sent SIGTERM", async () => {
    const { child, exited, port } = await start("npm", {});
    expect(await portOpen(port)).toBe(true);
    child.kill("SIGTERM");
    await exited;
    const deadline = Date.now() + 5_000;
    while ((await portOpen(port)) && Date.now() < deadline) await sleep(100);
    expect(await portOpen(port)).toBe(false);
  }, 60_000);

  it("keeps running when started detached (`nohup npm start &`) from a script that then exits", async () => {
    const port = await freePort();
    const script = spawn("bash", ["-c", "nohup npm start > /dev/null 2>&1 & echo $!"], { cwd: root, env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "silent" }, stdio: ["ignore", "pipe", "ignore"] });
    let out = "";
    script.stdout!.on("data", (d) => (out += d));
    await new Promise((r) => script.on("exit", r));
    const npmPid = Number(out.trim());
    try {
      await waitUntilUp(`http://127.0.0.1:${port}/api/v1/studies`, 30_000);
      // The watchdog this replaces stopped the server about 0.5 s after its parent script exited.
      await sleep(2_500);
      expect(await portOpen(port)).toBe(true);
    } finally {
      process.kill(npmPid, "SIGTERM");
    }
    const deadline = Date.now() + 5_000;
    while ((await portOpen(port)) && Date.now() < deadline) await sleep(100);
    expect(await portOpen(port), "SIGTERM to the detached npm still stops the server").toBe(false);
  }, 60_000);

  it("`npm run mock` leaves no Prism behind when npm is sent SIGTERM", async () => {
    const port = await freePort();
    const child = spawn("npm", ["run", "mock"], { cwd: root, env: { ...process.env, MOCK_PORT: String(port), MOCK_QUIET: "1" }, stdio: "ignore" });
    const url = `http://127.0.0.1:${port}/api/v1/studies`;
    await waitUntilUp(url, 60_000, child);
    for (let i = 0; i < 150 && (await fetch(url)).status === 503; i++) await sleep(200);
    // Every process under npm (the runner and Prism), found before the signal.
    const childrenOf = (pid: number): number[] => {
      try {
        return execFileSync("ps", ["-o", "pid=", "--ppid", String(pid)], { encoding: "utf8" }).split("\n").map((s) => Number(s.trim())).filter((n) => n > 0);
      } catch {
        return []; // ps exits 1 when there are none
      }
    };
    const tree = (pid: number): number[] => childrenOf(pid).flatMap((k) => [k, ...tree(k)]);
    const pids = tree(child.pid!);
    expect(pids.length, "npm's children: the mock runner and Prism").toBeGreaterThanOrEqual(2);
    child.kill("SIGTERM");
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    const deadline = Date.now() + 10_000;
    while (pids.some(alive) && Date.now() < deadline) await sleep(200);
    expect(pids.filter(alive), "processes still alive 10 s after SIGTERM to npm").toEqual([]);
  }, 90_000);
});
