// The pack-and-install matrix: every workspace packed as it would be published, each tarball installed ALONE into an
// empty project (no workspace links, no other local package), then judged as its user would judge it:
// - the installed size and package count against the package's budget (the table is written into README.md);
// - a consumer file from the README passes `tsc --strict` with `skipLibCheck: false`, under `module: nodenext` and
//   under `moduleResolution: bundler`;
// - the consumer runs under Node as an ES module;
// - the package's commands run (`npx api-sandbox`, `npx api-mock`, `npx api-conformance`, `npx api-metrics`);
// - the README's client-team loop runs as written from the installed sandbox;
// - SIGTERM to `npx` itself, or Ctrl-C to its group, stops every process it started within 2 s.
import { execFile, execFileSync, spawn, type ChildProcess } from "node:child_process";
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, groupGone, groupMembers, root, waitUntilUp } from "../support/processes.ts";
import { verifyWebhookSignature } from "../../receiver/src/index.ts";
import { createServer, type IncomingMessage } from "node:http";
import { CONSUMERS } from "./consumers.ts";
import { sleep } from "../support/wait.ts";

const run = promisify(execFile);
const ACME = "svc_live_acme_0123456789abcdef0123456789abcdef";
const MB = 1024 * 1024;
const base = mkdtempSync(join(tmpdir(), "pack-matrix-"));
const tarballs = join(base, "tarballs");
const children: ChildProcess[] = [];
const npmEnv = { ...process.env, npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false", npm_config_loglevel: "error" };
const tsc = join(root, "node_modules/typescript/bin/tsc");

interface Budget {
  /** Packages installed, the package itself included. */
  maxPackages?: number;
  maxBytes?: number;
  /** Packages that must not be installed. */
  forbidden?: string[];
  /** What the budget says, for the README table. */
  text: string;
}

/** Folder -> package name and budget (issue #18's figures, plus what each product must never pull in). */
const PACKAGES: Record<string, { name: string; budget: Budget; installFlags?: string[] }> = {
  generated: { name: "@service/api-contract", budget: { maxPackages: 1, text: "no dependencies" } },
  sdk: { name: "@service/api-client", budget: { maxPackages: 3, maxBytes: 1 * MB, text: "at most 3 packages, under 1 MB" } },
  receiver: { name: "@service/webhook-receiver", budget: { maxPackages: 1, text: "no dependencies" } },
  metrics: { name: "@service/success-metrics", budget: { maxBytes: 5 * MB, forbidden: ["@duckdb/node-api"], text: "under 5 MB without DuckDB" } },
  mobile: { name: "@service/interviews-react-native", budget: { maxPackages: 1, text: "nothing beyond its peers" }, installFlags: ["--omit=peer"] },
  conformance: { name: "@service/api-conformance", budget: { forbidden: ["@stoplight/prism-cli", "@duckdb/node-api", "express", "react"], text: "no Prism, DuckDB, Express or React" } },
  server: { name: "@service/api-sandbox", budget: { forbidden: ["@duckdb/node-api", "react", "tsx", "typescript"], text: "no DuckDB, React or TypeScript tooling" } },
};
const FOLDERS = Object.keys(PACKAGES);
const project = (folder: string) => join(base, folder);
const measured: Record<string, { packages: string[]; bytes: number; files: string[] }> = {};

/** Every installed package (nested node_modules included) and the bytes of its files. */
function inventory(dir: string): { packages: string[]; bytes: number } {
  const packages: string[] = [];
  let bytes = 0;
  const sizeOf = (d: string): number => readdirSync(d).reduce((sum, f) => {
    const st = lstatSync(join(d, f));
    return sum + (st.isDirectory() ? sizeOf(join(d, f)) : st.isFile() ? st.size : 0);
  }, 0);
  const scan = (nm: string) => {
    for (const entry of readdirSync(nm)) {
      if (entry.startsWith(".")) continue;
      const dirs = entry.startsWith("@") ? readdirSync(join(nm, entry)).map((s) => `${entry}/${s}`) : [entry];
      for (const name of dirs) {
        packages.push(name);
        bytes += sizeOf(join(nm, name));
      }
    }
  };
  scan(join(dir, "node_modules"));
  return { packages, bytes };
}

function start(cwd: string, command: string, args: string[], env: Record<string, string>): ChildProcess {
  const child = spawn("npx", ["--no-install", command, ...args], { cwd, env: { ...npmEnv, LOG_LEVEL: "silent", ...env }, stdio: ["ignore", "pipe", "pipe"], detached: true });
  children.push(child);
  return child;
}

let sandboxBase = "";

beforeAll(async () => {
  mkdirSync(tarballs);
  // Packing runs each package's prepack (its build), as `npm publish` would.
  const out = execFileSync("npm", ["pack", "--workspaces", "--json", "--pack-destination", tarballs], { cwd: root, encoding: "utf8", env: npmEnv, stdio: ["ignore", "pipe", "pipe"] });
  const packed = JSON.parse(out.slice(out.search(/^\[/m))) as Array<{ name: string; filename: string; files: Array<{ path: string }> }>;
  await Promise.all(FOLDERS.map(async (folder) => {
    const { name, installFlags = [] } = PACKAGES[folder];
    const entry = packed.find((p) => p.name === name);
    if (!entry) throw new Error(`${name} was not packed`);
    mkdirSync(project(folder));
    writeFileSync(join(project(folder), "package.json"), JSON.stringify({ name: `consumer-of-${folder}`, version: "1.0.0", private: true, type: "module" }));
    await run("npm", ["install", "--prefer-offline", "--no-package-lock", ...installFlags, join(tarballs, entry.filename)], { cwd: project(folder), env: npmEnv });
    measured[folder] = { ...inventory(project(folder)), files: entry.files.map((f) => f.path) };
  }));
}, 600_000);

afterAll(() => {
  for (const c of children) {
    try {
      process.kill(-c.pid!, "SIGKILL");
    } catch {
      /* already gone */
    }
  }
});

const kb = (n: number) => (n >= MB ? `${(n / MB).toFixed(1)} MB` : `${Math.round(n / 1024)} KB`);

describe("each package, installed alone into an empty project", () => {
  it("stays within its budget of installed packages and bytes (table written into README.md)", () => {
    const rows = FOLDERS.map((folder) => {
      const { name, budget } = PACKAGES[folder];
      const m = measured[folder];
      const ok = (budget.maxPackages === undefined || m.packages.length <= budget.maxPackages)
        && (budget.maxBytes === undefined || m.bytes < budget.maxBytes)
        && !(budget.forbidden ?? []).some((f) => m.packages.includes(f));
      return { folder, name, budget, m, ok };
    });
    const table = [
      "| package | folder | installed packages | installed size | budget | within |",
      "|---|---|---|---|---|---|",
      ...rows.map((r) => `| \`${r.name}\` | \`${r.folder}/\` | ${r.m.packages.length} | ${kb(r.m.bytes)} | ${r.budget.text} | ${r.ok ? "yes" : "**no**"} |`),
    ].join("\n");
    const readme = join(root, "README.md");
    const text = readFileSync(readme, "utf8");
    const marked = /(<!-- pack-matrix:start[^>]*-->)[\s\S]*?(<!-- pack-matrix:end -->)/;
    expect(text, "README.md must hold the pack-matrix markers").toMatch(marked);
    writeFileSync(readme, text.replace(marked, `$1\n${table}\n$2`));
    for (const r of rows) {
      if (r.budget.maxPackages !== undefined) expect(r.m.packages.length, `${r.name} installs ${r.m.packages.join(", ")}`).toBeLessThanOrEqual(r.budget.maxPackages);
      if (r.budget.maxBytes !== undefined) expect(r.m.bytes, `${r.name}: installed bytes`).toBeLessThan(r.budget.maxBytes);
      for (const f of r.budget.forbidden ?? []) expect(r.m.packages, `${r.name} must not install ${f}`).not.toContain(f);
    }
  });

  it("ships built output, its README and CHANGELOG, and nothing of the repository's sources or tests", () => {
    for (const folder of FOLDERS) {
      const files = measured[folder].files;
      expect(files, folder).toEqual(expect.arrayContaining(["package.json", "README.md", "CHANGELOG.md"]));
      expect(files.filter((f) => /(^|\/)(test|src)\//.test(f) || f.endsWith(".test.ts")), folder).toEqual([]);
      const manifest = JSON.parse(readFileSync(join(project(folder), "node_modules", PACKAGES[folder].name, "package.json"), "utf8"));
      // Only registry packages at run time: never another workspace, which an outside user could not install.
      for (const dep of Object.keys(manifest.dependencies ?? {})) expect(dep.startsWith("@service/"), `${folder} depends on ${dep}`).toBe(false);
    }
  });
});

describe("consumers type-check with tsc --strict and skipLibCheck: false", () => {
  const settings = {
    nodenext: { module: "NodeNext", moduleResolution: "NodeNext" },
    bundler: { module: "ESNext", moduleResolution: "Bundler" },
  };
  beforeAll(async () => {
    // What their users have beside them: an app's peers for the mobile library; Express and its types for the
    // receiver's middleware (installed after the budget was measured).
    const rn = JSON.parse(readFileSync(join(root, "mobile/package.json"), "utf8")).devDependencies;
    await Promise.all([
      run("npm", ["install", "--prefer-offline", "--no-package-lock", "react@19.3.1", `react-native@${rn["react-native"]}`, `react-native-webview@${rn["react-native-webview"]}`, `react-native-safe-area-context@${rn["react-native-safe-area-context"]}`, "@types/react@19.3.0"], { cwd: project("mobile"), env: npmEnv }),
      run("npm", ["install", "--prefer-offline", "--no-package-lock", "express@5.3.0", "@types/express@5.0.6"], { cwd: project("receiver"), env: npmEnv }),
    ]);
  }, 600_000);

  for (const folder of Object.keys(CONSUMERS)) {
    for (const [label, resolution] of Object.entries(settings)) {
      it(`${PACKAGES[folder].name} under ${label}`, () => {
        const c = CONSUMERS[folder];
        const dir = project(folder);
        writeFileSync(join(dir, "consumer.ts" + (c.jsx ? "x" : "")), c.types);
        const config = { compilerOptions: { strict: true, skipLibCheck: false, noEmit: true, target: "ES2022", ...resolution, lib: c.lib, types: [], ...(c.jsx ? { jsx: "react-jsx" } : {}) }, files: ["consumer.ts" + (c.jsx ? "x" : "")] };
        writeFileSync(join(dir, `tsconfig.${label}.json`), JSON.stringify(config));
        try {
          execFileSync(process.execPath, [tsc, "-p", `tsconfig.${label}.json`], { cwd: dir, encoding: "utf8" });
        } catch (err) {
          throw new Error(`tsc failed for ${folder} under ${label}:\n${(err as { stdout?: string }).stdout}`);
        }
      }, 120_000);
    }
  }

  it("@service/webhook-receiver's middleware fits Express's own types (with @types/express installed)", () => {
    const dir = project("receiver");
    writeFileSync(join(dir, "express-consumer.ts"), `
      import express from "express";
      import { verifiedWebhook, webhookMiddleware } from "@service/webhook-receiver";
      const app = express();
      app.post("/hook", webhookMiddleware({ secrets: "k" }), (req, res) => { res.status(200).json({ id: verifiedWebhook(req).payload.data.interview_id }); });
      app.post("/raw", express.raw({ type: "application/json" }), webhookMiddleware({ secrets: "k" }), (_req, res) => { res.sendStatus(204); });
    `);
    writeFileSync(join(dir, "tsconfig.express.json"), JSON.stringify({ compilerOptions: { strict: true, skipLibCheck: false, noEmit: true, target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", types: ["node"] }, files: ["express-consumer.ts"] }));
    try {
      execFileSync(process.execPath, [tsc, "-p", "tsconfig.express.json"], { cwd: dir, encoding: "utf8" });
    } catch (err) {
      throw new Error(`tsc failed:\n${(err as { stdout?: string }).stdout}`);
    }
  }, 120_000);
});

describe("consumers run under Node, and the commands run from fresh installs", () => {
  beforeAll(async () => {
    const port = await freePort();
    const sandbox = start(project("server"), "api-sandbox", ["--port", String(port)], { SIM_PROCESSING_MS: "50", WEBHOOK_RETRY_DELAYS_MS: "300,600,900" });
    sandboxBase = `http://127.0.0.1:${port}/api`;
    await waitUntilUp(`${sandboxBase}/v1/studies`, 60_000, sandbox);
  }, 90_000);

  for (const folder of Object.keys(CONSUMERS)) {
    it(`${PACKAGES[folder].name}: the README's snippet runs as an ES module`, () => {
      const c = CONSUMERS[folder];
      writeFileSync(join(project(folder), "consumer.mjs"), c.run!);
      const out = execFileSync(process.execPath, ["consumer.mjs"], { cwd: project(folder), encoding: "utf8", env: { ...process.env, BASE_URL: sandboxBase } });
      expect(JSON.parse(out.trim().split("\n").pop()!)).toEqual(c.expected);
    }, 60_000);
  }

  it("npx api-sandbox answers the API with the fixture keys", async () => {
    const res = await fetch(`${sandboxBase}/v1/studies?limit=2`, { headers: { authorization: `Bearer ${ACME}` } });
    expect(res.status).toBe(200);
    expect((await res.json()).data).toHaveLength(2);
    const help = execFileSync("npx", ["--no-install", "api-sandbox", "--help"], { cwd: project("server"), encoding: "utf8", env: npmEnv });
    expect(help).toContain("start");
  });

  it("npx api-conformance runs against the sandbox from its own install", () => {
    const report = join(project("conformance"), "report.json");
    execFileSync("npx", ["--no-install", "api-conformance", "--base-url", sandboxBase, "--api-key", ACME, "--only", "schema,auth,deprecated", "--seed", "1", "--runs", "3", "--allow-untested", "--report", "json", report], { cwd: project("conformance"), encoding: "utf8", env: npmEnv });
    const r = JSON.parse(readFileSync(report, "utf8"));
    expect(r.results.map((x: { name: string; status: string }) => [x.name, x.status])).toEqual([["schema", "passed"], ["auth", "passed"], ["deprecated", "passed"]]);
  }, 120_000);

  it("api-conformance proxy judges traffic from its own install (its judge worker found beside the bundle)", async () => {
    const report = join(project("conformance"), "proxy.json");
    // The installed bin itself, so Ctrl-C reaches the proxy (npx would stand between).
    const child = spawn(join(project("conformance"), "node_modules/.bin/api-conformance"), ["proxy", "--target", sandboxBase, "--port", "0", "--report", "json", report], { cwd: project("conformance"), env: npmEnv, stdio: ["ignore", "pipe", "pipe"] });
    let err = "";
    child.stderr.on("data", (c) => (err += c));
    try {
      for (let i = 0; i < 400 && !/proxy: (http:\/\/\S+) ->/.test(err); i++) await new Promise((r) => setTimeout(r, 50));
      const url = /proxy: (http:\/\/\S+) ->/.exec(err)?.[1];
      expect(url, err).toBeDefined();
      expect((await fetch(`${url}/v1/studies?limit=2`, { headers: { authorization: `Bearer ${ACME}` } })).status).toBe(200);
      expect((await fetch(`${url}/v1/chats?limit=0`, { headers: { authorization: `Bearer ${ACME}` } })).status).toBe(400);
      child.kill("SIGINT");
      expect(await new Promise((r) => child.once("exit", r)), err).toBe(0);
      const r = JSON.parse(readFileSync(report, "utf8"));
      expect([r.kind, r.requests]).toEqual(["proxy", 2]);
      expect(r.results.map((x: { name: string; status: string }) => [x.name, x.status])).toEqual([["implementation", "passed"], ["client", "failed"]]);
      expect(err).toMatch(/CLIENT \[contract\] client.invalid-request: #2 GET \/v1\/chats: limit/);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  }, 60_000);

  it("npx api-conformance plants through a JavaScript --states module, and says how to load a TypeScript one", () => {
    const dir = project("conformance");
    // A module over the sandbox's /_sim that offers studies only: what needs the rest is NOT TESTED, naming it. It
    // imports the states entry by the package's name, from the installed tarball.
    writeFileSync(join(dir, "states.mjs"), [
      'import { defineStates } from "@service/api-conformance/states";',
      "export default defineStates((env) => ({",
      "  capabilities: () => ['plant-study'],",
      "  async plantStudy(input, project) {",
      "    const res = await fetch(env.baseUrl + '/_sim/studies', { method: 'POST', headers: { authorization: 'Bearer ' + project.apiKey, 'content-type': 'application/json' }, body: JSON.stringify(input) });",
      "    return res.json();",
      "  },",
      "}));",
    ].join("\n"));
    const report = join(dir, "states-report.json");
    execFileSync("npx", ["--no-install", "api-conformance", "--base-url", sandboxBase, "--api-key", ACME, "--states", "states.mjs", "--only", "windows", "--seed", "1", "--allow-untested", "--report", "json", report], { cwd: dir, encoding: "utf8", env: npmEnv });
    const r = JSON.parse(readFileSync(report, "utf8"));
    expect(r.results.map((x: { name: string; status: string }) => [x.name, x.status])).toEqual([["windows", "passed"]]);
    expect(r.untested.join("\n")).toMatch(/capability (plant-interview|created-at)/);
    expect(r.created.filter((c: { kind: string }) => c.kind === "study").length).toBeGreaterThan(2);
    writeFileSync(join(dir, "states.ts"), "export default () => ({ plantStudy: async (input: { name?: string }) => ({ id: String(input.name) }) });\n");
    let failure: { status?: number; stderr?: string } = {};
    try {
      execFileSync("npx", ["--no-install", "api-conformance", "--base-url", sandboxBase, "--api-key", ACME, "--states", "states.ts", "--only", "windows"], { cwd: dir, encoding: "utf8", env: npmEnv, stdio: ["ignore", "pipe", "pipe"] });
    } catch (err) {
      failure = err as typeof failure;
    }
    // Node 20 has no type stripping: without tsx installed, the suite says how to load the module (exit 2).
    if (!(process.features as { typescript?: unknown }).typescript) {
      expect(failure.status).toBe(2);
      expect(String(failure.stderr)).toContain("install tsx");
    }
  }, 120_000);

  it("npx api-metrics computes a metric from CSV files, and names the missing DuckDB for --engine sql", () => {
    const dir = project("metrics");
    writeFileSync(join(dir, "exposures.csv"), "user_id,variant,exposed_at\na,control,2026-01-01T00:00:00Z\nb,control,2026-01-01T00:00:00Z\n");
    writeFileSync(join(dir, "events.csv"), "user_id,event,timestamp\na,purchase,2026-01-02T00:00:00Z\n");
    const out = execFileSync("npx", ["--no-install", "api-metrics", "--definition", '{"type":"conversion","event":"purchase"}', "--exposures", "exposures.csv", "--events", "events.csv", "--as-of", "2026-02-01T00:00:00Z"], { cwd: dir, encoding: "utf8", env: npmEnv });
    expect(JSON.parse(out).result.variants.control.value).toBe(0.5);
    let stderr = "";
    try {
      execFileSync("npx", ["--no-install", "api-metrics", "--engine", "sql", "--definition", '{"type":"conversion","event":"purchase"}', "--exposures", "exposures.csv", "--events", "events.csv"], { cwd: dir, encoding: "utf8", env: npmEnv, stdio: ["ignore", "pipe", "pipe"] });
    } catch (err) {
      stderr = String((err as { stderr?: string }).stderr);
    }
    expect(stderr).toContain("npm install @duckdb/node-api");
  }, 60_000);

  it("the README's client-team loop runs as written, against the installed sandbox and a receiver that verifies", async () => {
    const readme = readFileSync(join(root, "README.md"), "utf8");
    const section = readme.slice(readme.indexOf("### A client team's daily loop"));
    const block = /```sh\n([\s\S]*?)```/.exec(section)![1];
    // One command per line; the comment after `#` is the README's explanation.
    const lines = block.split("\n").map((l) => l.replace(/\s+#.*$/, "").trim()).filter(Boolean);
    expect(lines.map((l) => l.split(" ").slice(0, 3).join(" "))).toEqual(["npx api-sandbox listen", "npx api-sandbox trigger", "npx api-sandbox deliveries", "npx api-sandbox deliveries", "npx api-sandbox faults"]);
    expect(lines.length, "the whole loop in five commands or fewer").toBeLessThanOrEqual(5);

    // "Your endpoint": a receiver that verifies with the listener secret, as the user's code would.
    const dir = project("server");
    const config = mkdtempSync(join(base, "config-"));
    const env = { ...npmEnv, SANDBOX_BASE_URL: sandboxBase, SANDBOX_API_KEY: ACME, API_SANDBOX_CONFIG_DIR: config };
    const secret = execFileSync("npx", ["api-sandbox", "listen", "--print-secret"], { cwd: dir, encoding: "utf8", env }).trim();
    const got: Array<{ body: Buffer; verified: boolean }> = [];
    const receiver = createServer((req: IncomingMessage, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const body = Buffer.concat(chunks);
        got.push({ body, verified: verifyWebhookSignature(body, req.headers["x-webhook-signature"] as string, secret).ok });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
    const endpoint = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/webhooks`;
    // Each line through bash, as typed; a failure shows what the command printed.
    // Each line through bash, as typed (asynchronously: the receiver answers from this process); a failure shows
    // what the command printed.
    const sh = async (line: string, extra: Record<string, string> = {}) => {
      const r: { code?: number; stdout?: string; stderr?: string } = await run("bash", ["-c", line.replace("http://localhost:3000/webhooks", endpoint)], { cwd: dir, encoding: "utf8", env: { ...env, ...extra } }).catch((err) => err);
      expect(r.code ?? 0, `${line}\n${r.stdout}\n${r.stderr}`).toBe(0);
      return r.stdout as string;
    };
    try {
      const listener = spawn("bash", ["-c", lines[0].replace("http://localhost:3000/webhooks", endpoint)], { cwd: dir, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
      children.push(listener);
      let err = "";
      listener.stderr!.on("data", (d) => (err += d));
      for (const t = Date.now(); !err.includes("listening on") && Date.now() - t < 30_000; ) await sleep(100);
      expect(err).toContain(`Your listener signing secret is ${secret}`);

      const trigger = await sh(lines[1]);
      expect(trigger).toMatch(/forwarded by a listener to .* HTTP 200/);
      expect(got).toHaveLength(1);
      expect(got[0].verified).toBe(true);
      expect(JSON.parse(got[0].body.toString("utf8")).data.reference_id).toBe("user_42");

      const listed = await sh(lines[2]);
      const interview = JSON.parse(got[0].body.toString("utf8")).data.interview_id;
      const id = listed.split("\n").find((l) => l.includes(interview))!.slice(0, 36);
      const resent = await sh(lines[3], { DELIVERY_ID: id });
      expect(resent).toMatch(/HTTP 200/);
      expect(got).toHaveLength(2);
      expect(got[1].body.equals(got[0].body) && got[1].verified).toBe(true);

      await sh(lines[4]);
      const faults = await (await fetch(`${sandboxBase}/_sim/faults`, { headers: { authorization: `Bearer ${ACME}` } })).json();
      expect(faults).toMatchObject({ rate: 0.1, kinds: ["500", "503"], latency_ms: 200, jitter_ms: 300 });
      process.kill(-listener.pid!, "SIGINT");
      expect(await groupGone(listener.pid!)).toBeLessThan(2_000);
    } finally {
      await fetch(`${sandboxBase}/_sim/faults`, { method: "DELETE", headers: { authorization: `Bearer ${ACME}` } });
      receiver.close();
    }
  }, 120_000);

  // The process the user started is npx: its signal must reach the sandbox (and the mock's Prism) too.
  for (const [command, signal] of [["api-sandbox", "SIGTERM"], ["api-sandbox", "SIGINT"], ["api-mock", "SIGTERM"], ["api-mock", "SIGINT"]] as const) {
    const how = signal === "SIGTERM" ? "SIGTERM to the npx process alone" : "Ctrl-C to its process group";
    it(`npx ${command}: ${how} stops every process it started within 2 s${command === "api-sandbox" ? ", with a listener connected" : ""}`, async () => {
      const port = await freePort();
      const child = start(project("server"), command, command === "api-sandbox" ? ["--port", String(port)] : [], { MOCK_PORT: String(port), MOCK_QUIET: "1" });
      const api = `http://127.0.0.1:${port}/api`;
      await waitUntilUp(`${api}/v1/studies`, 60_000, child);
      if (command === "api-sandbox") {
        start(project("server"), "api-sandbox", ["listen", "--forward-to", "http://127.0.0.1:9/hook", "--base-url", api], { API_SANDBOX_CONFIG_DIR: mkdtempSync(join(base, "config-")) });
        let listeners = 0;
        for (const t = Date.now(); listeners < 1 && Date.now() - t < 30_000; await sleep(100)) {
          listeners = (await (await fetch(`${api}/_sim/listener`, { headers: { authorization: `Bearer ${ACME}` } })).json()).listeners;
        }
        expect(listeners).toBe(1);
      }
      expect(groupMembers(child.pid!).length, "npx and what it started").toBeGreaterThanOrEqual(2);
      if (signal === "SIGTERM") child.kill("SIGTERM");
      else process.kill(-child.pid!, "SIGINT");
      const took = await groupGone(child.pid!);
      expect(groupMembers(child.pid!), "processes still running").toEqual([]);
      expect(took).toBeLessThan(2_000);
    }, 120_000);
  }

  it("npx api-mock serves the contract's examples under /api", async () => {
    const port = await freePort();
    const mock = start(project("server"), "api-mock", [], { MOCK_PORT: String(port), MOCK_QUIET: "1" });
    const url = `http://127.0.0.1:${port}/api/v1/studies`;
    await waitUntilUp(url, 60_000, mock);
    let status = 503;
    for (let i = 0; i < 100 && status === 503; i++) {
      status = (await fetch(url, { headers: { authorization: `Bearer ${ACME}` } })).status;
      if (status === 503) await sleep(200);
    }
    expect(status).toBe(200);
  }, 120_000);
});
