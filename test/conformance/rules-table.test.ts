// The README's rules table is generated from the check definitions; this fails when it is stale.
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { allRules } from "../../conformance/src/run.ts";
import { rulesTable, withTable } from "../../conformance/src/rules-table.ts";

describe("conformance rules", () => {
  it("conformance/README.md shows the table generated from the checks (run npm run conformance:rules)", () => {
    const readme = readFileSync(new URL("../../conformance/README.md", import.meta.url), "utf8");
    expect(withTable(readme)).toBe(readme);
    for (const rule of allRules()) expect(rulesTable()).toContain(`\`${rule.id}\``);
  });

  it("every rule has a unique id, a level and a source", () => {
    const ids = allRules().map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const r of allRules()) {
      expect(["seed", "contract"]).toContain(r.level);
      expect(r.source).toMatch(r.level === "seed" ? /^seed: \S/ : /^contract: \S/);
      expect(r.text.length).toBeGreaterThan(10);
    }
  });

  // The service description lives beside the repository (../shared/seed) in the team's workspace, not in a clone.
  const seedFile = new URL("../../../shared/seed/service-spec.md", import.meta.url);
  it.skipIf(!existsSync(seedFile))("seed rules cite a section of the service description", () => {
    const sections = readFileSync(seedFile, "utf8");
    // Sections are the seed's headings, plus its opening "Conventions:" paragraph.
    const headings = ["Conventions", ...[...sections.matchAll(/^#{2,3} (.+)$/gm)].map((m) => m[1].trim())];
    expect(sections).toContain("Conventions:");
    for (const r of allRules().filter((x) => x.level === "seed")) {
      const first = r.source.replace(/^seed: /, "").split(/[:;,(]/)[0].trim();
      expect(headings.some((h) => h.startsWith(first) || first.startsWith(h.split(" ")[0])), `${r.id} cites "${first}"`).toBe(true);
    }
  });
});
