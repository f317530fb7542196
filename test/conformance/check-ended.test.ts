// How a check that threw ends (conformance/src/run.ts, checkEnded): a property's failure that is the check's twentieth
// stops the check like any other, where it once escaped the run and took the whole report with it.
import { describe, expect, it } from "vitest";
import { checkEnded } from "../../conformance/src/run.ts";
import fc from "fast-check";
import { assertions, Findings, MAX_FAILURES, NotTested } from "../../conformance/src/check.ts";
import { Contract } from "../../conformance/src/contract.ts";
import { CheckFailure } from "../../conformance/src/http.ts";
import { seed } from "../../conformance/src/rules.ts";

const rule = { id: "test.rule", ...seed("Errors", "a rule of this test", ["errors.400"]) };
const contract = new Contract();
const options = { baseUrl: "http://127.0.0.1:9/api", apiKey: "svc_live_x", sim: false, seed: 1, runs: 1, webhookRetryDelaysMs: [10_000, 60_000, 300_000], timeoutMs: 15_000 };

describe("a check that threw", () => {
  it("ends stopped, with its failures kept, when the rule a property threw is its twentieth failure", () => {
    const findings = new Findings(options);
    for (let i = 1; i < MAX_FAILURES; i++) findings.record(rule, false, `failure ${i}`);
    const ended = checkEnded(new CheckFailure("the last one", { rule }), findings, "demo");
    expect(ended).toEqual({ status: "passed", reason: `stopped early: stopped after ${MAX_FAILURES} failures` });
    expect(findings.failures.map((f) => f.message)).toEqual([...Array.from({ length: MAX_FAILURES - 1 }, (_, i) => `failure ${i + 1}`), "the last one"]);
  });

  it("records a property's failure under its rule below the limit, and a crash under the check's own", () => {
    const findings = new Findings(options);
    expect(checkEnded(new CheckFailure("wrong", { rule }), findings, "demo")).toEqual({ status: "passed" });
    expect(checkEnded(new TypeError("boom"), findings, "demo")).toEqual({ status: "passed", reason: "stopped early" });
    expect(findings.failures.map((f) => f.rule)).toEqual(["test.rule", "demo.completes"]);
    expect(findings.failures[1].message).toMatch(/^crashed: TypeError: boom/);
  });

  it("is NOT TESTED, with the reason, when it could not run", () => {
    const findings = new Findings(options);
    expect(checkEnded(new NotTested("needs a second key"), findings, "demo")).toEqual({ status: "not_tested", reason: "needs a second key" });
    expect(findings.untested).toEqual([{ capability: "the whole check", reason: "needs a second key" }]);
  });
});

// The covering phase runs its units side by side, and one unit's run holds a property: a failure another unit records
// meanwhile is that unit's, recorded, and its run goes on. It once threw as the property's (the check counted its
// properties running, not whose), which stopped the other unit at its first failure and lost the rest of it.
describe("a property running beside other work of its check", () => {
  it("fails on a failure inside its cases, while a failure recorded beside it, in a scope of its own, is recorded and does not throw", async () => {
    const findings = new Findings(options);
    const unitA = assertions(findings, contract, { inProperty: 0 });
    const unitB = assertions(findings, contract, { inProperty: 0 });
    const other = { id: "test.beside", ...seed("Errors", "another unit's rule", ["errors.404"]) };
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let caseStarted!: () => void;
    const started = new Promise<void>((resolve) => (caseStarted = resolve));
    const property = unitA.holds("a property that fails at 3", fc.integer({ min: 0, max: 5 }), async (n) => {
      caseStarted();
      await released;
      unitA.expect(rule, n < 3, `${n} is 3 or more`);
    }, 20);
    await started;
    // Beside it, while one of its cases waits: two failures of another rule, and the work after them goes on.
    let after = false;
    unitB.expect(other, false, "the first failure beside it");
    unitB.expect(other, false, "the second failure beside it");
    after = true;
    release();
    await property;
    expect(after).toBe(true);
    expect(findings.failures.filter((f) => f.rule === "test.beside").map((f) => f.message)).toEqual(["the first failure beside it", "the second failure beside it"]);
    const failed = findings.failures.find((f) => f.rule === "test.rule");
    expect(failed?.message).toMatch(/^a property that fails at 3: /);
    expect((failed?.details as { counterexample?: unknown }).counterexample).toBe(3);
  });

  it("records, without throwing, what a case left running does after its property is done", async () => {
    const findings = new Findings(options);
    const ctx = assertions(findings, contract);
    let late!: Promise<void>;
    await ctx.holds("a property whose case leaves a timer", fc.constant(1), async () => {
      late = new Promise((resolve) => setTimeout(() => {
        ctx.expect(rule, false, "judged after the property");
        resolve();
      }, 20));
    }, 1);
    await late;
    expect(findings.failures.map((f) => f.message)).toEqual(["judged after the property"]);
  });
});
