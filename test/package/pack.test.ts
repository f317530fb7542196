// The package as a user outside this repository gets it: `npm pack`, install the tarball into a fresh project, then
// run each command (serve, mock, conformance) and each import (client, receiver, metrics, the OpenAPI documents)
// there, with plain Node, and type-check a consumer file with tsc in strict mode.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, root, waitUntilUp } from "../support/processes.ts";

const ACME = "svc_live_acme_0123456789abcdef0123456789abcdef";
const app = mkdtempSync(join(tmpdir(), "consumer-"));
const children: ChildProcess[] = [];
const npm = (args: string[], cwd: string) => execFileSync("npm", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" } });

beforeAll(() => {
  // prepack (the build) prints to stdout before npm's JSON.
  const out = npm(["pack", "--json", "--pack-destination", app], root);
  const packed = JSON.parse(out.slice(out.search(/^\[/m))) as Array<{ filename: string; files: Array<{ path: string }> }>;
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "consumer", version: "1.0.0", private: true, type: "module" }));
  npm(["install", "--prefer-offline", join(app, packed[0].filename)], app);
}, 300_000);
afterAll(() => children.forEach((c) => c.kill("SIGKILL")));

const bin = (name: string) => join(app, "node_modules/.bin", name);

function run(name: string, args: string[], env: Record<string, string> = {}): ChildProcess {
  const child = spawn(bin(name), args, { cwd: app, env: { ...process.env, LOG_LEVEL: "silent", ...env }, stdio: "ignore" });
  children.push(child);
  return child;
}

describe("the packed package, installed into a fresh project", () => {
  it("imports the client, the receiver, both metrics engines and the OpenAPI documents with plain Node", () => {
    const script = `
      import { createApiClient, signWebhookBody, verifyWebhookSignature, paginate } from "project-data-api-contract";
      import { webhookMiddleware } from "project-data-api-contract/receiver";
      import { computeMetric, compareVariants } from "project-data-api-contract/metrics";
      import { computeMetric as sqlMetric, metricSql } from "project-data-api-contract/metrics/sql";
      import api from "project-data-api-contract/api.json" with { type: "json" };
      import full from "project-data-api-contract/openapi.json" with { type: "json" };
      const data = { exposures: [{ user_id: "a", variant: "c", exposed_at: "2026-01-01T00:00:00Z" }], events: [{ user_id: "a", event: "e", timestamp: "2026-01-01T01:00:00Z" }] };
      const memory = computeMetric({ type: "conversion", event: "e" }, data);
      const sql = await sqlMetric({ type: "conversion", event: "e" }, data);
      const sig = signWebhookBody("{}", "k");
      console.log(JSON.stringify({
        client: typeof createApiClient(({ baseUrl: "http://127.0.0.1:1/api", apiKey: "${ACME}" })).GET, paginate: typeof paginate,
        verified: verifyWebhookSignature("{}", sig, "k").ok, middleware: typeof webhookMiddleware({ secrets: "k" }),
        memory: memory.variants.c.value, sql: sql.variants.c.value, compare: typeof compareVariants, sqlText: metricSql({ type: "conversion", event: "e" }, 0).variants.startsWith("WITH"),
        apiPaths: Object.keys(api.paths).some((p) => p.startsWith("/_sim")), fullPaths: Object.keys(full.paths).some((p) => p.startsWith("/_sim")),
      }));
      process.exit(0);
    `;
    writeFileSync(join(app, "imports.mjs"), script);
    const out = JSON.parse(execFileSync(process.execPath, ["imports.mjs"], { cwd: app, encoding: "utf8" }));
    expect(out).toEqual({ client: "function", paginate: "function", verified: true, middleware: "function", memory: 1, sql: 1, compare: "function", sqlText: true, apiPaths: false, fullPaths: true });
  }, 60_000);

  it("type-checks a consumer file against the package's declarations with tsc --strict", () => {
    writeFileSync(join(app, "consumer.ts"), `
      import { createApiClient, type components } from "project-data-api-contract";
      import { computeMetric, type MetricResult } from "project-data-api-contract/metrics";
      const client = createApiClient({ baseUrl: "https://service.example/api", apiKey: "svc_live_x" });
      export async function firstStudy(): Promise<components["schemas"]["StudySummary"] | undefined> {
        const { data } = await client.GET("/v1/studies", { params: { query: { limit: 1 } } });
        return data?.data[0];
      }
      export const r: MetricResult = computeMetric({ type: "retention", event: "purchase", threshold: 2, window_days: 7 }, { exposures: [], events: [] });
    `);
    writeFileSync(join(app, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, module: "NodeNext", moduleResolution: "NodeNext", target: "ES2022", noEmit: true, skipLibCheck: true, types: ["node"], typeRoots: [join(root, "node_modules/@types")] }, files: ["consumer.ts"] }));
    execFileSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], { cwd: app, encoding: "utf8" });
  }, 60_000);

  it("runs `serve`, and `conformance` against it", async () => {
    const port = await freePort();
    const server = run("serve", [], { PORT: String(port), WEBHOOK_RETRY_DELAYS_MS: "300,600,900", SIM_PROCESSING_MS: "50" });
    const base = `http://127.0.0.1:${port}/api`;
    await waitUntilUp(`${base}/v1/studies`, 60_000, server);
    expect((await fetch(`${base}/v1/studies`, { headers: { authorization: `Bearer ${ACME}` } })).status).toBe(200);
    const help = execFileSync(bin("conformance"), ["--help"], { cwd: app, encoding: "utf8" });
    expect(help).toContain("--level");
    const report = join(app, "report.json");
    execFileSync(bin("conformance"), ["--base-url", base, "--api-key", ACME, "--only", "schema,auth,deprecated", "--seed", "1", "--runs", "3", "--allow-untested", "--report", "json", report], { cwd: app, encoding: "utf8" });
    const r = JSON.parse(readFileSync(report, "utf8"));
    expect(r.results.map((x: { name: string; status: string }) => [x.name, x.status])).toEqual([["schema", "passed"], ["auth", "passed"], ["deprecated", "passed"]]);
    server.kill("SIGTERM");
  }, 120_000);

  it("runs `mock` under /api", async () => {
    const port = await freePort();
    const mock = run("mock", [], { MOCK_PORT: String(port), MOCK_QUIET: "1" });
    const url = `http://127.0.0.1:${port}/api/v1/studies`;
    await waitUntilUp(url, 60_000, mock);
    let status = 503;
    for (let i = 0; i < 100 && status === 503; i++) {
      status = (await fetch(url, { headers: { authorization: `Bearer ${ACME}` } })).status;
      if (status === 503) await new Promise((r) => setTimeout(r, 200));
    }
    expect(status).toBe(200);
    mock.kill("SIGTERM");
  }, 120_000);
});
