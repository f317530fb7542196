/**
 * The generated parts of conformance/README.md: the rules table and the seed traceability matrix, with the self-test's
 * broken variants counted per statement. Used by `npm run conformance:rules` and by the test that fails when stale.
 */
import { variants } from "../../test/conformance/broken/variants.ts";
import { allRules } from "../src/run.ts";
import { withTable } from "../src/rules-table.ts";
import { matrixSection, withMatrix } from "../src/seed/matrix.ts";

/** Statement id -> names of the variants (at --level seed) that break it. */
export function variantsByStatement(): { byStatement: Map<string, string[]>; total: number } {
  const all = variants();
  const byStatement = new Map<string, string[]>();
  for (const v of all) for (const id of v.breaks ?? []) byStatement.set(id, [...(byStatement.get(id) ?? []), v.mutation.name]);
  return { byStatement, total: all.length };
}

export function generatedReadme(readme: string): string {
  const { byStatement, total } = variantsByStatement();
  return withMatrix(withTable(readme), matrixSection(allRules(), byStatement, total));
}
