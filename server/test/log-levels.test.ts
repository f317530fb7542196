// What the sandbox logs at error level is a real failure: an injected fault (`Prefer: fault=500`) and the 503 an event
// listener gets while the sandbox shuts down are its intended answers, logged at info with their own message
// (issue #41: 17 "server error" lines in a 2-minute shared run). The real server, its real pino output.
import { spawn } from "node:child_process";
import { Agent, request } from "node:http";
import { createInterface } from "node:readline";
import { afterEach, describe, expect, it } from "vitest";
import { freePort, root, waitUntilUp } from "../../test/support/processes.ts";
import { ACME } from "./helpers.ts";
import { sleep } from "../../test/support/wait.ts";

const children: Array<ReturnType<typeof spawn>> = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
});

function get(port: number, path: string, headers: Record<string, string>, agent: Agent | false): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: `/api${path}`, headers: { authorization: `Bearer ${ACME}`, ...headers }, agent }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("log levels", () => {
  it("logs injected faults and the shutdown's 503 at info with their own message, and nothing at error", async () => {
    const port = await freePort();
    const child = spawn(process.execPath, ["--import", "tsx", "server/src/main.ts"], { cwd: root, env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "info" }, stdio: ["ignore", "pipe", "inherit"] });
    children.push(child);
    const lines: Array<{ level: number; msg: string; status?: number }> = [];
    const waiters: Array<() => void> = [];
    createInterface({ input: child.stdout! }).on("line", (line) => {
      try {
        lines.push(JSON.parse(line));
      } catch {
        lines.push({ level: 0, msg: line });
      }
      for (const w of waiters.splice(0)) w();
    });
    const logged = (msg: string) => new Promise<void>((resolve) => {
      const check = () => (lines.some((l) => l.msg === msg) ? resolve() : waiters.push(check));
      check();
    });
    const exited = new Promise((r) => child.on("exit", r));
    await waitUntilUp(`http://127.0.0.1:${port}/api/v1/studies`, 30_000, child);

    expect(await get(port, "/v1/studies", { prefer: "fault=500" }, false)).toBe(500);
    expect(await get(port, "/v1/studies", { prefer: "fault=503" }, false)).toBe(503);
    // A listener's keep-alive connection, opened before the signal; a held request keeps the sandbox draining.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    expect(await get(port, "/v1/studies", {}, agent)).toBe(200);
    const held = get(port, "/v1/studies", { prefer: "delay=1500" }, false);
    await sleep(200);
    child.kill("SIGTERM");
    await logged("shutting down");
    expect(await get(port, "/_sim/events", {}, agent)).toBe(503);
    expect(await held).toBe(200);
    await exited;
    agent.destroy();

    const faults = lines.filter((l) => l.msg === "injected fault");
    expect(faults.map((l) => [l.level, l.status])).toEqual([[30, 500], [30, 503]]);
    expect(lines.filter((l) => l.msg === "event stream refused: shutting down").map((l) => [l.level, l.status])).toEqual([[30, 503]]);
    expect(lines.filter((l) => l.level >= 50), JSON.stringify(lines.filter((l) => l.level >= 50))).toEqual([]);
  }, 60_000);
});
