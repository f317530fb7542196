// What the suite asks of a server and what it leaves there: it never asks for the sandbox's own tooling (operations
// marked x-sandbox-tooling), its capability and auth probes create nothing, everything it creates carries the run's id
// in its name and is listed in the report, and the webhooks it configured are gone afterwards.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Contract } from "../../conformance/src/contract.ts";
import { runConformance, type RunOptions } from "../../conformance/src/run.ts";
import { startServer, type RunningServer } from "../../server/src/testing.ts";
import { BrokenProxy, type Exchange } from "./broken/proxy.ts";
import { ACME, GLOBEX } from "./broken/variants.ts";
import { DEFAULT_TIMEOUT_MS } from "../../conformance/src/check.ts";

const DELAYS = [400, 800, 1200];
let server: RunningServer;
beforeAll(async () => void (server = await startServer({ webhookRetryDelaysMs: DELAYS, simProcessingMs: 50, webhookTimeoutMs: 2000 })));
afterAll(() => server.close());

const contract = new Contract();
const tooling = contract.operations.filter((o) => o.tooling);

/** Runs the suite through a proxy that records every exchange. */
async function recorded(extra: Partial<RunOptions>) {
  const seen: Exchange[] = [];
  const proxy = new BrokenProxy(server.origin, { name: "records", response: (ex) => void seen.push({ ...ex }) });
  await proxy.start();
  try {
    const report = await runConformance({
      baseUrl: proxy.baseUrl, apiKey: ACME, otherKey: GLOBEX, sim: true, seed: 11, runs: 3, webhookRetryDelaysMs: DELAYS, webhookTimeoutMs: 2000, webhookBudgetMs: 5_000, webhookWaitMs: 5_000, timeoutMs: DEFAULT_TIMEOUT_MS, modelBudgetMs: 8_000, ...extra,
    });
    return { report, seen };
  } finally {
    await proxy.close();
  }
}

describe("what the suite asks and leaves", () => {
  it("never asks for the sandbox's own tooling in a full --sim run", async () => {
    const { report, seen } = await recorded({});
    expect(report.failed, JSON.stringify(report.results.filter((r) => r.failures.length).map((r) => r.failures[0]))).toBe(0);
    const asked = seen.filter((ex) => tooling.some((o) => o.method === ex.method && o.regex.test(ex.path.replace(/^\/api/, ""))));
    expect(asked.map((ex) => `${ex.method} ${ex.path}`)).toEqual([]);
    expect(report.untested.join("\n")).not.toMatch(/listener|forwards|delivery log|event stream|webhook-deliveries/);
  }, 120_000);

  it("creates nothing with its capability and auth probes, and lists what the rest of a run created, with the run's id", async () => {
    const probes = await recorded({ only: ["auth", "parameters"] });
    const created = probes.seen.filter((ex) => ex.path.startsWith("/api/_sim/") && ex.method !== "GET" && ex.status >= 200 && ex.status < 300 && ex.method !== "DELETE");
    expect(created.map((ex) => `${ex.method} ${ex.path} ${ex.status}`)).toEqual([]);
    expect(probes.report.created.filter((c) => c.kind !== "webhook")).toEqual([]);

    const { report, seen } = await recorded({ only: ["capacity", "windows", "chats", "webhooks"] });
    const planted = seen.filter((ex) => ex.method === "POST" && ["/api/_sim/studies", "/api/_sim/projects"].includes(ex.path) && ex.status === 201);
    expect(planted.length).toBeGreaterThan(3);
    for (const ex of planted) expect(ex.requestBody.name).toContain(`[${report.runId}]`);
    const ids = new Set(report.created.map((c) => c.id));
    for (const ex of planted) expect(ids.has(ex.body.id)).toBe(true);
    const webhook = report.created.find((c) => c.kind === "webhook");
    expect(webhook?.removed).toBe(true);
    expect((await fetch(`${server.baseUrl}/v1/webhooks`, { headers: { authorization: `Bearer ${ACME}` } })).status).toBe(404);
  }, 120_000);
});
