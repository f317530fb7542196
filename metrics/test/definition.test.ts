// Strict metric definitions: the published JSON Schema and the validator accept exactly the same definitions, a
// misspelled field is refused with the closest field named, `--help` lists every field, and the schema file is current.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { schemaFile, schemaText } from "../scripts/definition-schema.ts";
import { definitionSchema } from "../src/definition-schema.ts";
import { MetricInputError, validateDefinition } from "../src/validate.ts";
import { METRICS_CLI } from "./command.ts";

const require = createRequire(import.meta.url);
const Ajv2020 = require("ajv/dist/2020.js").default;
const schema = new Ajv2020({ strict: true, allErrors: true }).compile(definitionSchema);

const refusal = (def: unknown): MetricInputError => {
  try {
    validateDefinition(def);
  } catch (err) {
    if (err instanceof MetricInputError) return err;
    throw err;
  }
  throw new Error(`accepted ${JSON.stringify(def)}`);
};

describe("metric definitions", () => {
  it("refuses a misspelled field, naming it and the closest valid one", () => {
    const e = refusal({ type: "conversion", event: "purchase", windowdays: 7 });
    expect(e.field).toBe("definition.windowdays");
    expect(e.message).toContain("did you mean window_days?");
    expect(refusal({ type: "retention", event: "purchase", threshold: 2, window_days: 7, treshold: 3 }).message).toContain("did you mean threshold?");
  });

  it("refuses a field of another metric type, saying which type it belongs to, and an unrelated field with the list of fields", () => {
    expect(refusal({ type: "conversion", event: "purchase", active_day: "any_event" }).message).toContain("it applies to events_per_user_per_active_day");
    const e = refusal({ type: "events_per_user", event: "purchase", colour: "red" });
    expect(e.message).not.toContain("did you mean");
    expect(e.message).toContain("Fields: type, event, window_days");
  });

  it("accepts exactly what the published schema accepts", () => {
    const definition = fc.record(
      {
        type: fc.constantFrom("conversion", "events_per_user", "events_per_user_per_active_day", "retention"),
        event: fc.constantFrom("purchase", "__proto__", ""),
        window_days: fc.constantFrom(0.5, 1 / 7, 7, 0, -1, "7"),
        threshold: fc.constantFrom(1, 3, 0, 1.5),
        active_day: fc.constantFrom("metric_event", "any_event", "weekdays"),
        windowdays: fc.constant(7),
      },
      { requiredKeys: ["type"] },
    );
    fc.assert(
      fc.property(definition, (def) => {
        let accepted = true;
        try {
          validateDefinition(def);
        } catch (err) {
          if (!(err instanceof MetricInputError)) throw err;
          accepted = false;
        }
        expect(accepted, `${JSON.stringify(def)}: schema ${JSON.stringify(schema.errors?.slice(0, 2))}`).toBe(schema(def));
      }),
      { numRuns: 500 },
    );
  });

  it("lists every type and field in --help", () => {
    const help = spawnSync(process.execPath, [METRICS_CLI, "--help"], { encoding: "utf8" });
    expect(help.status).toBe(0);
    for (const v of definitionSchema.oneOf) {
      expect(help.stdout).toContain(`${v.properties.type.const}:`);
      for (const field of Object.keys(v.properties).filter((f) => f !== "type")) expect(help.stdout).toMatch(new RegExp(`\\n\\s+${field}( \\(required\\))?: `));
    }
  }, 30_000);

  it("publishes definition.schema.json as written from the source (run npm run build:schema -w metrics)", () => {
    expect(readFileSync(schemaFile, "utf8")).toBe(schemaText());
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
    expect(pkg.files).toContain("definition.schema.json");
    expect(pkg.exports["./definition.schema.json"]).toBe("./definition.schema.json");
  });
});
