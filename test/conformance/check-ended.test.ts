// How a check that threw ends (conformance/src/run.ts, checkEnded): a property's failure that is the check's twentieth
// stops the check like any other, where it once escaped the run and took the whole report with it.
import { describe, expect, it } from "vitest";
import { checkEnded } from "../../conformance/src/run.ts";
import { Findings, MAX_FAILURES, NotTested } from "../../conformance/src/check.ts";
import { CheckFailure } from "../../conformance/src/http.ts";
import { seed } from "../../conformance/src/rules.ts";

const rule = { id: "test.rule", ...seed("Errors", "a rule of this test", ["errors.400"]) };
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
