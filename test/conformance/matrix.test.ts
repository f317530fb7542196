// The seed traceability matrix: every statement of the service description is enforced by a seed rule or excused,
// every rule cites real statements, every enforced statement has a broken variant, and the README shows it all.
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { generatedReadme, variantsByStatement } from "../../conformance/scripts/readme.ts";
import { allRules } from "../../conformance/src/run.ts";
import { matrixProblems, matrixRows } from "../../conformance/src/seed/matrix.ts";
import { statements } from "../../conformance/src/seed/statements.ts";
import { variants } from "./broken/variants.ts";

describe("seed traceability matrix", () => {
  it("maps every statement to the seed rules that enforce it or to an excuse, and every cited id exists", () => {
    expect(matrixProblems(allRules()).map((p) => p.message)).toEqual([]);
  });

  it("gives every statement a unique id, a section and a quote, and every excuse names its kind", () => {
    const ids = statements.map((s) => s.id);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    for (const s of statements) {
      expect(s.id).toMatch(/^[a-z0-9-]+\.[a-z0-9.-]+$/);
      expect(s.quote.length, s.id).toBeGreaterThan(5);
      if (s.excuse) expect(s.excuse, s.id).toMatch(/^(the seed leaves it open|not observable through the API|needs a capability the simulation surface lacks|overview): \S/);
    }
  });

  it("has a broken variant for every enforced statement, run at --level seed, whose rule cites the statement it breaks", () => {
    const rules = new Map(allRules().map((r) => [r.id, r]));
    for (const v of variants().filter((x) => x.breaks?.length)) {
      expect(v.seedRule, `${v.mutation.name} breaks statements, so it must run at --level seed`).toBe(true);
      expect(v.rule, `${v.mutation.name} names no rule`).toBeDefined();
      const rule = rules.get(v.rule!);
      expect(rule, `${v.mutation.name}: no rule ${v.rule}`).toBeDefined();
      for (const id of v.breaks!) expect(rule!.cites, `${v.mutation.name}: ${v.rule} does not cite ${id}`).toContain(id);
    }
    const { byStatement } = variantsByStatement();
    const missing = matrixRows(allRules()).filter((r) => r.rules.length && !(byStatement.get(r.statement.id) ?? []).length).map((r) => r.statement.id);
    expect(missing).toEqual([]);
  });

  it("conformance/README.md shows the generated matrix and counts (run npm run conformance:rules)", () => {
    const readme = readFileSync(new URL("../../conformance/README.md", import.meta.url), "utf8");
    expect(generatedReadme(readme)).toBe(readme);
    expect(readme).toMatch(/\*\*\d+ statements\*\* of the seed: \*\*\d+ enforced\*\* by \d+ seed rules, \*\*\d+ excused\*\*/);
    expect(readme).toMatch(/\*\*\d+ broken variants\*\*/);
  });

  // The service description lives beside the repository (../shared/seed) in the team's workspace.
  const seedFile = new URL("../../../shared/seed/service-spec.md", import.meta.url);
  it.skipIf(!existsSync(seedFile))("quotes the seed verbatim and leaves no line of it out", () => {
    const seed = readFileSync(seedFile, "utf8");
    expect(statements.filter((s) => !seed.includes(s.quote)).map((s) => s.id)).toEqual([]);
    const unquoted: string[] = [];
    let inTable = false;
    for (const [i, line] of seed.split("\n").entries()) {
      const header = line.startsWith("|") && !inTable;
      inTable = line.startsWith("|");
      // Headings, table headers and separators, and short labels ("Notes:", "Body:") state nothing.
      if (!line.trim() || line.startsWith("#") || /^\|[-| ]+\|$/.test(line) || header || /^[A-Z][\w ,()-]*:$/.test(line)) continue;
      if (!statements.some((s) => line.includes(s.quote))) unquoted.push(`${i + 1}: ${line.slice(0, 80)}`);
    }
    expect(unquoted).toEqual([]);
  });
});
