// `npm start` as a new user runs it: prints the base URL, both keys and a curl line, serves the
// fixtures, logs requests as JSON lines, and exits cleanly on SIGTERM and SIGINT.
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { freePort, root } from "../../test/support/processes.ts";
import { ACME, GLOBEX } from "./helpers.ts";
import { sleep } from "../../test/support/wait.ts";

async function startMain(env: Record<string, string>) {
  const child = spawn(process.execPath, ["node_modules/tsx/dist/cli.mjs", "server/src/main.ts"], { cwd: root, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const deadline = Date.now() + 20_000;
  while (!out.includes("Try: curl") && Date.now() < deadline) {
    if (child.exitCode !== null) break;
    await sleep(50);
  }
  return { child, exited, output: () => out, errors: () => err };
}

describe("npm start", () => {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    it(`prints what a new user needs, serves the fixtures and stops on ${signal}`, async () => {
      const port = await freePort();
      const { child, exited, output } = await startMain({ PORT: String(port), HOST: "127.0.0.1" });
      try {
        const base = `http://127.0.0.1:${port}/api`;
        expect(output()).toContain(base);
        expect(output()).toContain(ACME);
        expect(output()).toContain(GLOBEX);
        expect(output()).toContain(`curl -H "Authorization: Bearer ${ACME}" ${base}/v1/chats`);
        const res = await fetch(`${base}/v1/chats`, { headers: { authorization: `Bearer ${ACME}` } });
        expect(res.status).toBe(200);
        expect((await res.json()).object).toBe("list");
        await sleep(100);
        const logLine = output().split("\n").find((l) => l.startsWith("{") && l.includes("/api/v1/chats"));
        expect(logLine, "a JSON request log line").toBeTruthy();
        expect(JSON.parse(logLine!)).toMatchObject({ level: 30, msg: "request completed", method: "GET", url: "/api/v1/chats", status: 200 });
        // A request's line names no header: the key never reaches the log.
        expect(logLine).not.toContain(ACME);
      } finally {
        child.kill(signal);
      }
      expect(await exited).toBe(0);
    }, 40_000);
  }

  it("refuses a bad PORT with a clear message", async () => {
    const { exited, errors } = await startMain({ PORT: "eighty" });
    expect(await exited).toBe(2);
    expect(errors()).toContain("PORT must be an integer");
  }, 20_000);

  it("refuses a DATABASE_URL that is not PostgreSQL's, or one given with a data dir, naming the problem and hiding the password", async () => {
    const bad = await startMain({ DATABASE_URL: "mysql://root:hunter2@db/sandbox" });
    expect(await bad.exited).toBe(2);
    expect(bad.errors()).toContain("DATABASE_URL must be a postgres:// or postgresql:// URL");
    expect(bad.errors()).not.toContain("hunter2");
    const both = await startMain({ DATABASE_URL: "postgres://db/sandbox", SANDBOX_DATA_DIR: "/tmp/never-used" });
    expect(await both.exited).toBe(2);
    expect(both.errors()).toContain("choose one store");
  }, 20_000);

  it("exits 2 naming the database (without its password) when it cannot be reached", async () => {
    const { exited, errors } = await startMain({ DATABASE_URL: "postgres://sandbox:hunter2@127.0.0.1:1/sandbox" });
    expect(await exited).toBe(2);
    expect(errors()).toMatch(/^Cannot use the database at postgres:\/\/sandbox:\*\*\*@127\.0\.0\.1:1\/sandbox: /m);
    expect(errors()).not.toContain("hunter2");
  }, 20_000);
});
