/**
 * The suite as an implementer runs it: `npm run conformance` with no budget or time flag, through
 * conformance/examples/foreign-states.ts, against ../shared/foreign (or a copy of it) at its own timings (the seed's
 * retry schedule of 10 s, 1 min and 5 min, its 10 s receiver timeout, its own processing time). Only what connects the
 * two is given: the keys, the states module, and the HTTPS receiver the server is told to trust. Shared by
 * foreign-default.test.ts (the server as it is) and foreign-allowed.test.ts (a copy making other choices the seed
 * allows).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect } from "vitest";
import type { Report } from "../../../conformance/src/run.ts";
import { FOREIGN, FOREIGN_SERVER, startForeign } from "../../support/foreign.ts";
import { root } from "../../support/processes.ts";

/**
 * Runs the suite with the defaults against `server` and asserts it exits 0: no failure, nothing NOT TESTED, every
 * class of the covering phase reached, the model's 20 sequences, the whole retry schedule. Returns the report.
 */
export async function expectDefaultRunPasses(server = FOREIGN_SERVER): Promise<Report> {
  const certDir = mkdtempSync(join(tmpdir(), "foreign-default-"));
  const foreign = await startForeign({ WEBHOOK_CA_FILE: join(certDir, "ca.pem") }, server);
  try {
    const report = join(certDir, "report.json");
    const args = [
      "--import", "tsx", "conformance/cli.ts", "--base-url", foreign.baseUrl, "--api-key", FOREIGN.acme, "--other-key", FOREIGN.globex, "--public-key", FOREIGN.publicKey,
      "--receiver", "https", "--receiver-cert-dir", certDir, "--states", "conformance/examples/foreign-states.ts", "--level", "seed", "--report", "json", report,
    ];
    const run = await promisify(execFile)(process.execPath, args, { cwd: root, maxBuffer: 64 << 20 }).catch((err) => err as { code: number; stdout: string; stderr: string });
    const result = JSON.parse(readFileSync(report, "utf8")) as Report;
    const said = `seed ${result.seed}\n${(run as { stdout: string }).stdout.slice(-4000)}`;
    expect(result.results.flatMap((r) => r.failures.map((f) => `${r.name}: ${f.rule}: ${f.message}`)), said).toEqual([]);
    expect(result.untested, said).toEqual([]);
    expect(result.exitCode, said).toBe(0);
    expect((run as { code?: number }).code ?? 0).toBe(0);
    const cover = result.results.find((r) => r.name === "cover")!;
    expect(cover.classes!.filter((c) => !c.reached), said).toEqual([]);
    expect(cover.classes!.length).toBeGreaterThan(60);
    const model = result.results.find((r) => r.name === "model")!;
    expect(model.properties.find((p) => p.label === "model-based run")!.ran, said).toBeGreaterThanOrEqual(20);
    const retries = result.results.find((r) => r.name === "retries")!;
    expect(retries.rules.map((x) => x.id)).toEqual(expect.arrayContaining(["webhooks.retries", "webhooks.retry-count", "webhooks.stop-on-2xx"]));
    // It makes its releases' URLs itself, and has no fault injection.
    expect(result.states.capabilities.filter((c) => !c.offered).map((c) => c.capability)).toEqual(["release-url", "faults"]);
    expect(result.statements.filter((s) => s.verdict === "failed")).toEqual([]);
    return result;
  } finally {
    await foreign.close();
    rmSync(certDir, { recursive: true, force: true });
  }
}
