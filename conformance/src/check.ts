/**
 * What a check is, what it gets, and how its assertions are recorded.
 *
 * Assertions are soft: `ctx.expect(rule, ok, ...)` records a failure (up to MAX_FAILURES per check) and the
 * check goes on, so one run shows every bug it can see. A rule the chosen level does not enforce becomes a
 * warning. `ctx.must` stops the check when going on makes no sense; inside a fast-check property (`holds`)
 * an enforced failure throws, so fast-check can shrink it, and the shrunk case is recorded with its seed.
 */
import fc from "fast-check";
import type { Contract } from "./contract.ts";
import { CheckFailure, type Http, type Reply } from "./http.ts";
import type { Level, Rule } from "./rules.ts";
import { statementsShownBy } from "./seed/scope.ts";
import type { Capability } from "./states/capabilities.ts";
import type { RunStates } from "./states/run-states.ts";

export type ReceiverMode = "auto" | "http" | "https";

/** The per-request timeout `--timeout-ms` defaults to. */
export const DEFAULT_TIMEOUT_MS = 15_000;

export interface RunOptions {
  baseUrl: string;
  apiKey: string;
  otherKey?: string;
  publicKey?: string;
  /** Allow writes: planting through the states module, webhook configuration (implied by `states`). */
  sim: boolean;
  /** A provider-states module (JavaScript or TypeScript) to plant data with, instead of the HTTP simulation surface. */
  states?: string;
  /** Capabilities to leave out of this run, whatever the target offers. */
  without?: Capability[];
  /** The capabilities the target offers, instead of detecting them (or asking the states module's `capabilities()`). */
  capabilities?: Capability[];
  seed: number;
  runs: number;
  only?: string[];
  /**
   * The covering phase's units to run (by name), instead of all of them: what a fixed case needs to reach its rule, in
   * seconds (test/conformance/cover.test.ts). The rest are left out of the run, not counted as unreached.
   */
  coverUnits?: string[];
  /** `seed` enforces seed rules only; `contract` (default) enforces both. */
  level?: Level;
  /** Exit 0 even when parts could not be exercised (they are still listed as NOT TESTED). */
  allowUntested?: boolean;
  /** Module exporting computeMetric; without it the metrics check is not applicable. */
  metricsEngine?: string;
  webhookRetryDelaysMs: number[];
  /** Longest the retries check may wait for the retry schedule (default: the whole configured schedule); beyond it the tail is NOT TESTED. */
  webhookBudgetMs?: number;
  /**
   * The model run's time budget, shrinking included; new sequences stop being drawn past it. Default: measured on the
   * target (three times the mean batch's time for every batch asked).
   */
  modelBudgetMs?: number;
  /** Sequences side by side, each worker in a project of its own (default 5; 1 where the target creates no projects). */
  modelWorkers?: number;
  /** Longest wait for a first delivery (default 35 s: the seed's 5 to 30 s, plus 5). */
  webhookWaitMs?: number;
  /** The receiver timeout the service is configured with (the seed's 10 s by default). */
  webhookTimeoutMs?: number;
  /** Answer just under and just over the receiver timeout, to observe it (costs about the timeout plus the first retry delay). */
  slowReceiver?: boolean;
  /** `auto` tries an http:// loopback receiver, then https:// with a certificate made at run time. */
  receiver?: ReceiverMode;
  /** URL the service must call to reach the suite's receiver, when it is not the receiver's own address. */
  receiverUrl?: string;
  /** Where the receiver listens (`host:port`); default 127.0.0.1 on a free port. */
  receiverListen?: string;
  /** Folder for the receiver's generated certificate (`ca.pem`); default a new temporary folder. */
  receiverCertDir?: string;
  /** Per-request timeout (the command's default: DEFAULT_TIMEOUT_MS). */
  timeoutMs: number;
  /** The longest a property (other than the model, which has --model-budget-ms) may run before it stops drawing cases. */
  propertyTimeMs?: number;
  onProgress?: (line: string) => void;
}

export const MAX_FAILURES = 20;

/** A property's default time limit (--property-time-ms); past it no new case is drawn, and the report says so. */
export const PROPERTY_TIME_MS = 20_000;

/**
 * The least share of its cases a property must complete to count: one that completed none, or that its time limit cut
 * below half of the cases asked (rounded up), is NOT TESTED (exit 3), named with how to give it more time.
 */
export const PROPERTY_FLOOR = 0.5;
export const propertyFloor = (asked: number) => Math.max(1, Math.ceil(asked * PROPERTY_FLOOR));

/** One class of the covering phase: reached or not, and the seed statements it stands for. */
export interface ClassOutcome {
  unit: string;
  cls: string;
  reached: boolean;
  statements: string[];
}

export interface PropertyCount {
  label: string;
  ran: number;
  asked: number;
  /** Its time limit stopped it before it ran every case asked. */
  cut: boolean;
  limitMs: number;
}

export interface Finding {
  rule: string;
  level: Level;
  message: string;
  curl?: string;
  details?: unknown;
}

export interface Ctx {
  http: Http;
  other?: Http;
  contract: Contract;
  options: RunOptions;
  /** How the run plants data: the states module and the capabilities it offers. */
  states: RunStates;
  /**
   * Set when GET /v1/experiments with the run's key answered 404 or 410 past July 1, 2026, the day after which the seed
   * removes it: why the run reads it as removed. What judges its answers (the experiments report's contents, its
   * announcement headers) is then not applicable; the deprecated check judges it gone for every request instead.
   */
  experimentsRemoved?: string;
  /**
   * Runs one part of a check that plants through `states`: a capability found missing there makes this part, and only
   * it, NOT TESTED, naming the capability and what it would have judged.
   */
  part(what: string, fn: () => Promise<void>): Promise<void>;
  /**
   * This check's context for work that runs beside the rest of it (a covering unit beside the others): its properties
   * are its own, so a failure it records while another part's property runs is recorded, not thrown as that property's.
   */
  separately(): Ctx;
  /** Prints a progress line (stderr in the CLI). */
  progress(message: string): void;
  /** Notes recorded in the report without failing. */
  note(message: string): void;
  /** Records that `rule` was exercised; on `!ok`, a failure (or a warning when the level does not enforce it). */
  expect(rule: Rule, ok: unknown, message: string, reply?: Reply, details?: unknown): boolean;
  /** Like expect, but an enforced failure ends the check (nothing after it can be judged). */
  must(rule: Rule, ok: unknown, message: string, reply?: Reply, details?: unknown): boolean;
  /** Records the contract's judgement of a reply, each problem under its own rule. */
  conforms(reply: Reply, what: string): void;
  /** A capability this check could not exercise: listed as NOT TESTED, and the run is not green without --allow-untested. */
  untested(capability: string, reason: string): void;
  /** Records the covering phase's classes, reached or not (a statement with a class unreached is NOT TESTED). */
  covered(outcomes: ClassOutcome[]): void;
  /** Records that `by` (a model command, say) exercised these seed statements, for the per-statement report. */
  reached(statements: string[], by: string): void;
  /** Runs a fast-check property; its shrunk failure is recorded under the rule the predicate broke. */
  holds<T>(label: string, arb: fc.Arbitrary<T>, predicate: (value: T) => Promise<void>, runs?: number, explain?: Explain<T>, timeLimitMs?: number, counted?: Counted, examples?: T[]): Promise<{ runs: number }>;
}

/**
 * What was wrong, in words: each `[wrong, what]` pair whose `wrong` holds, joined ("the signing secret was present").
 * Empty when nothing is wrong. A failure message names the fault, not only the status it came with.
 */
export function wrongs(...cases: Array<[unknown, string]>): string {
  return cases.filter(([wrong]) => wrong).map(([, what]) => what).join("; ");
}

/**
 * What a property counts when a case is not one unit (a model run's case is a batch of sequences side by side, and
 * cases past its measured budget do nothing): the units it ran, and those asked.
 */
export interface Counted {
  ran(): number;
  asked: number;
}

/** Turns a shrunk counterexample into its reproduction (a model run replays the sequence and logs its curl lines). */
export type Explain<T> = (value: T) => Promise<{ curl?: string; details?: unknown }>;

export { Abort, Lacking, NotApplicable, NotTested } from "./outcomes.ts";
import { Abort, NotApplicable, NotTested } from "./outcomes.ts";

export function enforced(rule: Rule, options: RunOptions): boolean {
  return rule.level === "seed" || (options.level ?? "contract") === "contract";
}

/** Whose properties make a failure throw: a check's (its Findings), or a part of it running beside the rest. */
export interface PropertyScope {
  inProperty: number;
}

/** The per-check recorder behind Ctx's assertion methods. */
export class Findings {
  readonly failures: Finding[] = [];
  readonly warnings: Finding[] = [];
  /**
   * Rules exercised, with whether they held, and the statements their holding showed: null for all they cite, or
   * the ones the replies they held on could show (a rule judged on every reply: seed/scope.ts).
   */
  readonly exercised = new Map<string, { rule: Rule; failed: boolean; shown: Set<string> | null }>();
  readonly untested: Array<{ capability: string; reason: string }> = [];
  /** Seed statement id -> what reached it (model commands), beyond the rules that cite it. */
  readonly reached = new Map<string, Set<string>>();
  /** The covering phase's classes: each reached or not, with the statements it stands for. */
  readonly classes: ClassOutcome[] = [];
  /** Every property run: cases run against cases asked, and whether its time limit cut it short. */
  readonly counts: PropertyCount[] = [];
  /**
   * > 0 while a fast-check property of this check runs: enforced failures then throw, so the property fails and shrinks.
   * Work of the check that runs beside a property (a covering unit beside another's) asserts through a scope of its own.
   */
  inProperty = 0;

  constructor(readonly options: RunOptions) {}

  record(rule: Rule, ok: unknown, message: string, reply?: Reply, details?: unknown, shows?: string[], scope: PropertyScope = this): boolean {
    let seen = this.exercised.get(rule.id);
    if (!seen) this.exercised.set(rule.id, (seen = { rule, failed: false, shown: new Set() }));
    if (!ok) seen.failed = true;
    else if (!shows) seen.shown = null;
    else if (seen.shown) for (const s of shows) seen.shown.add(s);
    if (ok) return true;
    const finding: Finding = { rule: rule.id, level: rule.level, message, curl: reply?.curl, details };
    if (!enforced(rule, this.options)) {
      if (this.warnings.length < MAX_FAILURES && !this.warnings.some((w) => w.rule === rule.id && w.message === message)) this.warnings.push(finding);
      return false;
    }
    if (scope.inProperty > 0) throw new CheckFailure(message, { reply, details, rule });
    if (!this.failures.some((f) => f.rule === rule.id && f.message === message)) this.failures.push(finding);
    if (this.failures.length >= MAX_FAILURES) throw new Abort(`stopped after ${MAX_FAILURES} failures`);
    return false;
  }
}

export interface Check {
  name: string;
  description: string;
  /** Every rule the check asserts (the README's table is generated from these). */
  rules: Record<string, Rule>;
  /**
   * What the check needs beyond a base URL and a key: writes (`sim`), a second project's key, the public key, and the
   * provider-states capabilities without which none of it can run. Without one the check is NOT TESTED, with the reason;
   * capabilities only some parts need are declared by those parts (`ctx.part`).
   */
  needs?: Array<"sim" | "otherKey" | "publicKey" | Capability>;
  /** Operations the check exercises; coverage does not blame them when the check did not run to the end. */
  operations?: string[];
  /**
   * Whether it mostly waits (a long retry schedule): then it runs beside the other checks, in a project of its own,
   * where the target creates projects; otherwise in its turn, in the run's project, on a quiet service.
   */
  beside?: (options: RunOptions) => boolean;
  run(ctx: Ctx): Promise<void>;
}

/**
 * Runs a fast-check property with the suite's seed and run count. An enforced failure inside the predicate
 * fails the property; the shrunk counterexample, seed and path, and the curl of the failing request are
 * recorded under the failing rule, and the check goes on.
 */
async function holds<T>(options: RunOptions, findings: Findings, scope: PropertyScope, label: string, arb: fc.Arbitrary<T>, predicate: (value: T) => Promise<void>, runs = options.runs, explain?: Explain<T>, timeLimitMs = options.propertyTimeMs ?? PROPERTY_TIME_MS, counted?: Counted, examples: T[] = []): Promise<{ runs: number }> {
  let lastFailure: CheckFailure | undefined;
  // The case running when the time limit struck: fast-check stops waiting for it, the check does not (a case left
  // running would go on talking to the server, and judging, after its check has cleaned up).
  let running: Promise<unknown> = Promise.resolve();
  scope.inProperty++;
  let result: fc.RunDetails<[T]>;
  try {
    result = await fc.check(
      fc.asyncProperty(arb, (value) => {
        const run = (async () => {
          try {
            await predicate(value);
          } catch (err) {
            if (err instanceof CheckFailure) lastFailure = err;
            throw err;
          }
        })();
        running = run.catch(() => undefined);
        return run;
      }),
      // Shrinking a walk is costly (each step walks a list again); after 20 s the smallest failure found so far is reported.
      // Examples run first, every run, and count among the runs; fast-check does not shrink them (they are fixed).
      { seed: options.seed, numRuns: runs, endOnFailure: false, interruptAfterTimeLimit: timeLimitMs, examples: examples.map((x) => [x] as [T]) },
    );
    await running;
  } finally {
    scope.inProperty--;
  }
  // A case cut off by the time limit is not a failure (fast-check reports it without an error): the property was cut short.
  const cutOff = result.failed && result.interrupted && !lastFailure && result.errorInstance == null;
  // Honest counts: every property says how many cases it ran of how many were asked, and whether time cut it short.
  const [ran, asked] = counted ? [counted.ran(), counted.asked] : [result.numRuns, runs];
  const cut = (result.interrupted && (!result.failed || cutOff)) || (!result.failed && ran < asked);
  findings.counts.push({ label, ran, asked, cut, limitMs: timeLimitMs });
  if (!result.failed || cutOff) {
    // Too few cases to count: the property says nothing it could have failed on.
    if (ran < propertyFloor(asked)) {
      const why = ran === 0 ? "it completed no case" : `it completed ${ran} of ${asked} cases, under the floor of ${propertyFloor(asked)} (half of those asked)`;
      findings.untested.push({ capability: `the property "${label}"`, reason: `${why} within ${counted ? "its budget" : `its ${timeLimitMs / 1000} s limit`} (the target answered too slowly for it; ${label === "model-based run" ? "--model-budget-ms" : "--property-time-ms"} raises the limit)` });
    }
    return { runs: ran };
  }
  const err = result.errorInstance as Error | undefined;
  // A capability found missing inside the property is NOT TESTED, not a failure.
  if (err instanceof NotTested || err instanceof NotApplicable) throw err;
  const evidence = { counterexample: result.counterexample?.[0], seed: result.seed, path: result.counterexample ? result.counterexamplePath : undefined, runs: result.numRuns, shrinks: result.numShrinks };
  if (lastFailure?.rule) {
    const shown = explain && result.counterexample ? await explain(result.counterexample[0]) : undefined;
    const reply = shown?.curl !== undefined ? ({ ...(lastFailure.reply ?? {}), curl: shown.curl } as Reply) : lastFailure.reply;
    findings.record(lastFailure.rule, false, `${label}: ${err?.message ?? "property failed"}`, reply, shown ? { ...evidence, counterexample: undefined, ...(shown.details as object) } : evidence, undefined, scope);
    return { runs: result.numRuns };
  }
  throw new Error(`${label}: ${err?.stack ?? err}`);
}

/** Makes the Ctx assertion methods for one check. */
export function assertions(findings: Findings, contract: Contract, scope: PropertyScope = findings): Pick<Ctx, "expect" | "must" | "conforms" | "untested" | "holds" | "reached" | "covered"> {
  return {
    covered(outcomes) {
      findings.classes.push(...outcomes);
    },
    reached(statements, by) {
      for (const id of statements) {
        if (!findings.reached.has(id)) findings.reached.set(id, new Set());
        findings.reached.get(id)!.add(by);
      }
    },
    holds: (label, arb, predicate, runs, explain, timeLimitMs, counted, examples) => holds(findings.options, findings, scope, label, arb, predicate, runs, explain, timeLimitMs, counted, examples),
    expect: (rule, ok, message, reply, details) => findings.record(rule, ok, message, reply, details, undefined, scope),
    must(rule, ok, message, reply, details) {
      const held = findings.record(rule, ok, message, reply, details, undefined, scope);
      if (!held && enforced(rule, findings.options)) throw new Abort(message);
      return held;
    },
    conforms(reply, what) {
      const problems = contract.judge(reply);
      const operation = contract.match(reply.method, reply.path.split("?")[0])?.operationId;
      // Every rule judge() knows is exercised; the ones with problems fail. Holding on this reply shows only the
      // statements a reply of this operation can show.
      for (const rule of contract.judgedRules(reply)) {
        const mine = problems.filter((p) => p.rule === rule.id);
        findings.record(rule, mine.length === 0, `${what}: ${mine.map((p) => p.message).join("; ")}`, reply, undefined, statementsShownBy(rule.cites, operation), scope);
      }
    },
    untested(capability, reason) {
      if (!findings.untested.some((u) => u.capability === capability)) findings.untested.push({ capability, reason });
    },
  };
}
