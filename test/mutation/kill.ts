/**
 * StrykerJS's command for one mutant (`npm run test:mutation`): the mutated foreign server in the current folder
 * (Stryker's sandbox), started with the mutant Stryker names in `__STRYKER_ACTIVE_MUTANT__` (inherited), and the
 * conformance suite through conformance/examples/foreign-states.ts at --level seed. Exit 1 (killed) only when the suite
 * fails a named rule (its exit 1) or the server does not start; a run that fails nothing but leaves parts NOT TESTED
 * (its exit 3) is no kill: it exits 0, and its outcome goes to MUTATION_LOG (one JSON line per mutant) for run.ts to
 * count apart. Run alone, it holds the unmutated server.
 */
import { spawn } from "node:child_process";
import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { runConformance } from "../../conformance/src/run.ts";
import { FOREIGN } from "../support/foreign.ts";
import { reapWhenGone, root } from "../support/processes.ts";

const DELAYS = [300, 600, 900];
const server = resolve(process.env.MUTATION_SERVER ?? "server.mjs");
const certDir = mkdtempSync(join(tmpdir(), "mutation-"));
const child = spawn(process.execPath, [server], {
  env: { ...process.env, HOST: "127.0.0.1", PORT: "0", WEBHOOK_CA_FILE: join(certDir, "ca.pem"), WEBHOOK_RETRY_DELAYS_MS: DELAYS.join(","), WEBHOOK_TIMEOUT_MS: "2000", SIM_TALK_MS: "50", SIM_PROCESSING_MS: "100" },
  stdio: ["ignore", "pipe", "pipe"],
});
reapWhenGone(child.pid!, server);
/** The mutant's outcome (killed, not-tested, survived), noted for run.ts. */
const outcome = (kind: string, why: string) => {
  if (process.env.MUTATION_LOG) appendFileSync(process.env.MUTATION_LOG, `${JSON.stringify({ mutant: process.env.__STRYKER_ACTIVE_MUTANT__ ?? null, kind, why: why.slice(0, 400) })}\n`);
};
const finish = (code: number, why: string) => {
  outcome(code === 1 ? "killed" : why.startsWith("not tested") ? "not-tested" : "survived", why);
  process.stderr.write(`${why}\n`);
  child.kill("SIGKILL");
  rmSync(certDir, { recursive: true, force: true });
  process.exit(code);
};
let said = "";
const origin = await new Promise<string | null>((res) => {
  const timer = setTimeout(() => res(null), 10_000);
  const read = (chunk: Buffer) => {
    said += chunk.toString();
    const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(said);
    if (m) (clearTimeout(timer), res(m[1]));
  };
  child.stdout!.on("data", read);
  child.stderr!.on("data", read);
  child.once("exit", () => (clearTimeout(timer), res(null)));
});
if (!origin) finish(1, `killed: the mutated server did not start (${said.trim().slice(-300)})`);
const report = await runConformance({
  baseUrl: `${origin}/api`, apiKey: FOREIGN.acme, otherKey: FOREIGN.globex, publicKey: FOREIGN.publicKey, sim: false,
  states: join(root, "conformance/examples/foreign-states.ts"), level: "seed", seed: Number(process.env.MUTATION_SUITE_SEED ?? 20261127), runs: Number(process.env.MUTATION_RUNS ?? 10),
  receiver: "https", receiverCertDir: certDir, webhookRetryDelaysMs: DELAYS, webhookTimeoutMs: 2000, webhookWaitMs: 10_000, timeoutMs: 10_000,
}).catch((err: unknown) => finish(1, `killed: the suite could not run (${(err as Error).message})`));
const failures = report!.results.flatMap((r) => r.failures.map((f) => `${f.rule}: ${f.message.slice(0, 200)}`));
if (failures.length) finish(1, `killed: ${failures.slice(0, 3).join(" | ")}`);
// NOT TESTED is not a kill: the suite named no rule the mutant broke.
if (report!.exitCode !== 0) finish(0, `not tested: exit ${report!.exitCode} (${report!.untested.slice(0, 2).join("; ")})`);
finish(0, "survived: the suite passed");
