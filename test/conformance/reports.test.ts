// The per-statement reports, as an implementer gets them: the CLI run as a process against a real server behind a
// broken proxy, with --report html, json and junit in one run. Every statement of the matrix appears in each, with its
// verdict; a failure carries its reproducible request; a statement not tested says which capability was missing.
import { spawn, spawnSync } from "node:child_process";
import { createServer } from "node:net";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { statements } from "../../conformance/src/seed/statements.ts";
import { startServer, type RunningServer } from "../../server/src/testing.ts";
import { root } from "../support/processes.ts";
import { BrokenProxy } from "./broken/proxy.ts";
import { ACME, GLOBEX } from "./broken/variants.ts";

let server: RunningServer;
let proxy: BrokenProxy;
let dir: string;
let run: { code: number | null; stdout: string; stderr: string };

beforeAll(async () => {
  server = await startServer();
  // A broken chat list: it answers has_more false on every page, so a walk stops after the first page.
  proxy = new BrokenProxy(server.origin, {
    name: "chats list drops has_more",
    response(ex) {
      if (ex.method === "GET" && ex.path === "/api/v1/chats" && ex.body?.has_more === true) ex.body.has_more = false;
    },
  });
  await proxy.start();
  dir = mkdtempSync(join(tmpdir(), "conformance-reports-"));
  const args = ["--import", "tsx", "conformance/cli.ts", "--base-url", proxy.baseUrl, "--api-key", ACME, "--other-key", GLOBEX, "--level", "seed", "--seed", "11", "--runs", "3",
    "--only", "pagination,chats,auth", "--report", "html", join(dir, "r.html"), "--report", "json", join(dir, "r.json"), "--report", "junit", join(dir, "r.xml")];
  run = await new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}, 120_000);
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await proxy.close();
  await server.close();
});

describe("reports: a verdict for every seed statement", () => {
  it("the run fails on the broken walk and prints the statement counts", () => {
    expect(run.code, run.stderr.slice(-2000)).toBe(1);
    expect(run.stdout).toMatch(/^seed statements: \d+ passed, [1-9]\d* failed, \d+ not tested, \d+ excused \(of \d+; --report html FILE lists each\)$/m);
  });

  it("JSON: every statement once, with a verdict, the failure's curl and the missing capability", () => {
    const report = JSON.parse(readFileSync(join(dir, "r.json"), "utf8"));
    expect(report.statements.map((s: any) => s.id)).toEqual(statements.map((s) => s.id));
    for (const s of report.statements) expect(["passed", "failed", "not_tested", "excused"]).toContain(s.verdict);
    const failed = report.statements.filter((s: any) => s.verdict === "failed");
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.some((s: any) => s.failures.some((f: any) => f.rule.startsWith("pagination.") && /^curl /.test(f.curl ?? "")))).toBe(true);
    // Webhook statements were not run (--only): not tested, naming why.
    const delivered = report.statements.find((s: any) => s.id === "events.emitted-by");
    expect(delivered.verdict).toBe("not_tested");
    expect(delivered.reason).toMatch(/was not run \(--only pagination,chats,auth\)/);
    const excused = report.statements.filter((s: any) => s.verdict === "excused");
    expect(excused.length).toBe(statements.filter((s) => s.excuse).length);
    for (const s of excused) expect(s.reason).toBe(statements.find((x) => x.id === s.id)!.excuse);
    expect(report.statements.some((s: any) => s.verdict === "passed" && s.rules.some((r: any) => r.outcome === "held"))).toBe(true);
  });

  it("JUnit: each statement is a test case, failed or skipped as its verdict says", () => {
    const xml = readFileSync(join(dir, "r.xml"), "utf8");
    const suite = /<testsuite name="seed-statements" tests="(\d+)" failures="(\d+)" skipped="(\d+)">([\s\S]*?)<\/testsuite>/.exec(xml);
    expect(suite).not.toBeNull();
    expect(Number(suite![1])).toBe(statements.length);
    const cases = suite![4].match(/<testcase /g) ?? [];
    expect(cases.length).toBe(statements.length);
    for (const s of statements) expect(suite![4]).toContain(`name="${s.id}: `);
    expect((suite![4].match(/<failure /g) ?? []).length).toBe(Number(suite![2]));
    expect(Number(suite![2])).toBeGreaterThan(0);
  });

  it("HTML: one self-contained page listing every statement with its verdict", () => {
    const page = readFileSync(join(dir, "r.html"), "utf8");
    expect(page).toMatch(/^<!doctype html>/);
    expect(page).not.toMatch(/<(script|link|img)[^>]+(src|href)=/i);
    const rows = page.match(/<tr class="(passed|failed|not_tested|excused)"/g) ?? [];
    expect(rows.length).toBe(statements.length);
    for (const s of statements) expect(page).toContain(`<code>${s.id}</code>`);
    expect(page).toContain("curl -sS -i");
    expect(page).toContain("was not run (--only pagination,chats,auth)");
  });

  it("says when a property ran fewer cases than asked: its time limit cut it short, named on the summary line", async () => {
    const args = ["--import", "tsx", "conformance/cli.ts", "--base-url", server.baseUrl, "--api-key", ACME, "--seed", "5", "--runs", "500", "--property-time-ms", "1", "--only", "pagination", "--report", "json", join(dir, "cut.json")];
    const cut = await new Promise<{ stdout: string }>((resolve) => {
      const child = spawn(process.execPath, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      child.stdout.on("data", (c) => (stdout += c));
      child.on("close", () => resolve({ stdout }));
    });
    expect(cut.stdout).toMatch(/^WARNING: \d+ propert(y|ies) ran fewer cases than asked:$/m);
    expect(cut.stdout).toMatch(/ran \d+ of \d+ cases within its 0\.001 s limit \(--property-time-ms raises it\)/);
    expect(cut.stdout).toMatch(/cut short by their time limit \(--property-time-ms, --model-budget-ms\)$/m);
    const report = JSON.parse(readFileSync(join(dir, "cut.json"), "utf8"));
    const properties = report.results[0].properties;
    expect(properties.length).toBeGreaterThan(0);
    for (const p of properties) expect(p.asked).toBeGreaterThanOrEqual(125);
    expect(properties.filter((p: any) => p.cut && p.ran < p.asked).length).toBe(report.cutShort.length);
  }, 60_000);

  it("a target that cannot be reached: exit 2 with what to fix, no stack trace and no report of checks that never ran", async () => {
    // A port just freed: nothing listens there.
    const port = await new Promise<number>((ok) => { const srv = createServer().listen(0, "127.0.0.1", () => { const p = (srv.address() as { port: number }).port; srv.close(() => ok(p)); }); });
    for (const base of [`http://127.0.0.1:${port}/api`, "http://no-such-host.invalid/api"]) {
      const r = spawnSync(process.execPath, ["--import", "tsx", "conformance/cli.ts", "--base-url", base, "--api-key", ACME, "--sim", "--report", "json", join(dir, "unreachable.json")], { cwd: root, encoding: "utf8" });
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`^cannot reach the target at ${base.replace(/[.]/g, "\\.")} \\((ECONNREFUSED|ENOTFOUND|EAI_AGAIN)\\): is it running, and is --base-url its base URL, the part before /v1\\?$`, "m"));
      expect(r.stderr).not.toMatch(/^\s+at /m);
      expect(existsSync(join(dir, "unreachable.json"))).toBe(false);
    }
  }, 60_000);
});
