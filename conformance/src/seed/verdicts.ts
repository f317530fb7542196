/**
 * A verdict for every statement of the seed, from what the run exercised:
 * - `excused`: no rule can test it (the matrix's excuse says why);
 * - `failed`: a seed rule citing it failed; the failures carry their reproducible request or shortest sequence;
 * - `passed`: a seed rule citing it was exercised and held, and none failed;
 * - `not_tested`: no rule citing it was exercised; the reason names the capability that was missing (the check's
 *   NOT TESTED reason, a flag, or `--only`).
 * An implementer reads this first: every statement, its quote, and what the run found.
 */
import type { Level, Rule } from "../rules.ts";
import { statements } from "./statements.ts";

export type StatementOutcome = "passed" | "failed" | "not_tested" | "excused";

export interface StatementVerdict {
  id: string;
  section: string;
  quote: string;
  verdict: StatementOutcome;
  /** Excused: the excuse. Not tested: the capability missing. */
  reason?: string;
  /** The seed rules citing it, each with what became of it in this run. */
  rules: Array<{ id: string; outcome: "held" | "failed" | "not_reached" }>;
  /** Model commands (or other steps) that reached it. */
  reachedBy: string[];
  /** For a failure: what was wrong, and how to reproduce it (a curl line, or the shortest sequence). */
  failures: Array<{ rule: string; message: string; curl?: string; details?: unknown }>;
}

/** What the verdicts need of a check's result (run.ts's CheckResult has this shape). */
export interface CheckOutcome {
  name: string;
  status: "passed" | "failed" | "not_tested" | "not_applicable";
  reason?: string;
  failures: Array<{ rule: string; level: Level; message: string; curl?: string; details?: unknown }>;
  untested: Array<{ capability: string; reason: string }>;
  rules: Array<{ id: string; failed: boolean; statements?: string[] }>;
  reached: Record<string, string[]>;
  /** The covering phase's classes: a statement one of them stands for is NOT TESTED while that class was not reached. */
  classes?: Array<{ unit: string; cls: string; reached: boolean; statements: string[] }>;
  notes?: string[];
}

export interface VerdictOptions {
  only?: string[];
  /** Rule id -> the check that declares it. */
  checkOfRule?: Map<string, string>;
}

/** Why no rule citing a statement was exercised: the owning checks' NOT TESTED reasons, or that they were not run. */
function missing(rules: Rule[], results: CheckOutcome[], options: VerdictOptions): string {
  const reasons = new Set<string>();
  const only = options.only;
  for (const rule of rules) {
    // The check that declares the rule (a rule id's prefix is not always its check: retries asserts webhooks.* rules).
    const name = options.checkOfRule?.get(rule.id) ?? rule.id.split(".")[0];
    const result = results.find((r) => r.name === name);
    if (name === "response") reasons.add("no reply that this rule judges was received");
    else if (!result) reasons.add(only && !only.includes(name) ? `the ${name} check was not run (--only ${only.join(",")})` : `the ${name} check was not run`);
    else if (result.status === "not_tested" || result.status === "not_applicable") reasons.add(`${name}: ${result.reason ?? "not tested"}`);
    else if (result.untested.length) for (const u of result.untested) reasons.add(`${name}: ${u.capability} (${u.reason})`);
    else reasons.add(`${name} ran${result.status === "failed" ? " and failed elsewhere" : ""} but did not reach ${rule.id}${result.reason ? ` (${result.reason})` : ""}${result.notes?.length ? `; its notes: ${result.notes.join("; ")}` : ""}`);
  }
  return [...reasons].join("; ");
}

export function statementVerdicts(results: CheckOutcome[], rules: Rule[], options: VerdictOptions): StatementVerdict[] {
  const exercised = new Map<string, boolean>();
  /** Rule id -> the statements its holding showed (null: every statement it cites). */
  const shown = new Map<string, Set<string> | null>();
  for (const r of results) {
    for (const x of r.rules) {
      exercised.set(x.id, (exercised.get(x.id) ?? false) || x.failed);
      const before = shown.get(x.id);
      if (before === null || !x.statements) shown.set(x.id, null);
      else shown.set(x.id, new Set([...(before ?? []), ...x.statements]));
    }
  }
  const showed = (rule: string, statement: string) => shown.get(rule) === null || !!shown.get(rule)?.has(statement);
  const failures = results.flatMap((r) => r.failures.filter((f) => f.level === "seed"));
  const reached = new Map<string, Set<string>>();
  for (const r of results) for (const [id, by] of Object.entries(r.reached)) for (const b of by) (reached.get(id) ?? reached.set(id, new Set()).get(id)!).add(b);

  const unreached = new Map<string, string[]>();
  for (const r of results) for (const c of r.classes ?? []) if (!c.reached) for (const id of c.statements) (unreached.get(id) ?? unreached.set(id, []).get(id)!).push(`${c.unit}: ${c.cls}`);

  return statements.map((s) => {
    const citing = rules.filter((r) => r.level === "seed" && r.cites.includes(s.id));
    const base = { id: s.id, section: s.section, quote: s.quote, reachedBy: [...(reached.get(s.id) ?? [])].sort() };
    if (!citing.length) return { ...base, verdict: "excused" as const, reason: s.excuse ?? "no seed rule cites it", rules: [], failures: [] };
    const outcomes = citing.map((r) => {
      const failed = failures.some((f) => f.rule === r.id);
      // Held only where its evidence could have shown this statement (a rule judged on every reply holds for the
      // statements of the replies it held on).
      const outcome: "held" | "failed" | "not_reached" = failed ? "failed" : exercised.has(r.id) ? (exercised.get(r.id) ? "failed" : showed(r.id, s.id) ? "held" : "not_reached") : "not_reached";
      return { id: r.id, outcome };
    });
    const mine = failures.filter((f) => citing.some((r) => r.id === f.rule)).map(({ rule, message, curl, details }) => ({ rule, message, curl, details }));
    if (mine.length) return { ...base, verdict: "failed" as const, rules: outcomes, failures: mine };
    // Every class of the covering phase that stands for it must have been reached: otherwise it is not tested, named.
    const classes = unreached.get(s.id);
    if (classes) return { ...base, verdict: "not_tested" as const, reason: `cover: classes not reached: ${[...new Set(classes)].join(", ")}`, rules: outcomes, failures: [] };
    if (outcomes.some((o) => o.outcome === "held")) return { ...base, verdict: "passed" as const, rules: outcomes, failures: [] };
    return { ...base, verdict: "not_tested" as const, reason: missing(citing, results, options), rules: outcomes, failures: [] };
  });
}

/** Counts per verdict, in a fixed order. */
export function verdictCounts(verdicts: StatementVerdict[]): Record<StatementOutcome, number> {
  const out: Record<StatementOutcome, number> = { passed: 0, failed: 0, not_tested: 0, excused: 0 };
  for (const v of verdicts) out[v.verdict]++;
  return out;
}
