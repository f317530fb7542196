/**
 * The generated parts of conformance/README.md: the rules table and the seed traceability matrix, with the self-test's
 * broken variants counted per statement. Used by `npm run conformance:rules` and by the test that fails when stale.
 */
import { readFileSync } from "node:fs";
import { variants } from "../../test/conformance/broken/variants.ts";
import { COMMAND_DOCS, COMMAND_NEEDS, COMMAND_STATEMENTS } from "../src/model/commands/index.ts";
import { UNREACHABLE } from "../src/model/rules.ts";
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

/** Replaces what stands between `<!-- name:start -->` and `<!-- name:end -->` with `body`. */
function between(readme: string, name: string, body: string): string {
  const start = `<!-- ${name}:start -->`;
  const a = readme.indexOf(start);
  const b = readme.indexOf(`<!-- ${name}:end -->`);
  if (a < 0 || b < a) throw new Error(`conformance/README.md has no ${name} markers`);
  return `${readme.slice(0, a)}${start}\n${body}\n${readme.slice(b)}`;
}

/** The capabilities table: each capability, what it is, its HTTP simulation operation, how a run decides it, and when it came. */
export function withCapabilities(readme: string): string {
  const rows = (Object.keys(CAPABILITIES) as Capability[]).map((c) => `| \`${c}\` | ${CAPABILITIES[c].what} | ${CAPABILITIES[c].http} | ${CAPABILITIES[c].decided} | ${CAPABILITIES[c].since} |`);
  return between(readme, "capabilities", `| capability | what it plants or drives | over HTTP (the default states) | how a run over HTTP decides it | contract |\n|---|---|---|---|---|\n${rows.join("\n")}`);
}

const cell = (s: string) => s.replace(/\s*\n\s*/g, " ").replace(/\|/g, "\\|");

/** A schema's type in a few words: `string`, `integer or null`, `array of SimMessageInput`, an enum's values. */
function typeOf(schema: any): string {
  if (schema.$ref) return schema.$ref.split("/").pop();
  if (schema.anyOf || schema.oneOf) return (schema.anyOf ?? schema.oneOf).map(typeOf).join(" or ");
  if (schema.enum) return schema.enum.map((v: unknown) => `\`${v}\``).join(", ");
  if (schema.type === "array") return `array of ${typeOf(schema.items ?? {})}`;
  if (Array.isArray(schema.type)) return schema.type.join(" or ");
  return schema.format ? `${schema.type} (${schema.format})` : schema.type ?? "any";
}

/** The inputs a states function receives, field by field, from the contract's simulation schemas (never copied by hand). */
export function inputsTable(): string {
  const doc = JSON.parse(readFileSync(new URL("../../generated/openapi.json", import.meta.url), "utf8"));
  const inputs: Array<[string, string]> = [["plantStudy", "SimStudyInput"], ["plantInterview", "SimInterviewInput"], ["plantChat", "SimChatInput"], ["plantChat: each message", "SimMessageInput"], ["plantChat: each source", "SimSourceInput"], ["plantRelease", "SimReleaseInput"], ["createProject", "SimProjectInput"]];
  const rows = inputs.flatMap(([fn, name]) => {
    const schema = doc.components.schemas[name];
    return Object.entries<any>(schema.properties).map(([field, p]) => `| \`${fn}\` | \`${field}\`${(schema.required ?? []).includes(field) ? " (required)" : ""} | ${cell(typeOf(p))} | ${cell(p.description ?? "")} |`);
  });
  return `| function | field | type | meaning and default |\n|---|---|---|---|\n${rows.join("\n")}`;
}

/** A file of conformance/examples/ as a fenced block, so the README shows what the tests run. */
const example = (file: string, lang: string) => `\`\`\`${lang}\n${readFileSync(new URL(`../examples/${file}`, import.meta.url), "utf8").trimEnd()}\n\`\`\``;

export function generatedReadme(readme: string): string {
  const { byStatement, total } = variantsByStatement();
  let out = withCapabilities(withModelTable(withMatrix(withTable(readme), matrixSection(allRules(), byStatement, total))));
  out = between(out, "states-inputs", inputsTable());
  out = between(out, "example-ts", example("foreign-states.ts", "ts"));
  return between(out, "example-js", example("foreign-studies.mjs", "js"));
}
