// The seed shows no field list for the participant config. An implementation that names its trigger rules otherwise
// than our contract must still have its launch decisions judged at --level seed: the name is a contract difference.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runConformance } from "../../conformance/src/run.ts";
import { startServer, type RunningServer } from "../../server/src/testing.ts";
import { BrokenProxy } from "./broken/proxy.ts";
import { seedOnly } from "./broken/seed-only.ts";
import { ACME } from "./broken/variants.ts";
import { DEFAULT_TIMEOUT_MS } from "../../conformance/src/check.ts";

const PK = "pk_live_acme_0123456789abcdef0123456789abcdef";
let server: RunningServer;
let proxy: BrokenProxy;
beforeAll(async () => {
  server = await startServer();
  proxy = new BrokenProxy(server.origin, {
    name: "trigger rules named launch_rules",
    response(ex) {
      if (ex.path === "/api/v1/interview-participant/config" && ex.body?.triggerRules) {
        const { triggerRules, ...rest } = ex.body;
        ex.body = { ...rest, launch_rules: triggerRules };
      }
    },
  });
  await proxy.start();
});
afterAll(async () => {
  await proxy.close();
  await server.close();
});

describe("participant: trigger rules found by shape, their name a contract pin", () => {
  it("launches are judged at --level seed when the config names its rules launch_rules", async () => {
    const report = await runConformance({
      baseUrl: proxy.baseUrl, apiKey: ACME, publicKey: PK, sim: false, seed: 3, runs: 2, level: "seed", only: ["participant"],
      webhookRetryDelaysMs: [400, 800, 1200], webhookBudgetMs: 5_000, timeoutMs: DEFAULT_TIMEOUT_MS,
    });
    const participant = report.results.find((r) => r.name === "participant")!;
    expect(participant.untested, JSON.stringify(participant.untested)).toEqual([]);
    expect(participant.status).toBe("passed");
    expect(participant.warnings.map((w) => w.message)).toContain('the trigger rules are under "launch_rules", not the contract\'s "triggerRules" (the seed does not show the config\'s fields)');
    expect(participant.levels.seed.checked).toBeGreaterThan(0);
  });

  it("the same implementation fails at --level contract, on the field name", async () => {
    const report = await runConformance({
      baseUrl: proxy.baseUrl, apiKey: ACME, publicKey: PK, sim: false, seed: 3, runs: 2, only: ["participant"],
      webhookRetryDelaysMs: [400, 800, 1200], webhookBudgetMs: 5_000, timeoutMs: DEFAULT_TIMEOUT_MS,
    });
    const participant = report.results.find((r) => r.name === "participant")!;
    expect(participant.failures.map((f) => f.rule)).toContain("participant.config");
  });

  it("launches a rule that carries no token with the fields it does carry, before declaring anything NOT TESTED", async () => {
    const tokenless = new BrokenProxy(server.origin, seedOnly);
    await tokenless.start();
    try {
      const report = await runConformance({
        baseUrl: tokenless.baseUrl, apiKey: ACME, publicKey: PK, sim: false, seed: 3, runs: 2, level: "seed", only: ["participant"],
        webhookRetryDelaysMs: [400, 800, 1200], webhookBudgetMs: 5_000, timeoutMs: DEFAULT_TIMEOUT_MS,
      });
      const participant = report.results.find((r) => r.name === "participant")!;
      expect(participant.untested, JSON.stringify(participant.untested)).toEqual([]);
      expect(participant.status, JSON.stringify(participant.failures)).toBe("passed");
      expect(participant.rules.find((r) => r.id === "participant.decision")).toEqual({ id: "participant.decision", failed: false });
    } finally {
      await tokenless.close();
    }
  });
});
