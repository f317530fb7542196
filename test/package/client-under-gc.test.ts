// The typed client's timeout and abort from its packed tarball, installed alone, in processes that collect garbage
// every 50 ms, on each Node line the package supports (engines: 20.19+, 22.12+): the machine's Node 20 and Node
// 22, 24 and 26 from the npm registry's official builds (node-<platform>-<arch>). The 30-second default timeout is
// waited for too: before the fix it never fired on Node 20 (issue #41).
import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { root } from "../support/processes.ts";

const run = promisify(execFile);
const npmEnv = { ...process.env, npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false", npm_config_loglevel: "error" };
/** The newest release of each supported line other than the machine's, pinned. */
const OTHER_NODES = ["22.23.3", "24.21.0", "26.12.1"];
const base = mkdtempSync(join(tmpdir(), "client-gc-"));
const app = join(base, "app");
const nodes: Record<string, string> = { [process.versions.node]: process.execPath };

beforeAll(async () => {
  mkdirSync(app);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "long-running-app", version: "1.0.0", private: true, type: "module" }));
  const packed = JSON.parse((await run("npm", ["pack", "-w", "sdk", "--json", "--pack-destination", base], { cwd: root, env: npmEnv })).stdout.replace(/^[^[]*/s, ""));
  const installs: Array<Promise<unknown>> = [run("npm", ["install", "--prefer-offline", "--no-package-lock", join(base, packed[0].filename)], { cwd: app, env: npmEnv })];
  for (const version of OTHER_NODES) {
    const dir = join(base, `node-${version}`);
    mkdirSync(dir);
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: `node-${version}`, version: "1.0.0", private: true }));
    installs.push(run("npm", ["install", "--prefer-offline", "--no-package-lock", `node-${process.platform}-${process.arch}@${version}`], { cwd: dir, env: npmEnv }).then(() => {
      nodes[version] = join(dir, "node_modules", `node-${process.platform}-${process.arch}`, "bin", "node");
    }));
  }
  await Promise.all(installs);
  copyFileSync(join(root, "sdk/test/support/client-under-gc.mjs"), join(app, "client-under-gc.mjs"));
  expect(readdirSync(join(app, "node_modules/@service"))).toEqual(["api-client"]);
}, 300_000);

describe("the packed client under forced garbage collection", () => {
  it("times out (default and set), times out a retried attempt and a stalled body, and aborts, on every Node line", async () => {
    const outs = await Promise.all(Object.entries(nodes).map(async ([version, node]) => {
      const { stdout } = await run(node, ["--expose-gc", "client-under-gc.mjs", "--default"], { cwd: app, timeout: 90_000 });
      return { version, ...JSON.parse(stdout) };
    }));
    expect(outs.map((o) => o.node.slice(1).split(".")[0]).sort()).toEqual(["20", "22", "24", "26"]);
    for (const { node, results } of outs) {
      const at = (name: string) => `${node}: ${name} ${JSON.stringify(results[name])}`;
      expect(results.timeout.outcome, at("timeout")).toBe("ApiTimeoutError");
      expect(results.timeout.ms, at("timeout")).toBeGreaterThanOrEqual(1_400);
      expect(results.timeout.ms, at("timeout")).toBeLessThan(5_000);
      expect(results.retriedTimeout, at("retriedTimeout")).toMatchObject({ outcome: "ApiTimeoutError", attempts: 2 });
      expect(results.stalledBody.outcome, at("stalledBody")).toBe("ApiTimeoutError");
      expect(results.callerAbort.outcome, at("callerAbort")).toBe("TimeoutError");
      expect(results.defaultTimeout.outcome, at("defaultTimeout")).toBe("ApiTimeoutError");
      expect(results.defaultTimeout.ms, at("defaultTimeout")).toBeGreaterThanOrEqual(29_900);
      expect(results.defaultTimeout.ms, at("defaultTimeout")).toBeLessThan(40_000);
    }
  }, 120_000);
});
