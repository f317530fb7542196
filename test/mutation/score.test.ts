// The mutation run's score (score.ts) from a report of StrykerJS's shape: what counts as a kill, what is counted
// apart, and how the triaged survivors leave the seed score.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { keyOf, score } from "./score.ts";

const verdicts: Record<string, { verdict: string }> = JSON.parse(readFileSync(new URL("./verdicts.json", import.meta.url), "utf8"));
/** A mutant of the shape Stryker's JSON report gives, at a key verdicts.json holds with `verdict`, or a fresh one. */
const triaged = (verdict: string) => {
  const key = Object.keys(verdicts).find((k) => verdicts[k].verdict === verdict)!;
  const [, line, column, mutatorName, replacement] = /^(\d+):(\d+) (\S+) (.*)$/.exec(key)!;
  return { mutatorName, replacement: JSON.parse(replacement), location: { start: { line: Number(line), column: Number(column) }, end: { line: Number(line), column: Number(column) + 1 } } };
};
const fresh = (line: number) => ({ mutatorName: "StringLiteral", replacement: `"fresh ${line}"`, location: { start: { line, column: 1 }, end: { line, column: 2 } } });

describe("the mutation score", () => {
  it("counts kills and timeouts as killed, NOT TESTED apart, and leaves equivalent and outside-the-seed survivors out of the seed score", () => {
    const mutants = [
      { id: "1", status: "Killed", ...fresh(100) },
      { id: "2", status: "Timeout", ...fresh(101) },
      { id: "3", status: "Killed", ...fresh(102) },
      { id: "4", status: "Survived", ...fresh(103) }, // left NOT TESTED by the suite (outcomes)
      { id: "5", status: "Survived", ...triaged("outside the seed") },
      { id: "6", status: "NoCoverage", ...fresh(104) }, // untriaged, reached by no check
      { id: "7", status: "CompileError", ...fresh(105) },
    ];
    const report = JSON.stringify({ files: { "server.mjs": { mutants } } });
    const outcomes = [{ mutant: "4", kind: "not-tested", why: "not tested: exit 3" }, { mutant: "1", kind: "killed", why: "killed" }].map((o) => JSON.stringify(o)).join("\n");
    const text = score(report, outcomes, "in a test");
    expect(text).toContain("mutation score: 60.0% (3 killed of 5 in a test; 1 left NOT TESTED by the suite, counted apart; 1 not scored");
    expect(text).toContain("seed score: 75.0% (3 killed of the 4 that change what the seed says; survivors: 0 equivalent, 1 outside the seed, 0 missed, 1 untriaged; 1 of them reached by no check)");
    expect(text).toContain("of the non-equivalent: 60.0% (3 killed of 5, the outside-the-seed survivors counted against the suite)");
    expect(text).toContain(`not tested ${keyOf(mutants[3])}`);
    expect(text).toContain(`survived (no check reached it) ${keyOf(mutants[5])}`);
    expect(text).toMatch(/1 survivors untriaged/);
  });
});
