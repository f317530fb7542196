/**
 * The JSON Schema of a metric definition: the one description of its fields. validateDefinition takes the allowed
 * fields from it, `api-metrics --help` lists them from it, and `definition.schema.json` (published with the package,
 * for editors and other languages) is written from it by `npm run build:schema -w metrics`.
 */
const event = { type: "string", minLength: 1, description: "the event that counts (exact name)" } as const;
const windowDays = { type: "number", exclusiveMinimum: 0, description: "days from each user's exposure in which events count (fractions allowed); default: no limit" } as const;

function variant(type: string, answers: string, properties: Record<string, object>, required: string[] = []) {
  return {
    title: type,
    description: answers,
    type: "object",
    required: ["type", "event", ...required],
    additionalProperties: false,
    properties: { type: { const: type }, event, ...properties },
  } as const;
}

export const definitionSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $id: "https://unpkg.com/@service/success-metrics/definition.schema.json",
  title: "Success metric definition",
  description: "One of the four success metrics; every metric divides by all exposed users, zero-filled.",
  oneOf: [
    variant("conversion", "did the user fire the event at least once (volume ignored)", { window_days: windowDays }),
    variant("events_per_user", "how many events per exposed user", { window_days: windowDays }),
    variant("events_per_user_per_active_day", "events per active day, averaged over exposed users", {
      window_days: windowDays,
      active_day: { enum: ["metric_event", "any_event"], description: "days with the metric's event (default) or with any event of the user" },
    }),
    variant("retention", "did the user fire the event at least threshold times within the window", {
      threshold: { type: "integer", minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: "events needed inside the window" },
      window_days: { ...windowDays, description: "days from each user's exposure in which events count (required)" },
    }, ["threshold", "window_days"]),
  ],
} as const;

export type DefinitionField = { name: string; required: boolean; description: string };

/** The fields of each metric type, in the schema's order. */
export const definitionFields: ReadonlyMap<string, DefinitionField[]> = new Map(
  definitionSchema.oneOf.map((v) => [
    v.properties.type.const,
    Object.entries(v.properties).map(([name, p]) => ({ name, required: (v.required as readonly string[]).includes(name), description: "description" in p ? String(p.description) : `"${v.properties.type.const}"` })),
  ]),
);

/** `--help`'s text: every type with its fields. */
export function definitionHelp(): string {
  const lines = ["", "Definition fields (--definition JSON; schema: definition.schema.json in the package):"];
  for (const v of definitionSchema.oneOf) {
    lines.push(`  ${v.properties.type.const}: ${v.description}`);
    for (const f of definitionFields.get(v.properties.type.const)!.filter((x) => x.name !== "type")) lines.push(`    ${f.name}${f.required ? " (required)" : ""}: ${f.description}`);
  }
  return lines.join("\n");
}
