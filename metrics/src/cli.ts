/**
 * `api-metrics --definition JSON --exposures FILE --events FILE [--control A --treatment B[,C]] ...`
 *
 * One success metric from two files (CSV, JSON Lines or Parquet), read by the one input layer (input/read.ts) and
 * computed on either engine, which then see the same rows and give the same answer. With a control and treatments:
 * the sample ratio check, then each treatment's lift with intervals, p-values and Holm-adjusted p-values.
 * Output: a table on a terminal, JSON when piped, or --format. Bad input exits 2 naming the file, line and column.
 */
import { Command, InvalidArgumentError, Option } from "commander";
import { json, list, split } from "./cli-args.ts";
import { readOut } from "./arms.ts";
import { computeMetricFromRows } from "./compute.ts";
import { definitionHelp } from "./definition-schema.ts";
import { readFiles } from "./input/read.ts";
import { toCsv, toJson, toTable } from "./output.ts";
import { powerCommand } from "./power-cli.ts";
import { DuckDbMetrics } from "./sql/duckdb.ts";
import { DIALECTS } from "./sql/generate.ts";
import { printSql } from "./sql/print.ts";
import type { ExposureRow } from "./input/rows.ts";
import type { MetricDefinition, MetricOptions, MetricResult } from "./types.ts";
import { asOfOption, MetricInputError, validateDefinition } from "./validate.ts";

const program = new Command("api-metrics")
  .description("Compute a success metric over exposures and events files, and compare arms")
  .requiredOption("--definition <json>", "metric definition as JSON, or @file.json (fields below)", json)
  .option("--exposures <file>", "exposures: user_id, variant, exposed_at (.csv/.tsv, .jsonl, .parquet)")
  .option("--events <file>", "events: user_id, event, timestamp (.csv/.tsv, .jsonl, .parquet)")
  .addOption(new Option("--engine <engine>", "memory: in Node; sql: the generated SQL on embedded DuckDB").choices(["memory", "sql"]).default("memory"))
  .option("--as-of <iso>", "analysis time (default: just after the data's last timestamp): later data does not exist yet, open windows are immature")
  .option("--timezone <zone>", "IANA time zone of timestamps written without an offset (default: they are refused)")
  .option("--delimiter <char>", "CSV delimiter (default: detected from the header among , ; tab |)", (v) => (v === "tab" || v === "\\t" ? "\t" : v))
  .option("--control <arm>", "control arm, to compare with --treatment")
  .option("--treatment <arms>", "treatment arm(s), comma-separated or repeated: each is compared with the control, p-values Holm-adjusted", list)
  .option("--split <weights>", "configured split for the sample ratio check, e.g. control=50,treatment=50 (default: equal)", split)
  .option("--confidence <level>", "confidence level of the intervals, between 0 and 1 (0.90, 0.95, 0.99, ...)", (v) => {
    const level = Number(v);
    if (!/^0?\.\d+$/.test(v.trim()) || !(level > 0 && level < 1)) throw new InvalidArgumentError("must be a number between 0 and 1, e.g. 0.95");
    return level;
  }, 0.95)
  .option("--cuped", "CUPED variance reduction with each user's pre-exposure value of the same metric", false)
  .option("--sequential", "always-valid intervals and p-values, safe to read every day (asymptotic confidence sequences, as GrowthBook's sequential testing)", false)
  .option("--sequential-tuning <n>", "N*, the total sample size at which the sequential interval is tightest (default 5000, GrowthBook's)", (v) => {
    const n = Number(v);
    if (!/^\d+(\.\d+)?$/.test(v.trim()) || !(n > 0)) throw new InvalidArgumentError("must be a positive number of users, e.g. 5000");
    return n;
  })
  .addOption(new Option("--format <format>", "output: table (default on a terminal), json (default when piped), csv").choices(["table", "json", "csv"]))
  .option("--no-progress", "no progress lines on stderr for files over a million rows")
  .option("--print-sql", "print the standard SQL for a warehouse and exit", false)
  .addOption(new Option("--dialect <dialect>", "with --print-sql: the SQL for this database, laid out in its grammar").choices([...DIALECTS]))
  .allowExcessArguments(false)
  .addHelpText("after", definitionHelp());

/** One progress line on stderr: rewritten in place on a terminal, a line each when piped. */
function progressLine(text: string, done: boolean): void {
  if (process.stderr.isTTY) process.stderr.write(`\r${text}${done ? "\n" : ""}`);
  else process.stderr.write(`${text}\n`);
}

function progress(enabled: boolean) {
  if (!enabled) return undefined;
  return (file: string, rows: number, done: boolean) => progressLine(`${file}: ${rows.toLocaleString("en-US")} rows ${done ? "read" : "read so far"}`, done);
}

/** `--engine sql`'s steps, as DuckDB reports them: one line a second. */
function stepProgress(enabled: boolean) {
  if (!enabled) return undefined;
  return (step: string, percent: number, done: boolean) => progressLine(`${step}: ${done ? "done" : `${percent}%`}`, done);
}

/** Passes exposure batches through unchanged, adding each row's arm to `seen`. */
async function* noting(batches: AsyncIterable<ExposureRow[]> | Iterable<ExposureRow[]>, seen: Set<string>): AsyncIterable<ExposureRow[]> {
  for await (const batch of batches) {
    for (const row of batch) seen.add(row.variant);
    yield batch;
  }
}

async function main(): Promise<void> {
  // `api-metrics power ...`: sizing an experiment before it runs; no files.
  if (process.argv[2] === "power") {
    await powerCommand().exitOverride((err) => {
      if (err.exitCode !== 0) throw new MetricInputError("power", err.message.replace(/^error: /, ""));
      process.exit(0);
    }).configureOutput({ writeErr: () => undefined }).parseAsync(process.argv.slice(3), { from: "user" });
    return;
  }
  // A usage error (an unknown option, a bad value) is bad input: exit 2 as every other refusal, not commander's 1.
  const o = program.exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 2)).parse().opts();
  const def = validateDefinition(o.definition);
  if (o.dialect !== undefined && !o.printSql) throw new MetricInputError("--dialect", "applies to --print-sql: add it, or drop the dialect");
  if (o.printSql) {
    console.log(printSql(def, asOfOption(o.asOf, o.timezone), { cuped: o.cuped, dialect: o.dialect }));
    return;
  }
  if (!o.exposures || !o.events) throw new MetricInputError("--exposures/--events", "are required unless --print-sql");
  if ((o.control === undefined) !== (o.treatment === undefined)) throw new MetricInputError("--control/--treatment", "go together: name the control and at least one treatment");
  const arms: string[] | undefined = o.control === undefined ? undefined : [o.control, ...o.treatment];
  const options: MetricOptions = { as_of: o.asOf, timezone: o.timezone, cuped: o.cuped, variants: arms };
  asOfOption(o.asOf, o.timezone); // a bad --as-of is refused before any file is read
  // Every arm the exposures name: an arm named on the command line that the data never names is a typo, refused
  // below, never a silent sample-ratio warning. The memory engine notes them as the rows stream past; DuckDB says.
  const seen = new Set<string>();
  const read = { delimiter: o.delimiter, timezone: o.timezone, onProgress: progress(o.progress), onStepProgress: stepProgress(o.progress) };
  let result: MetricResult;
  if (o.engine === "sql") {
    // DuckDB reads the files itself, and the input layer's rules run as SQL over them (sql/files.ts).
    const db = await DuckDbMetrics.open();
    try {
      const run = await db.computeMetricFromFiles(def, o.exposures, o.events, read, options);
      result = run.result;
      for (const arm of run.arms) seen.add(arm);
    } finally {
      db.close();
    }
  } else {
    const files = readFiles(o.exposures, o.events, read);
    result = await computeMetricFromRows(def, { ...files, exposures: noting(files.exposures, seen) }, options);
  }
  const named = [...(arms ?? []), ...Object.keys(o.split ?? {})];
  const unknown = [...new Set(named.filter((arm) => !seen.has(arm)))];
  if (unknown.length) {
    const option = unknown.some((a) => arms?.includes(a)) ? "--control/--treatment" : "--split";
    const found = [...seen].sort();
    throw new MetricInputError(option, `names ${unknown.length === 1 ? "an arm" : "arms"} the exposures never name: ${unknown.map((a) => JSON.stringify(a)).join(", ")}; the arms found: ${found.length ? found.map((a) => JSON.stringify(a)).join(", ") : "none (no exposures)"}`);
  }
  if (o.sequentialTuning !== undefined && !o.sequential) throw new MetricInputError("--sequential-tuning", "applies to --sequential: add it, or drop the tuning");
  const sequential = o.sequential ? { tuning: o.sequentialTuning } : undefined;
  const run = { result, readOut: arms ? readOut(result, arms[0], arms.slice(1), { confidence: o.confidence, split: o.split, cuped: o.cuped, sequential }) : undefined };
  const format = o.format ?? (process.stdout.isTTY ? "table" : "json");
  console.log(format === "table" ? toTable(run) : format === "csv" ? toCsv(run) : toJson(run));
}

main().catch((err: Error) => {
  // SqlEngineError is already one line without SQL; anything else is a bug, said in one line, never a stack.
  console.error(err instanceof MetricInputError ? `invalid input: ${err.message}` : `metrics: ${err.message}`);
  process.exit(2);
});
