/**
 * The StrykerJS test runner of `npm run test:mutation` (run.ts): each conformance check is a "test", run by the suite
 * (conformance/examples/foreign-states.ts, --level seed) against a copy of the foreign server Stryker instrumented.
 *
 * Why a runner of our own rather than Stryker's command runner: the command runner cannot report coverage, so every
 * mutant cost a whole run of the suite (about 30 s here) and the whole server could not be mutated within an hour.
 * With per-check coverage, Stryker skips the mutants no check reaches (NoCoverage: survivors, listed) and runs each
 * mutant against only the checks that reached its code, one at a time, the costliest (the model's random sequences)
 * last and only when the cheaper ones did not already fail a named rule.
 *
 * A mutant is killed only when a check fails a named rule, or the server does not start. A run that fails nothing but
 * leaves parts NOT TESTED (the suite's exit 3), or whose only failures are checks stopped by the test-support API
 * refusing a planting, is no kill: it counts as survived for Stryker, and the outcome goes to MUTATION_LOG (one JSON
 * line per mutant) for run.ts to count apart.
 */
import type { ChildProcess } from "node:child_process";
import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { checks } from "../../conformance/src/checks/index.ts";
import { runConformance, type Report } from "../../conformance/src/run.ts";
import { FOREIGN, startForeign, type RunningForeign } from "../support/foreign.ts";
import { root } from "../support/processes.ts";

// StrykerJS's API, taken untyped: its declarations do not type-check here (skipLibCheck is off, and
// mutation-testing-report-schema imports JSON without an import attribute). The shapes this runner uses are below.
const api = "@stryker-mutator/api";
const { declareClassPlugin, PluginKind } = await import(`${api}/plugin`);
const { DryRunStatus, MutantRunStatus, TestStatus } = await import(`${api}/test-runner`);
type CoverageData = Record<string, number>;
interface MutantCoverage {
  static: CoverageData;
  perTest: Record<string, CoverageData>;
}
interface TestResult {
  id: string;
  name: string;
  timeSpentMs: number;
  status: number;
  failureMessage?: string;
}
interface MutantRunOptions {
  activeMutant: { id: string };
  testFilter?: string[];
}

const DELAYS = [300, 600, 900];
const SERVE = fileURLToPath(new URL("./serve.mjs", import.meta.url));
/** The checks that cost the most (seconds each), in this order after the others, which take a fraction of one. */
const LAST = ["cover", "webhooks", "retries", "model"];
/** What a failure about timing says (judge/timing.ts's words, and a request the suite gave up on). */
const TIMING = /\b(\d+ ms (after|before|late|early)|attempt\(s\) came|aborted due to timeout|did not answer within|timed out)/;
/** Checks of the dry run at once: each has a server of its own. */
const DRY_AT_ONCE = 4;

interface Served {
  origin: string;
  certDir: string;
  child: ChildProcess;
  coverage(): Promise<MutantCoverage>;
  stop(): void;
}

/** Starts the instrumented server in Stryker's sandbox (the current folder) with `mutant` active, or none. */
async function serve(mutant?: string): Promise<Served | string> {
  // In Stryker's sandbox, under run.ts's own folder (removed at its end): Stryker kills a runner whose mutant timed out
  // before its stop() can remove anything.
  const certDir = mkdtempSync(join(process.cwd(), ".certs-"));
  // No mutant is "": the instrumented code compares ids, and the variable may be set in this process's own environment.
  const env = { WEBHOOK_CA_FILE: join(certDir, "ca.pem"), WEBHOOK_RETRY_DELAYS_MS: DELAYS.join(","), WEBHOOK_TIMEOUT_MS: "2000", SIM_TALK_MS: "50", SIM_PROCESSING_MS: "100", __STRYKER_ACTIVE_MUTANT__: mutant ?? "" };
  let foreign: RunningForeign;
  try {
    foreign = await startForeign(env, resolve("server.mjs"), SERVE);
  } catch (err) {
    rmSync(certDir, { recursive: true, force: true });
    return `the server did not start (${String((err as Error).message).trim().slice(-300)})`;
  }
  const { child, origin } = foreign;
  const stop = () => {
    child.kill("SIGKILL");
    rmSync(certDir, { recursive: true, force: true });
  };
  child.send("begin");
  const coverage = () =>
    new Promise<MutantCoverage>((res, rej) => {
      const exited = () => rej(new Error("the server exited before it told its coverage"));
      child.once("exit", exited);
      child.once("message", (m: any) => {
        child.off("exit", exited);
        res(m.coverage);
      });
      child.send("coverage");
    });
  return { origin, certDir, child, coverage, stop };
}

/** The suite at --level seed through the foreign states module, `only` the checks named. */
const suite = (served: Served, only: string[]): Promise<Report> =>
  runConformance({
    baseUrl: `${served.origin}/api`, apiKey: FOREIGN.acme, otherKey: FOREIGN.globex, publicKey: FOREIGN.publicKey, sim: false,
    states: join(root, "conformance/examples/foreign-states.ts"), level: "seed", seed: Number(process.env.MUTATION_SUITE_SEED ?? 20261127), runs: Number(process.env.MUTATION_RUNS ?? 10),
    receiver: "https", receiverCertDir: served.certDir, webhookRetryDelaysMs: DELAYS, webhookTimeoutMs: 2000, webhookWaitMs: 10_000, timeoutMs: 10_000, only,
  });

/**
 * The named failures of a run. A check that crashed because the server's test-support API refused a planting
 * (StateRefused: a mutant in a helper that API shares) is no evidence against the API itself: apart, under `refused`.
 */
const failuresOf = (report: Report) => {
  const failed = report.results.filter((r) => r.failures.length).map((r) => ({ check: r.name, failures: r.failures, message: r.failures.slice(0, 3).map((f) => `${f.rule}: ${f.message.slice(0, 200)}`).join(" | ") }));
  const isRefusal = (f: { rule: string; message: string }) => f.rule.endsWith(".completes") && /^crashed: StateRefused/.test(f.message);
  return { named: failed.filter((r) => !r.failures.every(isRefusal)), refused: failed.filter((r) => r.failures.every(isRefusal)) };
};

/** The mutant's outcome (killed, not-tested, survived), noted for run.ts. */
const note = (mutant: string, kind: string, why: string) => {
  if (process.env.MUTATION_LOG) appendFileSync(process.env.MUTATION_LOG, `${JSON.stringify({ mutant, kind, why: why.slice(0, 400) })}\n`);
};

export class ConformanceRunner {
  static inject = [] as const;

  capabilities() {
    // Every run starts servers of its own: nothing carries over from one mutant to the next.
    return { reloadEnvironment: true };
  }

  async dryRun(): Promise<object> {
    const names = checks.map((c) => c.name);
    const tests: TestResult[] = [];
    const coverage: MutantCoverage = { static: {}, perTest: {} };
    const queue = [...names];
    const one = async (name: string) => {
      const served = await serve();
      if (typeof served === "string") throw new Error(served);
      const t = Date.now();
      try {
        const report = await suite(served, [name]);
        const { named, refused } = failuresOf(report);
        const failed = [...named, ...refused];
        const status = report.results.find((r) => r.name === name)?.status;
        const { static: statics, perTest } = await served.coverage();
        Object.assign(coverage.static, statics);
        coverage.perTest[name] = perTest.run ?? {};
        const base = { id: name, name, timeSpentMs: Date.now() - t };
        tests.push(failed.length ? { ...base, status: TestStatus.Failed, failureMessage: failed.map((f) => f.message).join(" | ") } : status === "passed" ? { ...base, status: TestStatus.Success } : { ...base, status: TestStatus.Skipped });
      } finally {
        served.stop();
      }
    };
    try {
      await Promise.all(Array.from({ length: DRY_AT_ONCE }, async () => {
        for (let name = queue.shift(); name; name = queue.shift()) await one(name);
      }));
    } catch (err) {
      return { status: DryRunStatus.Error, errorMessage: (err as Error).message };
    }
    return { status: DryRunStatus.Complete, tests, mutantCoverage: coverage };
  }

  async mutantRun(options: MutantRunOptions): Promise<object> {
    const id = options.activeMutant.id;
    const filter = new Set(options.testFilter ?? checks.map((c) => c.name));
    // One check at a time on one server, as a whole run goes, stopping at the first named failure: a mutant most
    // checks kill costs seconds, and only what no check kills pays for every check that reached it.
    const order = checks.map((c) => c.name).filter((n) => filter.has(n)).sort((a, b) => LAST.indexOf(a) - LAST.indexOf(b));
    const served = await serve(id);
    if (typeof served === "string") {
      note(id, "killed", `killed: ${served}`);
      return { status: MutantRunStatus.Killed, killedBy: [], failureMessage: served, nrOfTests: 0 };
    }
    let untested = "";
    try {
      for (const name of order) {
        let report = await suite(served, [name]);
        let { named: failed, refused } = failuresOf(report);
        // A failure about time (a retry's timing, a request that timed out) may be the machine's load, not the
        // mutant: it kills only if the check fails again.
        if (failed.length && failed.every((f) => TIMING.test(f.message))) ({ named: failed, refused } = failuresOf((report = await suite(served, [name]))));
        if (refused.length && !untested) untested = `not tested: the test-support API refused a planting (${refused[0].message})`;
        if (failed.length) {
          const message = failed.map((f) => f.message).join(" | ");
          note(id, "killed", `killed: ${message}`);
          return { status: MutantRunStatus.Killed, killedBy: failed.map((f) => f.check), failureMessage: message, nrOfTests: order.indexOf(name) + 1 };
        }
        if (report.exitCode !== 0 && !untested) untested = `not tested: exit ${report.exitCode} (${report.untested.slice(0, 2).join("; ")})`;
      }
    } catch (err) {
      note(id, "killed", `killed: the suite could not run (${(err as Error).message})`);
      return { status: MutantRunStatus.Killed, killedBy: [], failureMessage: `the suite could not run: ${(err as Error).message}`, nrOfTests: order.length };
    } finally {
      served.stop();
    }
    // NOT TESTED is no kill: the suite named no rule the mutant broke.
    note(id, untested ? "not-tested" : "survived", untested || "survived: the suite passed");
    return { status: MutantRunStatus.Survived, nrOfTests: order.length };
  }
}

export const strykerPlugins = [declareClassPlugin(PluginKind.TestRunner, "conformance", ConformanceRunner)];
