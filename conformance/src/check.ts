/** What a check is, what it gets, and how a property's failure becomes a reproducible report. */
import fc from "fast-check";
import type { Contract } from "./contract.ts";
import { CheckFailure, type Http, type Reply } from "./http.ts";

export interface RunOptions {
  baseUrl: string;
  apiKey: string;
  otherKey?: string;
  publicKey?: string;
  sim: boolean;
  seed: number;
  runs: number;
  only?: string[];
  metricsEngine?: string;
  webhookRetryDelaysMs: number[];
  /** Longest the webhook check may wait for the retry schedule; beyond it the tail is skipped, with the reason. */
  webhookBudgetMs: number;
  timeoutMs: number;
  onProgress?: (line: string) => void;
}

export interface Ctx {
  http: Http;
  other?: Http;
  contract: Contract;
  options: RunOptions;
  /** Prints a progress line (stderr in the CLI). */
  progress(message: string): void;
  /** Notes recorded in the report without failing (e.g. what part of a check was skipped). */
  note(message: string): void;
}

export interface Check {
  name: string;
  description: string;
  /** What the check needs beyond a base URL and a key; missing needs skip it with the reason. */
  needs?: Array<"sim" | "otherKey" | "publicKey">;
  /** Operations this check would have exercised; the coverage guard excuses them when the check is skipped. */
  operations?: string[];
  run(ctx: Ctx): Promise<void>;
}

/** Skips the rest of a check with a reason (not a failure). */
export class Skip extends Error {}

/**
 * Runs a fast-check property with the suite's seed and run count. On failure the shrunk counterexample, the
 * seed and path, and the curl of the failing request are attached to the thrown CheckFailure.
 */
export async function holds<T>(ctx: Ctx, label: string, arb: fc.Arbitrary<T>, predicate: (value: T) => Promise<void>, runs = ctx.options.runs): Promise<void> {
  let lastFailure: CheckFailure | undefined;
  const result = await fc.check(
    fc.asyncProperty(arb, async (value) => {
      try {
        await predicate(value);
      } catch (err) {
        if (err instanceof CheckFailure) lastFailure = err;
        throw err;
      }
    }),
    // Shrinking a walk is costly (each step walks a list again); after 20 s the smallest failure found so far is reported.
    { seed: ctx.options.seed, numRuns: runs, endOnFailure: false, interruptAfterTimeLimit: 20_000 },
  );
  if (result.failed) {
    const err = result.errorInstance as Error | undefined;
    const failure = new CheckFailure(`${label}: ${err?.message ?? "property failed"}`, {
      reply: lastFailure?.reply,
      details: { counterexample: result.counterexample?.[0], seed: result.seed, path: result.counterexample ? result.counterexamplePath : undefined, runs: result.numRuns, shrinks: result.numShrinks },
    });
    throw failure;
  }
}

/** Fails with the reply's curl when the contract judges it wrong. */
export function conforms(ctx: Ctx, reply: Reply, what: string): void {
  const problems = ctx.contract.judge(reply);
  if (problems.length) throw new CheckFailure(`${what}: ${problems.join("; ")}`, { reply });
}
