// `api-conformance proxy` as people run it: a process, problems printed as they happen, Ctrl-C ends it with the reports
// written and the exit status CI reads (1: the implementation broke a rule; the client's only with --fail-on-client;
// 2: bad options).
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../server/src/testing.ts";
import { BrokenProxy } from "../conformance/broken/proxy.ts";
import { ACME, variants } from "../conformance/broken/variants.ts";
import { root } from "../support/processes.ts";

const dir = mkdtempSync(join(tmpdir(), "proxy-command-"));

/** Runs the command against `target`, sends the requests through it, then Ctrl-C; its exit status and output. */
async function run(target: string, paths: string[], extra: string[] = []): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", "conformance/cli.ts", "proxy", "--target", target, "--port", "0", ...extra], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.on("data", (c) => (out += c));
  child.stderr.on("data", (c) => (err += c));
  try {
    for (let i = 0; i < 400 && !/proxy: (http:\/\/\S+) ->/.test(err); i++) await new Promise((r) => setTimeout(r, 50));
    const url = /proxy: (http:\/\/\S+) ->/.exec(err)?.[1];
    expect(url, err).toBeDefined();
    for (const p of paths) await (await fetch(`${url}${p}`, { headers: { authorization: `Bearer ${ACME}` } })).arrayBuffer();
    child.kill("SIGINT");
    const code = await new Promise<number | null>((r) => child.once("exit", (c) => r(c)));
    return { code, out, err };
  } finally {
    if (child.exitCode === null) child.kill("SIGKILL");
  }
}

describe("api-conformance proxy, the command", () => {
  let server: RunningServer;
  beforeAll(async () => void (server = await startServer({})));
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("in front of a correct server: exit 0, the client's mistake printed as the client's, the reports written", async () => {
    const json = join(dir, "ok.json");
    const junit = join(dir, "ok.xml");
    const r = await run(server.baseUrl, ["/v1/studies", "/v1/chats?limit=0", "/v1/experiments"], ["--report", "json", json, "--report", "junit", junit]);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(/^CLIENT \[contract\] client.invalid-request: #2 GET \/v1\/chats: limit/m);
    expect(r.err).toMatch(/reproduce: curl .*svc_live_…REDACTED.*\/v1\/chats\?limit=0/);
    const report = JSON.parse(readFileSync(json, "utf8"));
    expect(report.kind).toBe("proxy");
    expect(report.requests).toBe(3);
    expect(report.results.map((x: any) => [x.name, x.status])).toEqual([["implementation", "passed"], ["client", "failed"]]);
    expect(readFileSync(junit, "utf8")).toMatch(/<testsuites/);
    expect(r.out).toMatch(/3 exchanges through the proxy to /);
  }, 60_000);

  it("the client's findings fail the run with --fail-on-client", async () => {
    const r = await run(server.baseUrl, ["/v1/chats?limit=0"], ["--fail-on-client"]);
    expect(r.code, r.err).toBe(1);
  }, 60_000);

  it("in front of a broken server: the problem printed as it happens, exit 1", async () => {
    const broken = new BrokenProxy(server.origin, variants().find((v) => v.mutation.name === "no Sunset header")!.mutation);
    await broken.start();
    try {
      const r = await run(broken.baseUrl, ["/v1/experiments"]);
      expect(r.code, r.err).toBe(1);
      expect(r.err).toMatch(/^IMPLEMENTATION \[seed\] deprecated.headers: #1 GET \/v1\/experiments \(200\) has Deprecation .* and Sunset null/m);
    } finally {
      await broken.close();
    }
  }, 60_000);

  it("refuses bad options with exit 2 and says why", () => {
    const r = spawnSync(process.execPath, ["--import", "tsx", "conformance/cli.ts", "proxy", "--target", "ftp://x"], { cwd: root, encoding: "utf8" });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/"ftp:\/\/x" is not an http\(s\) URL/);
    const missing = spawnSync(process.execPath, ["--import", "tsx", "conformance/cli.ts", "proxy"], { cwd: root, encoding: "utf8" });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/--target/);
  });
});
