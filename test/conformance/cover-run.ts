// The covering phase (the cover check) run against ../shared/foreign or a changed copy of it, for cover.test.ts and
// cover-schedules.test.ts: the copy's timings, and one planted violation's case.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { runConformance, type Report } from "../../conformance/src/run.ts";
import { FOREIGN, startForeign } from "../support/foreign.ts";
import { UNITS } from "../../conformance/src/cover/index.ts";
import { plant, type Violation } from "./foreign/violations.ts";
import { DEFAULT_TIMEOUT_MS } from "../../conformance/src/check.ts";

export const DELAYS = [300, 600, 900];
const BURST_DELAYS = [20_000, 900, 900];
/**
 * The copy's receiver timeout: 2 s keeps the runs short. A case whose evidence is the copy reading a receiver's answer
 * in time (the retry rules) or a burst gives it its own default, 10 s: it builds a TLS context per attempt (84 ms of
 * its CPU), so the receiver-answers unit's 19 attempts at once stalled it past 2 s on a loaded CI machine, its own
 * timer fired before it read a 429, and the planted "Retry-After waited out" never showed.
 */
export const TIMEOUT_MS = 2000;
export const FOREIGN_DEFAULT_TIMEOUT_MS = 10_000;
/** A violation case's copy timings, by the rule that must catch it; any other rule's: DELAYS at TIMEOUT_MS. */
export const TIMINGS: Record<string, { delays: number[]; timeoutMs: number }> = {
  "cover.answer-retried": { delays: DELAYS, timeoutMs: FOREIGN_DEFAULT_TIMEOUT_MS },
  // A burst's retries are pending at once only if the first delay outlasts the copy's storm of first attempts: at
  // 300 ms each retry went out before the storm had failed the next, the pending ones stayed under 50, and a queue
  // bounded at 50 was not caught (CI of 41f807d).
  "cover.burst-delivered": { delays: BURST_DELAYS, timeoutMs: FOREIGN_DEFAULT_TIMEOUT_MS },
};
const randomSeed = () => Math.floor(Math.random() * 2_147_483_647);

/**
 * The cover check alone through the README's states module, on a foreign server (or a changed copy) of its own.
 * `signal`: the test's, aborted when it times out: the server is killed then, so the run ends at once instead of going
 * on beside the tests that follow (vitest starts the next while a timed-out test's work still runs).
 */
export async function cover(server?: string, only = ["cover"], coverUnits?: string[], level: "seed" | "contract" = "seed", delays = DELAYS, signal?: AbortSignal, timeoutMs = TIMEOUT_MS): Promise<Report> {
  const dir = mkdtempSync(join(tmpdir(), "foreign-cover-"));
  const foreign = await startForeign({ WEBHOOK_CA_FILE: join(dir, "ca.pem"), WEBHOOK_RETRY_DELAYS_MS: delays.join(","), WEBHOOK_TIMEOUT_MS: String(timeoutMs), SIM_TALK_MS: "50", SIM_PROCESSING_MS: "100" }, server);
  const stop = () => void foreign.close();
  signal?.addEventListener("abort", stop, { once: true });
  try {
    return await runConformance({
      baseUrl: foreign.baseUrl, apiKey: FOREIGN.acme, otherKey: FOREIGN.globex, publicKey: FOREIGN.publicKey, sim: false, seed: randomSeed(), runs: 4, level,
      receiver: "https", receiverCertDir: dir, webhookRetryDelaysMs: delays, webhookTimeoutMs: timeoutMs, webhookBudgetMs: 10_000, webhookWaitMs: 10_000, timeoutMs: DEFAULT_TIMEOUT_MS,
      states: join(process.cwd(), "conformance/examples/foreign-states.ts"), only, coverUnits,
    });
  } finally {
    signal?.removeEventListener("abort", stop);
    await foreign.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export const cover_ = (report: Report, check = "cover") => report.results.find((r) => r.name === check)!;

/**
 * Plants `v` in a copy of the foreign server and runs the check that must catch it: the units that judge its rule, or
 * the whole phase for a rule no unit owns (a response's body, judged on every reply). It must fail with that rule.
 */
export async function catchesViolation(v: Violation, signal?: AbortSignal): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "foreign-violation-"));
  try {
    const check = v.check ?? "cover";
    const owners = UNITS.filter((u) => u.rules.some((rule) => rule.id === v.rule)).map((u) => u.name);
    const { delays, timeoutMs } = TIMINGS[v.rule] ?? { delays: DELAYS, timeoutMs: TIMEOUT_MS };
    const report = await cover(plant(v, dir), [check], check === "cover" && owners.length ? owners : undefined, v.level, delays, signal, timeoutMs);
    const failed = cover_(report, check).failures.map((f) => f.rule);
    expect(failed, `seed ${report.seed}: ${cover_(report, check).failures.map((f) => f.message).join("\n").slice(0, 2000)}`).toContain(v.rule);
    expect(report.exitCode).toBe(1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
