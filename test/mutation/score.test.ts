// The mutation run's score (score.ts) from a report of StrykerJS's shape: what counts as a kill, what is counted
// apart, and how the triaged survivors leave the seed score.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { FOREIGN_SERVER } from "../support/foreign.ts";
import { keyOf, OPEN_LINES, openLines, openTexts, onSeedJudgedCode, score, type OpenRange, type OpenTexts } from "./score.ts";

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

  it("scores the seed-judged lines apart when a run mutated lines the seed leaves open", () => {
    const mutants = [
      { id: "1", status: "Killed", ...fresh(100) },
      { id: "2", status: "Survived", ...fresh(101) }, // untriaged: counted
      { id: "3", status: "Killed", ...fresh(158) }, // the transcripts' words (open-lines.json)
      { id: "4", status: "Survived", ...fresh(159) },
      { id: "5", status: "Survived", ...fresh(160) },
    ];
    const text = score(JSON.stringify({ files: { "server.mjs": { mutants } } }), "", "in a test");
    expect(text).toContain("of the non-equivalent: 40.0% (2 killed of 5,");
    expect(text).toContain("of the non-equivalent on the seed-judged code (without test/mutation/open-lines.json's lines and texts): 50.0% (1 killed of 2)");
    // A run of the seed-judged lines alone has no second figure.
    expect(score(JSON.stringify({ files: { "server.mjs": { mutants: mutants.slice(0, 2) } } }), "", "in a test")).not.toContain("seed-judged code");
  });
});

describe("the lines the seed leaves open (open-lines.json)", () => {
  const ranges: OpenRange[] = JSON.parse(readFileSync(OPEN_LINES, "utf8")).ranges;
  const textGroups: OpenTexts[] = JSON.parse(readFileSync(OPEN_LINES, "utf8")).texts;
  const seed = readFileSync(new URL("../../../shared/seed/service-spec.md", import.meta.url), "utf8");
  const source = readFileSync(FOREIGN_SERVER, "utf8").split("\n");

  it("quotes the seed's own words for each range, and each range still starts where it was read", () => {
    for (const r of ranges) expect(seed, `${r.lines}: ${r.what}`).toContain(r.seed);
    const lines = openLines(source);
    expect(lines.size).toBeGreaterThan(ranges.length);
    // Never the test-support API's or the fixtures' sections: they are left out by section already.
    const testSupport = source.findIndex((l) => /^\/\/ -{20,} test-support/.test(l)) + 1;
    const server = source.findIndex((l) => /^\/\/ -{20,} server$/.test(l)) + 1;
    for (const l of lines) expect(l < testSupport || l > server, `line ${l}`).toBe(true);
  });

  it("refuses ranges that no longer match the file", () => {
    const shifted = ["", ...source];
    expect(() => openLines(shifted)).toThrow(/no longer starts with/);
  });

  it("quotes the seed's words for each group of open texts, never leaves out a message the seed prescribes, and refuses a text that moved", () => {
    for (const g of textGroups) expect(seed, g.what).toContain(g.seed);
    const texts = openTexts(source);
    expect([...texts.values()].flat().length).toBe(textGroups.flatMap((g) => g.at).length);
    // The two error messages the seed prescribes (Errors, rules 4 and 5) stay mutated.
    for (const [line, spans] of texts) for (const [a, b] of spans) expect(source[line - 1].slice(a, b)).not.toMatch(/Invalid parameters|No such message/);
    // Never on a line left out whole.
    const lines = openLines(source);
    for (const line of texts.keys()) expect(lines.has(line), `line ${line}`).toBe(false);
    expect(() => openTexts(["", ...source])).toThrow(/no longer found exactly once/);
  });

  it("scores a mutant inside an open text as open, and one that spans it and more as seed-judged", () => {
    const texts = new Map<number, [number, number][]>([[10, [[5, 9], [20, 30]]]]);
    // Report columns are 1-based: Babel's [a, b) is the report's a+1 to b+1.
    const at = (line: number, a: number, b: number, endLine = line) => ({ location: { start: { line, column: a + 1 }, end: { line: endLine, column: b + 1 } } });
    const none = new Set<number>();
    expect(onSeedJudgedCode(at(10, 0, 5), none, texts)).toBe(true);
    expect(onSeedJudgedCode(at(10, 5, 9), none, texts)).toBe(false);
    expect(onSeedJudgedCode(at(10, 22, 28), none, texts)).toBe(false);
    expect(onSeedJudgedCode(at(10, 4, 12), none, texts)).toBe(true);
    expect(onSeedJudgedCode(at(10, 0, 40), none, texts)).toBe(true);
    expect(onSeedJudgedCode(at(10, 6, 8, 11), none, texts)).toBe(true);
    expect(onSeedJudgedCode(at(12, 0, 40), new Set([12]), texts)).toBe(false);
  });
});
