// A states module written as plain JavaScript (.mjs) in a folder outside the repository, importing the suite's states
// entry by its package name, is loaded by the suite run from a checkout (`npm run conformance`, under tsx, where that
// entry is TypeScript) and plants through it.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startServer, type RunningServer } from "../../server/src/testing.ts";
import { root } from "../support/processes.ts";
import { ACME } from "./broken/variants.ts";

let server: RunningServer;
const dir = mkdtempSync(join(tmpdir(), "states-mjs-"));
beforeAll(async () => void (server = await startServer({})));
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

it("loads a .mjs states module outside the repository that imports @service/api-conformance/states, and plants through it", async () => {
  writeFileSync(join(dir, "states.mjs"), [
    'import { defineStates, StateRefused } from "@service/api-conformance/states";',
    "export default defineStates((env) => ({",
    "  capabilities: () => ['plant-study'],",
    "  async plantStudy(input, project) {",
    "    const res = await fetch(env.baseUrl + '/_sim/studies', { method: 'POST', headers: { authorization: 'Bearer ' + project.apiKey, 'content-type': 'application/json' }, body: JSON.stringify(input) });",
    "    if (!res.ok) throw new StateRefused('invalid', 'refused: ' + res.status);",
    "    return res.json();",
    "  },",
    "}));",
  ].join("\n"));
  const report = join(dir, "report.json");
  const run = await promisify(execFile)(process.execPath, ["--import", "tsx", "conformance/cli.ts", "--base-url", server.baseUrl, "--api-key", ACME, "--states", join(dir, "states.mjs"), "--only", "windows", "--seed", "1", "--allow-untested", "--report", "json", report], { cwd: root })
    .catch((err) => err as { code: number; stdout: string; stderr: string });
  expect((run as { code?: number }).code ?? 0, (run as { stderr: string }).stderr).toBe(0);
  const r = JSON.parse(readFileSync(report, "utf8"));
  expect(r.states.source).toContain("states.mjs");
  expect(r.created.filter((c: { kind: string }) => c.kind === "study").length).toBeGreaterThan(0);
}, 60_000);
