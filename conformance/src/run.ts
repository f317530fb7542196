/**
 * runConformance(options): runs the checks against a base URL and returns a report. Used by the CLI and by
 * the package's own self-test. The last check, `coverage`, fails the run when an operation of the contract
 * never answered a 2xx, except operations whose checks were skipped.
 */
import { Contract } from "./contract.ts";
import { Skip, type Check, type Ctx, type RunOptions } from "./check.ts";
import { checks } from "./checks/index.ts";
import { CheckFailure, Http } from "./http.ts";

export type { RunOptions } from "./check.ts";

export interface CheckResult {
  name: string;
  description: string;
  status: "passed" | "failed" | "skipped";
  reason?: string;
  /** A curl line reproducing the failing request (keys redacted). */
  curl?: string;
  /** Shrunk counterexample, seed and path of a failing property, or other evidence. */
  details?: unknown;
  notes: string[];
  durationMs: number;
}

export interface Report {
  baseUrl: string;
  seed: number;
  results: CheckResult[];
  passed: number;
  failed: number;
  skipped: number;
  requests: number;
  durationMs: number;
}

export const CHECK_NAMES = [...checks.map((c) => c.name), "coverage"];

function missingNeeds(check: Check, o: RunOptions): string | null {
  const missing = (check.needs ?? []).filter((n) => (n === "sim" ? !o.sim : n === "otherKey" ? !o.otherKey : !o.publicKey));
  if (!missing.length) return null;
  const flag = { sim: "--sim (writes: creates interviews, sets the webhook)", otherKey: "--other-key (a second project's key)", publicKey: "--public-key (the public SDK key)" };
  return `needs ${missing.map((m) => flag[m]).join(" and ")}`;
}

export async function runConformance(options: RunOptions): Promise<Report> {
  const started = Date.now();
  const contract = new Contract();
  const base = options.baseUrl.replace(/\/+$/, "");
  const http = new Http(base, options.apiKey, contract, options.timeoutMs);
  const other = options.otherKey ? new Http(base, options.otherKey, contract, options.timeoutMs) : undefined;
  const results: CheckResult[] = [];
  const excused = new Set<string>();
  const selected = checks.filter((c) => !options.only || options.only.includes(c.name));
  for (const check of checks) if (!selected.includes(check)) for (const op of check.operations ?? []) excused.add(op);

  for (const check of selected) {
    const notes: string[] = [];
    const ctx: Ctx = { http, other, contract, options, progress: (m) => options.onProgress?.(`  ${m}`), note: (m) => notes.push(m) };
    const t = Date.now();
    options.onProgress?.(`running ${check.name}…`);
    const need = missingNeeds(check, options);
    if (need) {
      for (const op of check.operations ?? []) excused.add(op);
      results.push({ name: check.name, description: check.description, status: "skipped", reason: need, notes, durationMs: 0 });
      continue;
    }
    try {
      await check.run(ctx);
      results.push({ name: check.name, description: check.description, status: "passed", notes, durationMs: Date.now() - t });
    } catch (err) {
      if (err instanceof Skip) {
        for (const op of check.operations ?? []) excused.add(op);
        results.push({ name: check.name, description: check.description, status: "skipped", reason: err.message, notes, durationMs: Date.now() - t });
      } else {
        const f = err instanceof CheckFailure ? err : new CheckFailure(`crashed: ${(err as Error)?.stack ?? err}`, {});
        results.push({ name: check.name, description: check.description, status: "failed", reason: f.message, curl: f.reply?.curl, details: f.details, notes, durationMs: Date.now() - t });
      }
    }
  }

  if (!options.only || options.only.includes("coverage")) {
    if (!options.publicKey) for (const op of contract.operations.filter((o) => o.auth === "public")) excused.add(op.operationId);
    if (!options.sim) for (const op of contract.operations.filter((o) => o.tag === "Simulation" || o.operationId === "putWebhook" || o.operationId === "deleteWebhook" || o.operationId === "getWebhook")) excused.add(op.operationId);
    const full = !options.only;
    const never = contract.operations.map((o) => o.operationId).filter((id) => !http.succeeded.has(id) && !excused.has(id));
    results.push(
      !full
        ? { name: "coverage", description: "every operation answered a 2xx at least once", status: "skipped", reason: "only meaningful on a full run (no --only)", notes: [], durationMs: 0 }
        : never.length
          ? { name: "coverage", description: "every operation answered a 2xx at least once", status: "failed", reason: `never answered 2xx: ${never.join(", ")}`, notes: [], durationMs: 0 }
          : { name: "coverage", description: "every operation answered a 2xx at least once", status: "passed", notes: excused.size ? [`excused (their checks were skipped): ${[...excused].sort().join(", ")}`] : [], durationMs: 0 },
    );
  }
  const count = (s: CheckResult["status"]) => results.filter((r) => r.status === s).length;
  return { baseUrl: base, seed: options.seed, results, passed: count("passed"), failed: count("failed"), skipped: count("skipped"), requests: http.count + (other?.count ?? 0), durationMs: Date.now() - started };
}
