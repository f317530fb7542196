// The suite against Prism on the same contract: Prism answers with examples and keeps no state, so most
// checks must fail there, each for the reason recorded in conformance/README.md. This proves the checks judge
// behaviour, not just shapes, and keeps the README's table honest.
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runConformance, type Report } from "../../conformance/src/run.ts";
import { startPrismProcess } from "../support/processes.ts";
import { DEFAULT_TIMEOUT_MS } from "../../conformance/src/check.ts";

let prism: ChildProcess;
let baseUrl = "";
let report: Report;

beforeAll(async () => {
  ({ child: prism, baseUrl } = await startPrismProcess());
  report = await runConformance({
    baseUrl, apiKey: "svc_live_acme_0123456789abcdef0123456789abcdef", otherKey: "svc_live_globex_0123456789abcdef0123456789abcdef",
    publicKey: "pk_live_acme_0123456789abcdef0123456789abcdef", sim: false, seed: 1, runs: 5, webhookRetryDelaysMs: [10_000, 60_000, 300_000], webhookBudgetMs: 1_000, timeoutMs: DEFAULT_TIMEOUT_MS,
  });
}, 90_000);
afterAll(() => void prism?.kill("SIGTERM"));

const status = (name: string) => report.results.find((r) => r.name === name)!;
const reasons = (name: string) => [status(name).reason ?? "", ...status(name).failures.map((f) => f.message)].join("\n");

describe("the suite against Prism (stateless, example-driven)", () => {
  it("fails pagination: the example page says has_more and the cursor is ignored, so a walk never ends", () => {
    expect(status("pagination").status).toBe("failed");
    expect(reasons("pagination")).toContain("never ends");
  });

  it("fails auth: Prism only checks that a credential is present", () => {
    expect(status("auth").status).toBe("failed");
    expect(reasons("auth")).toMatch(/unknown key|wrong prefix|trailing garbage|answered 200/);
  });

  it("fails deprecated: header values are generated placeholders, not an HTTP date", () => {
    expect(status("deprecated").status).toBe("failed");
    expect(reasons("deprecated")).toContain("Sunset");
  });

  it("fails participant: no state, so a repeated prompt event is never a duplicate", () => {
    expect(status("participant").status).toBe("failed");
  });

  it("reports webhooks and capacity as NOT TESTED without --sim, metrics as not applicable, and exits non-zero", () => {
    expect(status("webhooks").status).toBe("not_tested");
    expect(status("capacity").status).toBe("not_tested");
    expect(status("metrics").status).toBe("not_applicable");
    expect(report.exitCode).toBe(1);
  });
});
