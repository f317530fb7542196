/**
 * The generated parts of conformance/README.md: the rules table and the seed traceability matrix, with the self-test's
 * broken variants counted per statement. Used by `npm run conformance:rules` and by the test that fails when stale.
 */
import { variants } from "../../test/conformance/broken/variants.ts";
import { COMMAND_NEEDS } from "../src/model/commands/index.ts";
import { COMMAND_DOCS, COMMAND_STATEMENTS, UNREACHABLE } from "../src/model/rules.ts";
import { CAPABILITIES, type Capability } from "../src/states/capabilities.ts";
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

const MODEL_START = "<!-- model-commands:start -->";
const MODEL_END = "<!-- model-commands:end -->";

/** The model run's command table: each command, what it does, and the seed statements it reaches. */
export function withModelTable(readme: string): string {
  const a = readme.indexOf(MODEL_START);
  const b = readme.indexOf(MODEL_END);
  if (a < 0 || b < a) throw new Error("conformance/README.md has no model-commands markers");
  const rows = Object.entries(COMMAND_STATEMENTS).map(([name, ids]) => `| \`${name}\` | ${COMMAND_DOCS[name]} | ${(COMMAND_NEEDS[name] ?? []).map((c) => `\`${c}\``).join(", ") || "none"} | ${ids.map((id) => `\`${id}\``).join(", ")} |`);
  const unreachable = `\n**What no command reaches, and why:**\n\n${UNREACHABLE.map(([what, why]) => `- ${what}: ${why}`).join("\n")}\n`;
  const sequenceOnly = variants().filter((v) => v.caughtBy === "model");
  const count = `\n**${sequenceOnly.length} broken variants** that only a sequence reveals (\`test/conformance/broken/model-variants.ts\`), each caught by this run at \`--level seed\` with a random \`--seed\` in the self-test: ${sequenceOnly.map((v) => v.mutation.name).join("; ")}.\n`;
  return `${readme.slice(0, a)}${MODEL_START}\n| command | what it does | capabilities it needs | seed statements it reaches |\n|---|---|---|---|\n${rows.join("\n")}\n${count}${unreachable}${readme.slice(b)}`;
}

const CAPS_START = "<!-- capabilities:start -->";
const CAPS_END = "<!-- capabilities:end -->";

/** The capabilities table: each capability, what it is, its HTTP simulation operation, and when it came. */
export function withCapabilities(readme: string): string {
  const a = readme.indexOf(CAPS_START);
  const b = readme.indexOf(CAPS_END);
  if (a < 0 || b < a) throw new Error("conformance/README.md has no capabilities markers");
  const rows = (Object.keys(CAPABILITIES) as Capability[]).map((c) => `| \`${c}\` | ${CAPABILITIES[c].what} | ${CAPABILITIES[c].http} | ${CAPABILITIES[c].since} |`);
  return `${readme.slice(0, a)}${CAPS_START}\n| capability | what it plants or drives | over HTTP (the default states) | contract |\n|---|---|---|---|\n${rows.join("\n")}\n${readme.slice(b)}`;
}

export function generatedReadme(readme: string): string {
  const { byStatement, total } = variantsByStatement();
  return withCapabilities(withModelTable(withMatrix(withTable(readme), matrixSection(allRules(), byStatement, total))));
}
