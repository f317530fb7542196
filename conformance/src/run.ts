/**
 * runConformance(options): runs the checks against a base URL and returns a report. Used by the CLI and by
 * the package's own self-test.
 *
 * - Each check records every failure it sees (up to MAX_FAILURES), each under a rule with a level.
 * - What could not be exercised is NOT TESTED, listed in the report, and makes the run not green unless
 *   --allow-untested (a run must never look green with untested parts).
 * - The last check, `coverage`, fails when an operation never answered a 2xx; it blames only operations of
 *   checks that ran to the end (an operation whose check stopped early is listed as not judged).
 */
import { randomBytes } from "node:crypto";
import { Abort, assertions, Findings, Lacking, NotApplicable, NotTested, type Check, type ClassOutcome, type Ctx, type Finding, type PropertyCount, type RunOptions } from "./check.ts";
import { checks } from "./checks/index.ts";
import { experimentsRemoval } from "./checks/deprecated.ts";
import { Contract, responseRules } from "./contract.ts";
import { CheckFailure, Http, rateLimits } from "./http.ts";
import { levelTotals, rules, seed, contract as pinned, type Level, type Rule } from "./rules.ts";
import { statementVerdicts, type StatementVerdict } from "./seed/verdicts.ts";
import { ALL_CAPABILITIES, describeCapability, OPERATION_CAPABILITY, type Capability } from "./states/capabilities.ts";
import { HttpStates } from "./states/http.ts";
import { loadStates } from "./states/load.ts";
import { RunStates, stateRules } from "./states/run-states.ts";
import type { CreatedItem } from "./states/types.ts";

export type { RunOptions } from "./check.ts";

export const coverageRules = rules("coverage", {
  "seed-operations": seed("Endpoints", "every endpoint of the seed answered a 2xx at least once during the run", ["conventions.base-url", "versioning.v1", "errors.200"]),
  "simulation-operations": pinned("simulation surface", "with --sim, every simulation operation answered a 2xx at least once"),
  "participant-operations": pinned("participant endpoints (their fields are ours)", "with --public-key, every participant operation answered a 2xx at least once"),
});

export type Status = "passed" | "failed" | "not_tested" | "not_applicable";

export interface CheckResult {
  name: string;
  description: string;
  status: Status;
  /** Why the check did not run, or stopped early. */
  reason?: string;
  failures: Finding[];
  /** Failures of rules the chosen level does not enforce. */
  warnings: Finding[];
  /** Capabilities this check could not exercise. */
  untested: Array<{ capability: string; reason: string }>;
  /** Rules exercised by level: how many, and how many failed. */
  levels: Record<Level, { checked: number; failed: number }>;
  /** Every property it ran: cases run against cases asked, and whether time cut it short. */
  properties: PropertyCount[];
  /** Every rule exercised, with whether it held (failed: an enforced failure or a warning), and the statements it showed when not all it cites. */
  rules: Array<{ id: string; failed: boolean; statements?: string[] }>;
  /** Seed statement id -> the model commands (or other steps) that reached it. */
  reached: Record<string, string[]>;
  /** The covering phase's classes (the cover check): each reached or not, with the statements it stands for. */
  classes?: ClassOutcome[];
  ranToEnd: boolean;
  notes: string[];
  durationMs: number;
}

export interface Report {
  baseUrl: string;
  seed: number;
  level: Level;
  results: CheckResult[];
  passed: number;
  failed: number;
  notTested: number;
  notApplicable: number;
  warnings: number;
  /** Every capability not exercised, as `check: capability (reason)`. */
  untested: string[];
  /** Rules exercised over the whole run, by level. */
  levels: Record<Level, { checked: number; failed: number; warned: number }>;
  /** A verdict for every statement of the seed (seed/verdicts.ts). */
  statements: StatementVerdict[];
  /** This run's id: what the run creates carries it in its name. */
  runId: string;
  /**
   * How data was planted (the HTTP simulation surface, or a --states module) and which capabilities it offered.
   * `settled: false`: neither its probe nor a use in this run showed whether it is offered (it counts as offered).
   */
  states: { source: string; capabilities: Array<{ capability: Capability; offered: boolean; settled?: false; why?: string; decided?: string }> };
  /** Everything the run created, and whether it was removed afterwards. */
  created: Array<CreatedItem & { removed: boolean }>;
  /** Properties that ran fewer cases than asked because their time limit stopped them (a warning, not a failure). */
  cutShort: string[];
  requests: number;
  /** Requests the target answered 429 that the suite waited out and sent again (Http.req), and the time waited. */
  rateLimited?: { requests: number; waitedMs: number };
  durationMs: number;
  /** 0 all good; 1 failures; 3 nothing failed but parts were NOT TESTED (and --allow-untested was not given). */
  exitCode: number;
  /** The contract-checking proxy's report: traffic judged, nothing to replay by seed. */
  kind?: "proxy";
}

export const CHECK_NAMES = [...checks.map((c) => c.name), "coverage"];

/** Every rule the suite can assert, for the generated README table. */
export function allRules(): Rule[] {
  return [...Object.values(responseRules), ...checks.flatMap((c) => Object.values(c.rules)), ...Object.values(coverageRules), ...Object.values(stateRules)];
}

/** Rule id -> the check that declares it (response rules belong to no check; coverage's to coverage). */
function ruleOwners(): Map<string, string> {
  const out = new Map<string, string>();
  for (const c of checks) for (const rule of Object.values(c.rules)) out.set(rule.id, c.name);
  for (const rule of Object.values(coverageRules)) out.set(rule.id, "coverage");
  return out;
}

function missingNeeds(check: Check, o: RunOptions, states: RunStates): string | null {
  const flags = { sim: !(o.sim || o.states), otherKey: !o.otherKey, publicKey: !o.publicKey };
  const missing = (check.needs ?? []).filter((n): n is keyof typeof flags => n in flags && flags[n as keyof typeof flags]);
  const flag = { sim: "--sim or --states (writes: planted data, triggered interviews, webhook configuration)", otherKey: "--other-key (a second project's key)", publicKey: "--public-key (the public SDK key)" };
  if (missing.length) return `needs ${missing.map((m) => flag[m]).join(" and ")}`;
  const caps = (check.needs ?? []).filter((n): n is Capability => ALL_CAPABILITIES.includes(n as Capability));
  const lacking = states.caps.lacking(...caps);
  return lacking ? `needs ${describeCapability(lacking.capability)}: ${lacking.why}` : null;
}

/** Opens the run's provider states: a --states module, or the HTTP simulation surface (probed for what it offers). */
async function openStates(options: RunOptions, http: Http, contract: Contract, runId: string): Promise<{ states: RunStates; viaHttp?: HttpStates }> {
  const project = { apiKey: options.apiKey };
  const common = { runId, project, allowed: options.sim, given: options.capabilities, removed: options.without };
  if (options.states) {
    const provider = await loadStates(options.states, { baseUrl: http.baseUrl, apiKey: options.apiKey, otherKey: options.otherKey, runId });
    return { states: await RunStates.open(provider, { ...common, source: `the states module ${options.states}` }) };
  }
  const viaHttp = new HttpStates(http, (key) => new Http(http.baseUrl, key, contract, options.timeoutMs));
  return { states: await RunStates.open(viaHttp, { ...common, source: "the simulation surface (/_sim)" }), viaHttp };
}

const exercisedRules = (exercised: Findings["exercised"]) => [...exercised.values()].map(({ rule, failed, shown }) => ({ id: rule.id, failed, ...(shown ? { statements: [...shown].sort() } : {}) }));
const reachedOf = (findings: Findings) => Object.fromEntries([...findings.reached].map(([id, by]) => [id, [...by]]));

const byLevel = (exercised: Findings["exercised"]): CheckResult["levels"] => {
  const out = { seed: { checked: 0, failed: 0 }, contract: { checked: 0, failed: 0 } };
  for (const { rule, failed } of exercised.values()) {
    out[rule.level].checked++;
    if (failed) out[rule.level].failed++;
  }
  return out;
};

/** The target refused or could not be found: nothing can be judged, and it is almost always the base URL or a server not started. */
export class TargetUnreachable extends Error {}

/**
 * One request before any check (no key: a 401 is an answer like any other). A connection refused, a host unknown or a
 * reset before any answer stops the run with what to fix, instead of every check crashing on it; a target that is
 * slow to answer is judged by the checks, whose timeouts say so.
 */
async function reachable(base: string, timeoutMs: number): Promise<void> {
  try {
    const res = await fetch(`${base}/v1/studies`, { signal: AbortSignal.timeout(timeoutMs), redirect: "manual" });
    await res.body?.cancel();
  } catch (err) {
    const e = err as Error & { cause?: { code?: string; message?: string } };
    if (e.name === "TimeoutError" || e.name === "AbortError") return;
    throw new TargetUnreachable(`cannot reach the target at ${base} (${e.cause?.code ?? e.cause?.message ?? e.message}): is it running, and is --base-url its base URL, the part before /v1?`);
  }
}

/**
 * How a check that threw ended: NOT TESTED, not applicable, stopped at its failure limit, failed on the rule a
 * property threw (recording it may itself reach the limit: the check has stopped all the same), or crashed.
 */
export function checkEnded(err: unknown, findings: Findings, name: string): { status: Status; reason?: string } {
  if (err instanceof NotTested) {
    findings.untested.push({ capability: err instanceof Lacking ? `the whole check (needs ${describeCapability(err.capability)})` : "the whole check", reason: err instanceof Lacking ? err.why : err.message });
    return { status: "not_tested", reason: err.message };
  }
  if (err instanceof NotApplicable) return { status: "not_applicable", reason: err.message };
  if (err instanceof Abort) return { status: "passed", reason: `stopped early: ${err.message}` };
  if (err instanceof CheckFailure && err.rule) {
    try {
      findings.record(err.rule, false, err.message, err.reply, err.details);
    } catch (stop) {
      if (!(stop instanceof Abort)) throw stop;
      return { status: "passed", reason: `stopped early: ${stop.message}` };
    }
    return { status: "passed" };
  }
  // A walk that cannot go on, or a crash: recorded as a failure of the check itself.
  const f = err instanceof CheckFailure ? err : new CheckFailure(`crashed: ${(err as Error)?.stack ?? err}`, {});
  findings.failures.push({ rule: `${name}.completes`, level: "seed", message: f.message, curl: f.reply?.curl, details: f.details });
  return { status: "passed", reason: "stopped early" };
}

export async function runConformance(given: RunOptions): Promise<Report> {
  const started = Date.now();
  const limitedBefore = rateLimits(given.baseUrl);
  // A states module plants: it allows every write --sim allows, so nothing is gated on --sim alone.
  const options: RunOptions = { ...given, sim: given.sim || !!given.states };
  const level = options.level ?? "contract";
  const contract = new Contract();
  const base = options.baseUrl.replace(/\/+$/, "");
  const http = new Http(base, options.apiKey, contract, options.timeoutMs);
  const other = options.otherKey ? new Http(base, options.otherKey, contract, options.timeoutMs) : undefined;
  const runId = `run-${randomBytes(4).toString("hex")}`;
  await reachable(base, options.timeoutMs);
  const { states, viaHttp } = await openStates(options, http, contract, runId);
  const results: CheckResult[] = [];
  const notJudged = new Set<string>();
  const experimentsRemoved = await experimentsRemoval(http);
  const selected = checks.filter((c) => !options.only || options.only.includes(c.name));
  for (const check of checks) if (!selected.includes(check)) for (const op of check.operations ?? []) notJudged.add(op);

  /** Runs one check to its result; `http` and `states` act in the run's project unless a project of its own is given. */
  const runCheck = async (check: Check, scope?: { http: Http; states: RunStates }): Promise<CheckResult> => {
    const notes: string[] = [];
    const findings = new Findings(options);
    const judge = assertions(findings, contract);
    const contextOf = (asserting: typeof judge): Ctx => ({
      http: scope?.http ?? http, other, contract, options, states: scope?.states ?? states, experimentsRemoved, progress: (m) => options.onProgress?.(`  ${m}`), note: (m) => notes.push(m), ...asserting,
      async part(what, fn) {
        try {
          await fn();
        } catch (err) {
          if (!(err instanceof Lacking)) throw err;
          asserting.untested(`${what} (needs ${describeCapability(err.capability)})`, err.why);
        }
      },
      separately: () => contextOf(assertions(findings, contract, { inProperty: 0 })),
    });
    const ctx = contextOf(judge);
    // The simulation surface's answers are the contract's too: judged in the check that caused them.
    if (viaHttp && !scope) viaHttp.onReply = (reply, what) => judge.conforms(reply, what);
    const t = Date.now();
    options.onProgress?.(`running ${check.name}${scope ? " (beside the others, in a project of its own)" : ""}…`);
    let status: Status = "passed";
    let reason: string | undefined;
    let ranToEnd = true;
    const need = missingNeeds(check, options, states);
    try {
      if (need) throw new NotTested(need);
      await check.run(ctx);
    } catch (err) {
      ranToEnd = false;
      ({ status, reason } = checkEnded(err, findings, check.name));
    }
    if (scope) {
      // Its requests are the run's: counted, and their operations judged by coverage.
      http.absorb(scope.http);
      notes.push("ran beside the other checks, in a project of its own");
    }
    if (!ranToEnd) for (const op of check.operations ?? []) notJudged.add(op);
    // At --level seed, what a check of contract rules only could not exercise is not a gap: it is a note.
    if (level === "seed" && Object.values(check.rules).every((rule) => rule.level === "contract")) {
      for (const u of findings.untested.splice(0)) notes.push(`not exercised (contract rules only): ${u.capability} (${u.reason})`);
      if (status === "not_tested") status = "not_applicable";
    }
    if (findings.failures.length) status = "failed";
    return {
      name: check.name, description: check.description, status, reason, failures: findings.failures, warnings: findings.warnings,
      untested: status === "not_applicable" ? [] : findings.untested, levels: byLevel(findings.exercised), properties: findings.counts, rules: exercisedRules(findings.exercised), reached: reachedOf(findings),
      ...(findings.classes.length ? { classes: findings.classes } : {}), ranToEnd, notes, durationMs: Date.now() - t,
    };
  };

  // A check that mostly waits starts first, beside the others, in a project of its own (when the target creates one).
  const beside = new Map<Check, Promise<CheckResult>>();
  for (const check of selected) {
    if (!check.beside?.(options) || missingNeeds(check, options, states) || !states.has("create-project", "plant-study")) continue;
    const own = await states.createProject(`Conformance ${check.name}`).catch(() => undefined);
    if (!own) continue;
    const scope = { http: new Http(base, own.api_key, contract, options.timeoutMs), states: states.inProject({ apiKey: own.api_key }) };
    beside.set(check, runCheck(check, scope));
  }
  for (const check of selected) {
    if (!beside.has(check)) results.push(await runCheck(check));
  }
  // In the order the checks are listed, whatever order they ended in.
  for (const [check, result] of beside) results.splice(selected.indexOf(check), 0, await result);

  if (viaHttp) {
    viaHttp.onReply = null;
    // What it planted in projects the run created (with their keys) is the run's too: their 2xx operations count.
    for (const c of viaHttp.otherClients()) http.absorb(c);
  }
  // With --only, coverage judges the operations the selected checks declare (and ran to the end).
  const declared = options.only ? new Set(selected.flatMap((c) => c.operations ?? [])) : undefined;
  if (!options.only || options.only.includes("coverage")) results.push(coverage(contract, http, options, notJudged, states, !!viaHttp, declared, experimentsRemoved));

  // What the run created: the webhooks it configured are deleted; the rest is removed where the states module can.
  for (const [client, used] of [[http, http.succeeded.has("putWebhook")], [other, other?.succeeded.has("putWebhook")]] as const) if (client && used) states.webhook("the run's receiver", { apiKey: client.apiKey });
  const created = await states.cleanup(async (project) => {
    const client = project.apiKey === other?.apiKey ? other : http;
    const reply = await client.req("/v1/webhooks", { method: "DELETE" }).catch(() => undefined);
    return reply !== undefined && (reply.status === 204 || reply.status === 404);
  });
  const cutShort = results.flatMap((r) => r.properties.filter((p) => p.cut).map((p) => `${r.name}: ${p.label} ran ${p.ran} of ${p.asked} cases within its ${p.limitMs / 1000} s limit (${r.name === "model" ? "--model-budget-ms" : "--property-time-ms"} raises it)`));

  const count = (s: Status) => results.filter((r) => r.status === s).length;
  const levels = levelTotals(results);
  const untested = results.flatMap((r) => r.untested.map((u) => `${r.name}: ${u.capability} (${u.reason})`));
  const failed = count("failed");
  const limitedAfter = rateLimits(options.baseUrl);
  return {
    baseUrl: base, seed: options.seed, level, results, runId, states: { source: states.source, capabilities: states.report() }, created, cutShort, statements: statementVerdicts(results, allRules(), { only: options.only, checkOfRule: ruleOwners() }), passed: count("passed"), failed, notTested: untested.length, notApplicable: count("not_applicable"),
    warnings: results.reduce((s, r) => s + r.warnings.length, 0), untested, levels,
    requests: http.count + (other?.count ?? 0), durationMs: Date.now() - started,
    rateLimited: { requests: limitedAfter.requests - limitedBefore.requests, waitedMs: limitedAfter.waitedMs - limitedBefore.waitedMs },
    exitCode: failed > 0 ? 1 : untested.length > 0 && !options.allowUntested ? 3 : 0,
  };
}

function coverage(contract: Contract, http: Http, options: RunOptions, notJudged: Set<string>, states: RunStates, viaHttp: boolean, declared?: Set<string>, experimentsRemoved?: string): CheckResult {
  const findings = new Findings(options);
  const result = (status: Status, reason?: string, notes: string[] = []): CheckResult => ({
    name: "coverage", description: "every operation answered a 2xx at least once", status, reason, failures: findings.failures, warnings: findings.warnings,
    untested: [], levels: byLevel(findings.exercised), properties: [], rules: exercisedRules(findings.exercised), reached: {}, ranToEnd: true, notes, durationMs: 0,
  });
  if (declared && !declared.size) return result("not_applicable", "none of the checks given with --only declares operations");
  // Simulation operations are judged only when the run planted through them and the target offers their capability;
  // the sandbox's own tooling never is.
  const simOffered = (operationId: string) => viaHttp && OPERATION_CAPABILITY[operationId] !== undefined && states.used.has(OPERATION_CAPABILITY[operationId]) && states.has(OPERATION_CAPABILITY[operationId]);
  // A removed deprecated endpoint (past its day) is not offered: it owes no 2xx.
  const offered = contract.operations.filter((o) => (o.tag === "Simulation" ? simOffered(o.operationId) : o.auth === "public" ? !!options.publicKey : true) && (!declared || declared.has(o.operationId)) && !(experimentsRemoved && o.operationId === "listExperiments"));
  const judged = offered.filter((o) => !notJudged.has(o.operationId));
  const skipped = offered.filter((o) => notJudged.has(o.operationId) && !http.succeeded.has(o.operationId)).map((o) => o.operationId);
  for (const o of judged) {
    const rule = o.tag === "Simulation" ? coverageRules["simulation-operations"] : o.auth === "public" ? coverageRules["participant-operations"] : coverageRules["seed-operations"];
    findings.record(rule, http.succeeded.has(o.operationId), `${o.operationId} (${o.method} ${o.path}) never answered a 2xx`);
  }
  const notes = skipped.length ? [`not judged, never answered a 2xx but their checks did not run to the end or were not run: ${skipped.sort().join(", ")}`] : [];
  if (experimentsRemoved) notes.push(`listExperiments not judged: ${experimentsRemoved}`);
  return result(findings.failures.length ? "failed" : "passed", undefined, notes);
}
