/**
 * Runs broken variants through the suite: each must fail the check (and rule) it names, at --level seed with a random
 * --seed when it breaks a seed statement. Shared by the variant test files, which vitest runs in parallel.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_TIMEOUT_MS } from "../../conformance/src/check.ts";
import { runConformance, type RunOptions } from "../../conformance/src/run.ts";
import { startServer, type RunningServer } from "../../server/src/testing.ts";
import { BrokenProxy } from "./broken/proxy.ts";
import { ACME, GLOBEX, type Variant } from "./broken/variants.ts";

const DELAYS = [400, 800, 1200];

/**
 * `concurrent`: the variants run five at a time (vitest's maxConcurrency), each against its own server (they mostly wait on the retry
 * schedule, and each configures its project's one webhook).
 */
export function describeVariants(title: string, list: Variant[], concurrent = false): void {
  const certDir = mkdtempSync(join(tmpdir(), "variants-receiver-"));
  const serverOptions = { webhookRetryDelaysMs: DELAYS, simProcessingMs: 50, webhookTimeoutMs: 2000, validateResponses: true, webhookCaFile: join(certDir, "ca.pem") };
  let server: RunningServer;
  beforeAll(async () => void (server = await startServer(serverOptions)));
  afterAll(() => server.close());
  // VARIANT_SEED=n replays a failure's seed (each failure prints it).
  const randomSeed = () => Number(process.env.VARIANT_SEED) || Math.floor(Math.random() * 2_147_483_647);

  (concurrent ? describe.concurrent : describe)(title, () => {
    for (const variant of list) {
      it(`catches "${variant.mutation.name}" with ${variant.rule ?? `the ${variant.caughtBy} check`}${variant.seedRule ? " at --level seed and a random --seed" : ""}`, async () => {
        const upstream = variant.server || concurrent ? await startServer({ ...serverOptions, ...variant.server }) : server;
        await variant.relay?.start();
        const proxy = new BrokenProxy(upstream.origin, variant.mutation);
        await proxy.start();
        try {
          // One fast-check run where a rule must be reached deterministically: a random draw must not be what catches it.
          // The command's own request timeout: five variants at once each start a server in this worker, and their
          // start-ups hold its event loop (CI once saw a 10 s timeout on the first probe of a run).
          const options: RunOptions = {
            baseUrl: proxy.baseUrl, apiKey: ACME, otherKey: GLOBEX, publicKey: "pk_live_acme_0123456789abcdef0123456789abcdef", sim: true,
            seed: 20260302, runs: variant.rule ? 1 : 6, webhookRetryDelaysMs: DELAYS,
            webhookBudgetMs: 10_000, webhookWaitMs: 5000, timeoutMs: DEFAULT_TIMEOUT_MS, metricsEngine: variant.metricsEngine ?? "metrics/src/index.ts", receiverCertDir: certDir,
            only: variant.only, ...(variant.seedRule ? { level: "seed" as const, seed: randomSeed() } : {}), ...(variant.options ?? {}),
          };
          const report = await runConformance(options);
          const caught = report.results.find((r) => r.name === variant.caughtBy)!;
          const summary = JSON.stringify(report.results.map((r) => [r.name, r.status, r.reason, r.failures.map((f) => `${f.rule}: ${f.message}`)]));
          expect(caught.status, `seed ${report.seed}: ${summary}`).toBe("failed");
          expect(caught.failures.length).toBeGreaterThan(0);
          if (variant.seedRule) expect(caught.failures.some((f) => f.level === "seed"), summary).toBe(true);
          if (variant.rules) expect(caught.failures.some((f) => variant.rules!.includes(f.rule)), summary).toBe(true);
          else if (variant.rule) expect(caught.failures.map((f) => f.rule), summary).toContain(variant.rule);
          if (variant.message) expect(caught.failures.some((f) => variant.message!.test(f.message)), `the failure does not say what was wrong (${variant.message}): ${summary}`).toBe(true);
          if (!["webhooks", "retries", "metrics", "capacity", "coverage"].includes(variant.caughtBy)) expect(caught.failures.some((f) => f.curl || f.details)).toBe(true);
        } finally {
          await proxy.close();
          await variant.relay?.close();
          if (upstream !== server) await upstream.close();
        }
      }, 200_000);
    }
  });
}
