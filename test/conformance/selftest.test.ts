// The conformance suite's own test: it passes against the reference server, and fails each deliberately
// broken variant with the check that should catch it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runConformance, type RunOptions } from "../../conformance/src/run.ts";
import { startServer, type RunningServer } from "../../server/src/testing.ts";
import { BrokenProxy } from "./broken/proxy.ts";
import { ACME, GLOBEX, variants } from "./broken/variants.ts";

const DELAYS = [300, 600, 900];
let server: RunningServer;
beforeAll(async () => void (server = await startServer({ webhookRetryDelaysMs: DELAYS, simProcessingMs: 50, webhookTimeoutMs: 2000, validateResponses: true })));
afterAll(() => server.close());

const options = (baseUrl: string, extra: Partial<RunOptions> = {}): RunOptions => ({
  baseUrl, apiKey: ACME, otherKey: GLOBEX, publicKey: "pk_live_acme_0123456789abcdef0123456789abcdef", sim: true,
  seed: 20260302, runs: 10, webhookRetryDelaysMs: DELAYS, webhookBudgetMs: 10_000, timeoutMs: 10_000, ...extra,
});

describe("conformance self-test", () => {
  it("passes every check against the reference server", async () => {
    const report = await runConformance(options(server.baseUrl));
    const failed = report.results.filter((r) => r.status !== "passed").map((r) => `${r.name}: ${r.reason}`);
    expect(failed).toEqual([]);
    expect(report.results.map((r) => r.name)).toEqual(["schema", "auth", "pagination", "isolation", "filters", "chats", "truncation", "webhooks", "deprecated", "participant", "metrics", "coverage"]);
  }, 120_000);

  it("passes again on a server its own writes changed (pagination creates interviews before filters runs)", async () => {
    for (const seed of [1, 2, 3]) {
      const report = await runConformance(options(server.baseUrl, { seed, only: ["pagination", "filters"] }));
      expect(report.results.filter((r) => r.status !== "passed").map((r) => `${r.name}: ${r.reason}`)).toEqual([]);
    }
  }, 60_000);

  it("skips, with the reason, what it cannot run without --sim, --other-key or --public-key", async () => {
    const report = await runConformance(options(server.baseUrl, { sim: false, otherKey: undefined, publicKey: undefined, only: ["isolation", "webhooks", "participant"] }));
    expect(report.results.map((r) => [r.name, r.status])).toEqual([["isolation", "skipped"], ["webhooks", "skipped"], ["participant", "skipped"]]);
    expect(report.results[0].reason).toContain("--other-key");
    expect(report.results[1].reason).toContain("--sim");
  }, 60_000);

  for (const variant of variants()) {
    it(`catches "${variant.mutation.name}" with the ${variant.caughtBy} check`, async () => {
      const proxy = new BrokenProxy(server.origin, variant.mutation);
      await proxy.start();
      await variant.relay?.start();
      try {
        const report = await runConformance(options(proxy.baseUrl, { only: variant.only, runs: 6 }));
        const caught = report.results.find((r) => r.name === variant.caughtBy)!;
        expect(caught.status, JSON.stringify(report.results.map((r) => [r.name, r.status, r.reason]))).toBe("failed");
        expect(caught.reason).toBeTruthy();
        if (variant.caughtBy !== "webhooks" && variant.caughtBy !== "metrics") expect(caught.curl ?? JSON.stringify(caught.details)).toBeTruthy();
      } finally {
        await variant.relay?.close();
        await proxy.close();
      }
    }, 60_000);
  }
});
