/**
 * `npm run conformance -- --base-url URL --api-key KEY [...]`: the conformance suite against any
 * implementation. Exit 0 only when every enforced rule holds and nothing is NOT TESTED (1: failures;
 * 3: parts NOT TESTED without --allow-untested; 2: bad options). Progress to stderr, results to stdout.
 */
import { writeFileSync } from "node:fs";
import { Command, InvalidArgumentError, Option } from "commander";
import { DEFAULT_TIMEOUT_MS } from "./src/check.ts";
import { human } from "./src/report.ts";
import { FORMATS, takeReports } from "./src/report-files.ts";
import { CHECK_NAMES, runConformance, TargetUnreachable } from "./src/run.ts";
import { ALL_CAPABILITIES, type Capability } from "./src/states/capabilities.ts";
import { StatesModuleError } from "./src/states/load.ts";

const int = (name: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`${name} must be a non-negative integer`);
  return n;
};

function capabilityList(v: string): Capability[] {
  const names = v.split(",").map((s) => s.trim()).filter(Boolean);
  const unknown = names.filter((n) => !ALL_CAPABILITIES.includes(n as Capability));
  if (unknown.length) throw new InvalidArgumentError(`unknown capabilit${unknown.length === 1 ? "y" : "ies"}: ${unknown.join(", ")} (known: ${ALL_CAPABILITIES.join(", ")})`);
  return names as Capability[];
}

// `api-conformance proxy ...`: the contract-checking proxy, with options of its own.
if (process.argv[2] === "proxy") {
  await (await import("./proxy-cli.ts")).proxyMain(process.argv.slice(3));
  await new Promise(() => undefined); // runs until a signal ends it
}

const program = new Command("api-conformance")
  .description("Black-box, property-based conformance suite for the Project Data API")
  .requiredOption("--base-url <url>", "service address up to and including /api (Prism: http://127.0.0.1:4011)")
  .requiredOption("--api-key <key>", "a project API key (svc_live_...)")
  .option("--other-key <key>", "a second project's key: enables the isolation check")
  .option("--public-key <key>", "the public SDK key: enables the participant check")
  .option("--sim", "allow writes: planting through the simulation surface (/_sim, the default states) and webhook configuration", false)
  .option("--states <file>", "a provider-states module (JavaScript or TypeScript) that plants data in your system instead of /_sim; implies --sim")
  .addOption(new Option("--without <capabilities>", `capabilities to leave out of this run, comma-separated: ${ALL_CAPABILITIES.join(", ")}`).argParser(capabilityList))
  .addOption(new Option("--capabilities <capabilities>", "the capabilities the target offers, comma-separated (none: an empty list); replaces detection and a states module's capabilities()").argParser(capabilityList))
  .addOption(new Option("--level <level>", "seed: enforce only what the service description states (contract pins become warnings); contract: enforce both").choices(["seed", "contract"]).default("contract"))
  .option("--allow-untested", "exit 0 even when parts could not be exercised (they are still listed as NOT TESTED)", false)
  .option("--seed <n>", "fast-check seed, to replay a failure (default: random, printed in the summary)", int("--seed"))
  .option("--runs <n>", "fast-check runs per property", int("--runs"), 20)
  .addOption(new Option("--only <checks>", `comma-separated subset of: ${CHECK_NAMES.join(", ")}`).argParser((v) => {
    const names = v.split(",").map((s) => s.trim()).filter(Boolean);
    const unknown = names.filter((n) => !CHECK_NAMES.includes(n));
    if (unknown.length) throw new InvalidArgumentError(`unknown check(s): ${unknown.join(", ")}`);
    return names;
  }))
  .addOption(new Option("--report <format> <file>", "also write a report: html (a page with a verdict per seed statement), junit or json; may be given several times").argParser(() => undefined))
  .option("--metrics-engine <module>", "module exporting computeMetric to hold to the metric laws (e.g. metrics/src/index.ts); without it metrics is not applicable")
  .option("--webhook-retry-delays-ms <list>", "the server's retry delays", (v) => v.split(",").map((s) => int("--webhook-retry-delays-ms")(s.trim())), [10_000, 60_000, 300_000])
  .option("--webhook-budget-ms <n>", "longest wait for the retry schedule before skipping its tail (default: the whole configured schedule plus a minute)", int("--webhook-budget-ms"))
  .option("--webhook-wait-ms <n>", "longest wait for a first delivery (the seed says 5 to 30 s after the respondent finishes)", int("--webhook-wait-ms"), 35_000)
  .option("--webhook-timeout-ms <n>", "the receiver timeout the service is configured with (the seed's 10 s by default)", int("--webhook-timeout-ms"), 10_000)
  .option("--slow-receiver", "also answer just under and just over the receiver timeout, to observe it (costs about the timeout plus the first retry delay plus 3 s: 23 s with the seed's values)", false)
  .addOption(new Option("--receiver <mode>", "webhook receiver: auto (http:// on loopback, then https:// if refused), http or https").choices(["auto", "http", "https"]).default("auto"))
  .option("--receiver-url <url>", "URL the service must call to reach the receiver, when it is not the receiver's own address (a tunnel, another host)")
  .option("--receiver-listen <host:port>", "where the receiver listens (default 127.0.0.1 on a free port)")
  .option("--receiver-cert-dir <dir>", "where the HTTPS receiver writes its certificate (ca.pem), to point the service at before the run")
  .option("--timeout-ms <n>", "per-request timeout", int("--timeout-ms"), DEFAULT_TIMEOUT_MS)
  .option("--property-time-ms <n>", "time limit of each property (default 20000): past it no new case is drawn, and the report warns that it ran fewer than --runs", int("--property-time-ms"))
  .option("--model-budget-ms <n>", "time budget of the model-based run, shrinking included (default: measured on the target, three times the mean batch's time for each batch asked): past it no new sequence is drawn", int("--model-budget-ms"))
  .option("--model-workers <n>", "model sequences run side by side, each worker in a project of its own where the target creates projects (default 5)", int("--model-workers"))
  .allowExcessArguments(false);

const argv = [...process.argv];
const reports = takeReports(argv, "conformance.html");
program.parse(argv);
const o = program.opts();

const started = Date.now();
const result = await runConformance({
  states: o.states,
  without: o.without,
  capabilities: o.capabilities,
  propertyTimeMs: o.propertyTimeMs,
  baseUrl: o.baseUrl,
  apiKey: o.apiKey,
  otherKey: o.otherKey,
  publicKey: o.publicKey,
  sim: o.sim,
  level: o.level,
  allowUntested: o.allowUntested,
  seed: o.seed ?? Date.now() % 2_147_483_647,
  runs: o.runs,
  only: o.only,
  metricsEngine: o.metricsEngine,
  webhookRetryDelaysMs: o.webhookRetryDelaysMs,
  webhookBudgetMs: o.webhookBudgetMs,
  webhookTimeoutMs: o.webhookTimeoutMs,
  webhookWaitMs: o.webhookWaitMs,
  slowReceiver: o.slowReceiver,
  receiver: o.receiver,
  receiverUrl: o.receiverUrl,
  receiverListen: o.receiverListen,
  receiverCertDir: o.receiverCertDir,
  timeoutMs: o.timeoutMs,
  modelBudgetMs: o.modelBudgetMs,
  modelWorkers: o.modelWorkers,
  onProgress: (line) => process.stderr.write(`[${((Date.now() - started) / 1000).toFixed(1)} s] ${line}\n`),
}).catch((err: unknown) => {
  // A states module that cannot be loaded, or a target that cannot be reached, is a bad option (exit 2), said plainly.
  if (!(err instanceof StatesModuleError) && !(err instanceof TargetUnreachable)) throw err;
  console.error(err.message);
  process.exit(2);
});
for (const { format, file } of reports) writeFileSync(file, FORMATS[format](result));
console.log(human(result));
process.exit(result.exitCode);
