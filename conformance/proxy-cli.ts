/**
 * `api-conformance proxy --target URL`: the contract-checking proxy. Point a client at it; it forwards every exchange
 * to the target unchanged and prints each problem as it happens, labelled as the implementation's or the client's.
 * On Ctrl-C (or SIGTERM) it writes the reports asked for and exits: 1 when the implementation broke a rule (or the
 * client did, with --fail-on-client), 0 otherwise, 2 for bad options.
 */
import { writeFileSync } from "node:fs";
import { Command, InvalidArgumentError, Option } from "commander";
import { startProxy } from "./src/proxy/index.ts";
import { SEED_RETRY_DELAYS_MS, SEED_TIMEOUT_MS } from "./src/judge/timing.ts";
import { human } from "./src/report.ts";
import { FORMATS, takeReports } from "./src/report-files.ts";

const int = (name: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`${name} must be a non-negative integer`);
  return n;
};
const delays = (v: string) => v.split(",").map((s) => int("--webhook-retry-delays-ms")(s.trim()));
const url = (v: string) => {
  try {
    const u = new URL(v);
    if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error();
    return v;
  } catch {
    throw new InvalidArgumentError(`${JSON.stringify(v)} is not an http(s) URL`);
  }
};

export async function proxyMain(args: string[]): Promise<void> {
  const argv = [...args];
  const reports = takeReports(argv, "proxy.html");
  const program = new Command("api-conformance proxy")
    .description("A contract-checking proxy: forwards every exchange to --target unchanged, and judges each against the contract and the seed")
    .requiredOption("--target <url>", "the implementation, up to and including its base path (e.g. http://127.0.0.1:3000/api)", url)
    .option("--port <n>", "where the proxy listens", int("--port"), 8787)
    .option("--host <host>", "the address it listens on", "127.0.0.1")
    .addOption(new Option("--level <level>", "seed: fail only on what the service description states (contract pins become warnings); contract: both").choices(["seed", "contract"]).default("contract"))
    .option("--relay-webhooks <url>", `your webhook receiver: set the service's webhook URL to the proxy's /.proxy/webhooks and deliveries go on to this URL, judged`, url)
    .option("--webhook-retry-delays-ms <list>", "the service's retry delays, to judge relayed retries by (the seed's: 10000,60000,300000)", delays, SEED_RETRY_DELAYS_MS)
    .option("--webhook-timeout-ms <n>", "the service's receiver timeout (the seed's: 10000)", int("--webhook-timeout-ms"), SEED_TIMEOUT_MS)
    .option("--via", "add `Via: 1.1 api-conformance-proxy` to requests and answers (otherwise nothing is added)", false)
    .option("--fail-on-client", "exit 1 when the client broke a rule too (by default only the implementation's problems fail the run)", false)
    .option("--upstream-timeout-ms <n>", "longest the target may take to answer (or stay silent inside an answer that is not an event stream) before the client gets a 502", int("--upstream-timeout-ms"), 30_000)
    .option("--quiet", "no progress line (problems are still printed)", false)
    .addOption(new Option("--report <format> <file>", "on exit, also write a report: html, junit or json; may be given several times").argParser(() => undefined))
    .allowExcessArguments(false)
    // Bad options exit 2 (commander's own default is 1, which CI would read as a violation found).
    .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 2));
  program.parse(argv, { from: "user" });
  const o = program.opts();
  const tty = process.stderr.isTTY;
  let progressShown = false;
  const print = (line: string) => {
    if (progressShown) process.stderr.write("\r\x1b[K");
    progressShown = false;
    process.stderr.write(`${line}\n`);
  };
  const proxy = await startProxy({ target: o.target, port: o.port, host: o.host, level: o.level, via: o.via, relayWebhooks: o.relayWebhooks, webhookRetryDelaysMs: o.webhookRetryDelaysMs, webhookTimeoutMs: o.webhookTimeoutMs, upstreamTimeoutMs: o.upstreamTimeoutMs, print }).catch((err: NodeJS.ErrnoException) => {
    console.error(`the proxy cannot listen on ${o.host}:${o.port}: ${err.code ?? err.message}`);
    process.exit(2);
  });
  print(`proxy: ${proxy.url} -> ${o.target} (level ${o.level})${proxy.relayUrl ? `; webhooks: point the service at ${proxy.relayUrl}, relayed to ${o.relayWebhooks}` : ""}`);
  print("Point your client at the proxy's address. Ctrl-C ends the run and writes the reports.");
  let last = "";
  const timer = setInterval(async () => {
    const line = await proxy.progress().catch(() => last);
    if (o.quiet || line === last) return;
    last = line;
    if (tty) {
      process.stderr.write(`\r\x1b[K${line}`);
      progressShown = true;
    } else print(line);
  }, tty ? 500 : 10_000);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    clearInterval(timer);
    const report = await proxy.close(o.failOnClient);
    for (const { format, file } of reports) writeFileSync(file, FORMATS[format](report));
    print("");
    console.log(human(report));
    console.log(`${proxy.forwarded()} exchanges forwarded, ${proxy.judged()} judged`);
    process.exit(report.exitCode);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
