/**
 * The SQL engine on embedded DuckDB. Files are read by DuckDB's own readers and checked by SQL with the input layer's
 * rules (sql/files.ts: `computeMetricFromFiles`, what `--engine sql` runs); rows already in Node (the library's
 * `computeMetric`, or `readFiles`) are loaded with DuckDB's appender. Then the generated SQL.
 */
import type { MetricData, MetricDefinition, MetricOptions, MetricResult } from "../types.ts";
import { readFiles, type ReadOptions } from "../input/read.ts";
import { rowSourceOfData, type EventRow, type ExposureRow, type RowSource } from "../input/rows.ts";
import { asOfOption, MetricInputError, validateDataShape, validateDefinition } from "../validate.ts";
import { EVENTS, EXPOSURES, loadNatively } from "./files.ts";
import { runMetricSql, type Query } from "./run.ts";

/**
 * The part of a DuckDB connection this engine uses, typed structurally: the published declarations must not name
 * `@duckdb/node-api`, an optional peer that a user of the in-memory engine does not install.
 */
export interface DuckDBConnection {
  /** DuckDB's estimate of the running statement's progress (-1 until it has one; needs enable_progress_bar). */
  readonly progress?: { percentage: number };
  run(sql: string): Promise<unknown>;
  runAndReadAll(sql: string): Promise<{ getRowObjects(): unknown[] }>;
  createAppender(table: string): Promise<{ appendVarchar(v: string): void; appendBigInt(v: bigint): void; endRow(): void; closeSync(): void }>;
  closeSync(): void;
}

/** The message when the optional peer is missing: it names the package to install. */
export const DUCKDB_MISSING = "The SQL engine needs DuckDB: install the optional peer dependency with `npm install @duckdb/node-api` (the in-memory engine needs nothing more).";

/** Loads DuckDB on first use, so the in-memory engine and the CLI run without it. */
async function duckdb(): Promise<{ DuckDBInstance: { create(path: string): Promise<{ connect(): Promise<DuckDBConnection> }> } }> {
  try {
    return (await import("@duckdb/node-api")) as never;
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") throw new Error(DUCKDB_MISSING);
    throw err;
  }
}

export const queryOfDuckDb = (connection: DuckDBConnection): Query => async (sql) => (await connection.runAndReadAll(sql)).getRowObjects() as Array<Record<string, unknown>>;

const TABLES = {
  exposures: "CREATE OR REPLACE TABLE exposures (user_id VARCHAR, variant VARCHAR, exposed_ms BIGINT)",
  events: "CREATE OR REPLACE TABLE events (user_id VARCHAR, event VARCHAR, ts_ms BIGINT)",
};

/** Rows into one table with DuckDB's appender, batch by batch: nothing but a batch is held in Node. Returns the count. */
async function appendRows(connection: DuckDBConnection, table: keyof typeof TABLES, batches: AsyncIterable<Array<ExposureRow | EventRow>> | Iterable<Array<ExposureRow | EventRow>>): Promise<number> {
  let count = 0;
  await connection.run(TABLES[table]);
  const appender = await connection.createAppender(table);
  try {
    for await (const batch of batches) {
      for (const row of batch) {
        appender.appendVarchar(row.user_id);
        appender.appendVarchar("variant" in row ? row.variant : row.event);
        appender.appendBigInt(BigInt(row.ms));
        appender.endRow();
      }
      count += batch.length;
    }
  } finally {
    appender.closeSync();
  }
  return count;
}

/** Loads both tables; returns how many rows they hold. */
async function load(connection: DuckDBConnection, source: RowSource): Promise<number> {
  return (await appendRows(connection, "exposures", source.exposures)) + (await appendRows(connection, "events", source.events));
}

/**
 * Below this many rows the metric's statements run on one thread: DuckDB's default (a thread per core) spends more
 * starting and joining its threads than the work takes (the suite's metric laws on this engine: a quarter less CPU).
 */
const ONE_THREAD_BELOW = 100_000;

/**
 * DuckDB's own errors carry SQL fragments and internals: the input is checked before it reaches DuckDB, so what is
 * left is a fault of the engine or the machine (memory, disk), said in one line with DuckDB's reason.
 */
export class SqlEngineError extends Error {
  constructor(cause: unknown) {
    const reason = String((cause as Error)?.message ?? cause).split("\n")[0].replace(/\s*LINE \d+:.*$/, "").slice(0, 200);
    super(`the SQL engine (DuckDB) could not compute the metric: ${reason}`, { cause });
    this.name = "SqlEngineError";
  }
}

const guarded = async <T>(work: () => Promise<T>): Promise<T> => {
  try {
    return await work();
  } catch (err) {
    if (err instanceof MetricInputError || err instanceof SqlEngineError) throw err;
    throw new SqlEngineError(err);
  }
};

/**
 * Runs `work`, and while it runs longer than a second, reports DuckDB's progress about every second (a 50M-event
 * file takes tens of seconds, and the command was silent all along). Never throws for the report itself.
 */
async function reporting<T>(connection: DuckDBConnection, step: string, report: ReadOptions["onStepProgress"], work: () => Promise<T>): Promise<T> {
  if (!report) return work();
  let shown = false;
  // API_METRICS_PROGRESS_MS: the interval (default 1 s), shorter in the tests.
  const every = Number(process.env.API_METRICS_PROGRESS_MS) > 0 ? Number(process.env.API_METRICS_PROGRESS_MS) : 1_000;
  const timer = setInterval(() => {
    const percent = connection.progress?.percentage ?? -1;
    if (percent < 0) return;
    shown = true;
    report(step, Math.min(100, Math.floor(percent)), false);
  }, every);
  try {
    const result = await work();
    if (shown) report(step, 100, true);
    return result;
  } finally {
    clearInterval(timer);
  }
}

export class DuckDbMetrics {
  private queue: Promise<unknown> = Promise.resolve();
  private oneThread = false;
  private constructor(readonly connection: DuckDBConnection) {}

  static async open(path = ":memory:"): Promise<DuckDbMetrics> {
    const { DuckDBInstance } = await duckdb();
    const instance = await DuckDBInstance.create(path);
    return new DuckDbMetrics(await instance.connect());
  }

  /** computeMetric over data in memory: checked as the in-memory engine checks it, loaded, then the SQL. */
  computeMetric(definition: MetricDefinition, data: MetricData, options: MetricOptions = {}): Promise<MetricResult> {
    return this.computeMetricFromRows(definition, () => rowSourceOfData(validateDataShape(data), options.timezone), options);
  }

  /** One thread for small tables, DuckDB's default for the rest; a statement only when that changes. */
  private async threadsFor(rows: number): Promise<void> {
    const one = rows < ONE_THREAD_BELOW;
    if (one === this.oneThread) return;
    await this.connection.run(one ? "SET threads = 1" : "RESET threads");
    this.oneThread = one;
  }

  /** The metric over rows (input/read.ts reads files into rows). Calls run one at a time. */
  computeMetricFromRows(definition: MetricDefinition, source: RowSource | (() => RowSource), options: MetricOptions = {}): Promise<MetricResult> {
    const run = async () => {
      const def = validateDefinition(definition);
      const asOf = asOfOption(options.as_of, options.timezone);
      const rows = typeof source === "function" ? source() : source;
      const loaded = await guarded(() => load(this.connection, rows));
      await guarded(() => this.threadsFor(loaded));
      return guarded(() => runMetricSql(queryOfDuckDb(this.connection), def, asOf, { variants: options.variants, cuped: options.cuped }));
    };
    const next = this.queue.then(run, run);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /**
   * The metric over two files read by DuckDB's own readers and checked by SQL (sql/files.ts): what `--engine sql`
   * runs. The same answer, and the same refusal for a bad file, as the input layer's rows give on every engine.
   * `arms` is every variant the exposures name (for the command line's check of --control and --treatment);
   * `readers` says which reader loaded each file: DuckDB's, or the input layer's when the SQL checks sent it there.
   */
  computeMetricFromFiles(definition: MetricDefinition, exposuresFile: string, eventsFile: string, read: ReadOptions = {}, options: MetricOptions = {}): Promise<{ result: MetricResult; arms: string[]; readers: Record<"exposures" | "events", "duckdb" | "input layer"> }> {
    const run = async () => {
      const def = validateDefinition(definition);
      const asOf = asOfOption(options.as_of, options.timezone);
      const rows = readFiles(exposuresFile, eventsFile, read); // checks --timezone and --delimiter; reads nothing yet
      const readers: Record<"exposures" | "events", "duckdb" | "input layer"> = { exposures: "duckdb", events: "duckdb" };
      if (read.onStepProgress) await guarded(() => this.connection.run("SET enable_progress_bar = true; SET enable_progress_bar_print = false"));
      if (!(await reporting(this.connection, `${exposuresFile}: loading and checking`, read.onStepProgress, () => guarded(() => loadNatively(this.connection, EXPOSURES, exposuresFile, read))))) {
        readers.exposures = "input layer";
        await guarded(() => appendRows(this.connection, "exposures", rows.exposures));
      }
      const metric = (step: string) => reporting(this.connection, step, read.onStepProgress, () => runMetricSql(queryOfDuckDb(this.connection), def, asOf, { variants: options.variants, cuped: options.cuped }));
      // The events, by far the larger file, are read, checked and counted in the metric's own pass, through a view
      // whose every column carries the row's checks (files.ts): no table in memory (a 50M-event CSV loaded into one
      // held 1.6 GB, against DuckDB alone's 0.3). A refused row or file fails that pass: the input layer then reads
      // the file and names what is wrong, or finds nothing wrong and loads the rows it read, and the metric runs
      // again on them.
      let result: MetricResult | undefined;
      if (await guarded(() => loadNatively(this.connection, EVENTS, eventsFile, read, "view"))) {
        try {
          result = await metric(`${eventsFile}: reading, checking and computing the metric`);
        } catch {
          await guarded(() => this.connection.run("DROP VIEW IF EXISTS events"));
        }
      }
      if (result === undefined) {
        readers.events = "input layer";
        await guarded(() => appendRows(this.connection, "events", rows.events));
        result = await guarded(() => metric("computing the metric"));
      }
      const arms = (await queryOfDuckDb(this.connection)("SELECT DISTINCT variant FROM exposures")).map((r) => String(r.variant));
      return { result, arms, readers };
    };
    const next = this.queue.then(run, run);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** The metric over the tables as they are (a database file holding `exposures` and `events`). */
  computeOnTables(definition: MetricDefinition, options: MetricOptions = {}): Promise<MetricResult> {
    const def = validateDefinition(definition);
    return guarded(() => runMetricSql(queryOfDuckDb(this.connection), def, asOfOption(options.as_of, options.timezone), { variants: options.variants, cuped: options.cuped }));
  }

  close(): void {
    this.connection.closeSync();
  }
}
