// The suite on servers that are not shaped like ours: the reference server with each simulation capability removed
// in turn, with every capability added after contract 2.0.0 removed at once, with its surface renamed and driven
// through a states module, and with no simulation surface at all. Whatever part of the surface a server offers, the
// run finds it without side effects, removes only what needs the rest, names it, and the model still runs and catches
// the broken variants whose capabilities remain.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runConformance, type Report, type RunOptions } from "../../conformance/src/run.ts";
import { AFTER_2_0_0, ALL_CAPABILITIES, CAPABILITIES, type Capability } from "../../conformance/src/states/capabilities.ts";
import { startServer } from "../../server/src/testing.ts";
import { modelVariants } from "./broken/model-variants.ts";
import { BrokenProxy, type Mutation } from "./broken/proxy.ts";
import { compose, noSurface, surface200, withoutCapabilities } from "./broken/surfaces.ts";
import { ACME, GLOBEX } from "./broken/variants.ts";
import { adminSurface } from "./surfaces/admin-surface.ts";
import { DEFAULT_TIMEOUT_MS } from "../../conformance/src/check.ts";

const DELAYS = [400, 800, 1200];
const certDir = mkdtempSync(join(tmpdir(), "surfaces-receiver-"));
const serverOptions = { webhookRetryDelaysMs: DELAYS, simProcessingMs: 50, webhookTimeoutMs: 2000, validateResponses: true, webhookCaFile: join(certDir, "ca.pem") };
const randomSeed = () => Math.floor(Math.random() * 2_147_483_647);

/**
 * Runs the suite against its own reference server behind `mutation`. The model's budget is a cap, never the measure:
 * the sequences asked (`runs`) are; on a loaded machine a 12 s budget ran 1 of 6 and left the model NOT TESTED.
 */
async function against(mutation: Mutation, extra: Partial<RunOptions>): Promise<Report> {
  const server = await startServer(serverOptions);
  const proxy = new BrokenProxy(server.origin, mutation);
  await proxy.start();
  try {
    return await runConformance({
      baseUrl: proxy.baseUrl, apiKey: ACME, otherKey: GLOBEX, publicKey: "pk_live_acme_0123456789abcdef0123456789abcdef", sim: true, seed: randomSeed(), runs: 6, level: "seed",
      webhookRetryDelaysMs: DELAYS, webhookBudgetMs: 10_000, webhookWaitMs: 5_000, timeoutMs: DEFAULT_TIMEOUT_MS, receiverCertDir: certDir, ...extra,
    });
  } finally {
    await proxy.close();
    await server.close();
  }
}

const failures = (report: Report) => report.results.flatMap((r) => r.failures.map((f) => `${r.name}: ${f.rule}: ${f.message}`));
const model = (report: Report) => report.results.find((r) => r.name === "model")!;
const sequences = (report: Report) => model(report).properties.find((p) => p.label === "model-based run")?.ran ?? 0;

/** The capabilities a model variant needs to be revealed at all (the rest of its sequence is reachable without any). */
const VARIANT_NEEDS: Record<string, Capability[]> = {
  "model.none-without-webhook": ["plant-interview"], "model.sent-to-current": ["plant-interview"], "model.rest-at-delivery": ["plant-interview", "hold", "complete"],
  "model.message-visibility": ["plant-chat", "hidden-messages"], "model.message-cursor": ["plant-chat", "hidden-messages"], "model.interview-filter": ["plant-interview"],
  "model.abandoned-silent": ["plant-interview", "hold", "abandon"], "model.credentials": [], "model.nullable-listed": ["plant-chat"],
};

describe.concurrent("each simulation capability removed in turn", () => {
  // Capabilities of the simulation surface (eligible-launch is read from the participant config, not planted).
  for (const cap of ALL_CAPABILITIES.filter((c) => CAPABILITIES[c].http.includes("/_sim"))) {
    it(`finds ${cap} missing (by a probe that creates nothing, or by its first use where no probe can tell), names it, and still runs the model`, async () => {
      // The budget is slack, not a target: three sequences take a few seconds, but fourteen of these runs go at once,
      // and on a loaded 2-core CI machine 20 s once gave only two (seed 955840248, CI of the #41 work). A link can only
      // be probed by planting, so its first use settles it: the fields check opens one.
      const report = await against(withoutCapabilities([cap]), { only: ["auth", ...(cap === "interview-link" ? ["fields"] : []), "model"], runs: 3 });
      expect(failures(report), `seed ${report.seed}`).toEqual([]);
      const missing = report.states.capabilities.filter((c) => !c.offered);
      expect(missing.map((c) => c.capability), `seed ${report.seed}`).toContain(cap);
      expect(missing.find((c) => c.capability === cap)!.why).toMatch(/answered (404|400)|refused .* in a probe|no (interviews|chats|releases) can be planted/);
      expect(model(report).status, `seed ${report.seed}: ${model(report).reason}`).toBe("passed");
      expect(sequences(report), `seed ${report.seed}`).toBeGreaterThanOrEqual(3);
      // A probe never created anything: only the model's own plantings are listed (each carries the run's id).
      for (const c of report.created.filter((x) => x.name && x.kind === "study")) expect(c.name).toContain(report.runId);
    }, 240_000);
  }
});

describe("the simulation surface of contract 2.0.0", () => {
  it("runs the model until every sequence ran or its measured budget ended, and names every capability it lacks", async () => {
    // The model's budget is the default, measured on the target from its first sequence (here one at a time: this
    // surface creates no projects). How many of the 20 fit depends on that sequence's length and the machine's load
    // (12 on a loaded CI, seed 1328735237), so the test holds what the suite promises: all of them, or the budget
    // named in the report as what stopped it; never fewer than 3. A link is settled only by its first use: the fields
    // check always makes one (a model run may open none).
    const report = await against(surface200(), { only: ["fields", "model"], runs: 20 });
    expect(failures(report), `seed ${report.seed}`).toEqual([]);
    expect(report.states.capabilities.filter((c) => !c.offered).map((c) => c.capability).sort(), `seed ${report.seed}`).toEqual([...AFTER_2_0_0].sort());
    const ran = sequences(report);
    expect(ran, `seed ${report.seed}`).toBeGreaterThanOrEqual(3);
    // Asked: the opening's fixed sequences and the 20 random ones.
    const asked = model(report).properties.find((p) => p.label === "model-based run")!.asked;
    expect(asked).toBeGreaterThan(20);
    if (ran < asked) expect(model(report).notes.join("\n"), `seed ${report.seed}`).toMatch(new RegExp(`model: ${ran} of ${asked} sequences ran \\(the opening's ${asked - 20} fixed ones first, then 20 random\\), 1 at a time within the budget measured on the target`));
    // Its missing abandon answers an unknown interview as it answers a missing route: a use with a real id settles it.
    expect(report.states.capabilities.find((c) => c.capability === "abandon")!.decided).toMatch(/^first use: POST \/_sim\/interviews\/.+\/abandon answered 404/);
  }, 240_000);

  describe.concurrent("catches every model variant whose capabilities remain", () => {
    const offered = ALL_CAPABILITIES.filter((c) => !AFTER_2_0_0.includes(c));
    for (const variant of modelVariants().filter((v) => (VARIANT_NEEDS[v.rule!] ?? ["unknown"]).every((c) => offered.includes(c)))) {
      it(`catches "${variant.mutation.name}" on a 2.0.0 surface at --level seed and a random --seed`, async () => {
        const report = await against(compose(`2.0.0 and ${variant.mutation.name}`, surface200(), variant.mutation), { only: ["model"], runs: 100, modelBudgetMs: 150_000 });
        const caught = model(report);
        const rules = variant.rules ?? [variant.rule!];
        expect(caught.failures.some((f) => rules.includes(f.rule)), `seed ${report.seed}: ${JSON.stringify(caught.failures.map((f) => f.rule))} ${caught.reason ?? ""}`).toBe(true);
      }, 240_000);
    }
  });
});

describe("a renamed simulation surface driven through a states module", () => {
  const states = join(import.meta.dirname, "surfaces", "admin-states.ts");

  it("passes a correct server with every capability offered and nothing NOT TESTED", async () => {
    const report = await against(adminSurface, { states, sim: false, only: ["auth", "chats", "fields", "truncation", "capacity", "windows", "webhooks", "model", "pagination"] });
    expect(failures(report), `seed ${report.seed}`).toEqual([]);
    expect(report.states.source).toContain("admin-states.ts");
    // Every capability of planting; an eligible launch is the participant check's, not run here.
    expect(report.states.capabilities.filter((c) => !c.offered).map((c) => c.capability)).toEqual(["eligible-launch"]);
    expect(report.untested).toEqual([]);
    expect(sequences(report)).toBeGreaterThanOrEqual(3);
  }, 240_000);

  it("catches a sequence variant through it", async () => {
    const variant = modelVariants().find((v) => v.rule === "model.credentials")!;
    const report = await against(compose("admin surface and case-insensitive keys", adminSurface, variant.mutation), { states, sim: false, only: ["model"], runs: 100, modelBudgetMs: 150_000 });
    expect(model(report).failures.map((f) => f.rule), `seed ${report.seed}: ${sequences(report)} sequences; ${model(report).notes.join("; ")}; untested ${report.untested.join("; ")}`).toContain("model.credentials");
  }, 240_000);
});

describe("no simulation surface at all", () => {
  it("judges what the data already there allows, runs the model on webhooks and reads, and names every capability it lacks", async () => {
    const report = await against(noSurface(), { only: undefined, runs: 6, allowUntested: false, metricsEngine: undefined });
    expect(failures(report), `seed ${report.seed}`).toEqual([]);
    // Every capability of the simulation surface is missing; an eligible launch is read from the participant config,
    // which this server has, and its first use settled it.
    expect(report.states.capabilities.filter((c) => c.offered).map((c) => c.capability)).toEqual(["eligible-launch"]);
    expect(report.states.capabilities.find((c) => c.capability === "eligible-launch")!.decided).toMatch(/first use/);
    expect(model(report).status).toBe("passed");
    expect(sequences(report)).toBeGreaterThanOrEqual(3);
    for (const name of ["schema", "pagination", "isolation", "filters", "truncation", "deprecated", "parameters"]) expect(report.results.find((r) => r.name === name)!.status, name).not.toBe("failed");
    expect(report.untested.join("\n")).toMatch(/capability plant-chat/);
    expect(report.untested.join("\n")).toMatch(/capability plant-study/);
    const notTested = report.statements.filter((s) => s.verdict === "not_tested");
    expect(notTested.length).toBeGreaterThan(0);
    for (const s of notTested) expect(s.reason, s.id).toBeTruthy();
    expect(report.exitCode).toBe(3);
  }, 150_000);
});
