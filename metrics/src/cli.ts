/**
 * `npm run metrics -- --definition JSON --exposures FILE --events FILE [--engine memory|sql] [--as-of ISO]
 *  [--control A --treatment B [--confidence 0.95]] [--print-sql]`
 *
 * Computes one success metric from two files (CSV with a header, or for the sql engine also Parquet):
 * exposures `user_id,variant,exposed_at` and events `user_id,event,timestamp` (ISO 8601 with a zone).
 * `--engine memory` (default) reads the files into Node; `--engine sql` runs the generated SQL on embedded DuckDB
 * over the files themselves, for data that outgrows memory. `--print-sql` prints the standard SQL to run on a
 * warehouse holding the two tables (exposures(user_id, variant, exposed_ms), events(user_id, event, ts_ms)).
 * Prints the result (and the comparison) as JSON; bad input exits 2 with the field named.
 */
import { readFileSync } from "node:fs";
import { Command, InvalidArgumentError, Option } from "commander";
import { parse } from "csv-parse/sync";
import { compareVariants } from "./compare.ts";
import { definitionHelp } from "./definition-schema.ts";
import { computeMetric } from "./compute.ts";
import { duckdbFromFiles } from "./sql/duckdb.ts";
import { metricSql } from "./sql/generate.ts";
import type { Exposure, MetricDefinition, MetricEvent, MetricResult } from "./types.ts";
import { asOfMs, MetricInputError, validateDefinition } from "./validate.ts";

const json = (v: string) => {
  try {
    return JSON.parse(v) as MetricDefinition;
  } catch {
    throw new InvalidArgumentError("must be JSON, e.g. '{\"type\":\"conversion\",\"event\":\"purchase\",\"window_days\":7}'");
  }
};

const program = new Command("api-metrics")
  .description("Compute a success metric over exposures and events files")
  .requiredOption("--definition <json>", "metric definition as JSON", json)
  .option("--exposures <file>", "exposures file (user_id,variant,exposed_at)")
  .option("--events <file>", "events file (user_id,event,timestamp)")
  .addOption(new Option("--engine <engine>", "memory: in Node; sql: the generated SQL on embedded DuckDB over the files").choices(["memory", "sql"]).default("memory"))
  .option("--as-of <iso>", "analysis time (default now): later data does not exist yet, open windows are immature")
  .option("--control <variant>", "control variant, to compare with --treatment")
  .option("--treatment <variant>", "treatment variant")
  .option("--confidence <level>", "confidence level of the comparison's intervals, between 0 and 1 (0.90, 0.95, 0.99, ...)", (v) => {
    const level = Number(v);
    if (!/^0?\.\d+$/.test(v.trim()) || !(level > 0 && level < 1)) throw new InvalidArgumentError("must be a number between 0 and 1, e.g. 0.95");
    return level;
  }, 0.95)
  .option("--print-sql", "print the standard SQL for a warehouse and exit", false)
  .allowExcessArguments(false)
  .addHelpText("after", definitionHelp());

async function main(): Promise<void> {
  const o = program.parse().opts();
  const def = validateDefinition(o.definition);
  const asOf = asOfMs(o.asOf);
  if (o.printSql) {
    const sql = metricSql(def, asOf);
    console.log(`-- per variant\n${sql.variants};\n\n-- excluded and immature users\n${sql.counts};`);
    return;
  }
  if (!o.exposures || !o.events) throw new MetricInputError("--exposures/--events", "are required unless --print-sql");
  let result: MetricResult;
  if (o.engine === "sql") {
    const db = await duckdbFromFiles(o.exposures, o.events);
    try {
      result = await db.computeOnTables(def, { as_of: new Date(asOf).toISOString() });
    } finally {
      db.close();
    }
  } else {
    // Rows are checked field by field by computeMetric (MetricInputError names the row).
    const read = <T>(file: string) => parse(readFileSync(file), { columns: true, skip_empty_lines: true, trim: true }) as T[];
    result = computeMetric(def, { exposures: read<Exposure>(o.exposures), events: read<MetricEvent>(o.events) }, { as_of: new Date(asOf).toISOString() });
  }
  const comparison = o.control && o.treatment ? compareVariants(result, o.control, o.treatment, { confidence: o.confidence }) : undefined;
  console.log(JSON.stringify(comparison ? { result, comparison } : { result }, null, 2));
}

main().catch((err: Error) => {
  console.error(err instanceof MetricInputError ? `invalid input: ${err.message}` : `metrics: ${err.message}`);
  process.exit(2);
});
