/**
 * The SQL engine on embedded DuckDB: validates the input exactly as the in-memory engine does, loads it into the
 * two tables with DuckDB's appender, and runs the generated SQL. For data that outgrows memory, `duckdbFromFiles`
 * defines the same two tables as views over CSV or Parquet files, so nothing is loaded into Node at all.
 */
import type { MetricData, MetricDefinition, MetricOptions, MetricResult } from "../types.ts";
import { asOfMs, parseTimestamp, requireId, validateDataShape, validateDefinition } from "../validate.ts";
import { runMetricSql, type Query } from "./run.ts";

/**
 * The part of a DuckDB connection this engine uses, typed structurally: the published declarations must not name
 * `@duckdb/node-api`, an optional peer that a user of the in-memory engine does not install.
 */
export interface DuckDBConnection {
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

async function load(connection: DuckDBConnection, data: MetricData): Promise<void> {
  await connection.run("CREATE OR REPLACE TABLE exposures (user_id VARCHAR, variant VARCHAR, exposed_ms BIGINT)");
  await connection.run("CREATE OR REPLACE TABLE events (user_id VARCHAR, event VARCHAR, ts_ms BIGINT)");
  const exposures = await connection.createAppender("exposures");
  data.exposures.forEach((x, i) => {
    exposures.appendVarchar(requireId(x?.user_id, `exposures[${i}].user_id`));
    exposures.appendVarchar(requireId(x.variant, `exposures[${i}].variant`));
    exposures.appendBigInt(BigInt(parseTimestamp(x.exposed_at, `exposures[${i}].exposed_at`)));
    exposures.endRow();
  });
  exposures.closeSync();
  const events = await connection.createAppender("events");
  data.events.forEach((e, i) => {
    events.appendVarchar(requireId(e?.user_id, `events[${i}].user_id`));
    events.appendVarchar(requireId(e.event, `events[${i}].event`));
    events.appendBigInt(BigInt(parseTimestamp(e.timestamp, `events[${i}].timestamp`)));
    events.endRow();
  });
  events.closeSync();
}

export class DuckDbMetrics {
  private queue: Promise<unknown> = Promise.resolve();
  private constructor(readonly connection: DuckDBConnection) {}

  static async open(path = ":memory:"): Promise<DuckDbMetrics> {
    const { DuckDBInstance } = await duckdb();
    const instance = await DuckDBInstance.create(path);
    return new DuckDbMetrics(await instance.connect());
  }

  /** computeMetric over data in memory: loaded into the tables, then the SQL. Calls run one at a time. */
  computeMetric(definition: MetricDefinition, data: MetricData, options: MetricOptions = {}): Promise<MetricResult> {
    const run = async () => {
      const def = validateDefinition(definition);
      const shape = validateDataShape(data);
      const asOf = asOfMs(options.as_of);
      await load(this.connection, shape);
      return runMetricSql(queryOfDuckDb(this.connection), def, asOf, options.variants);
    };
    const next = this.queue.then(run, run);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** The metric over the tables as they are (loaded by `load`, or views over files). */
  computeOnTables(definition: MetricDefinition, options: MetricOptions = {}): Promise<MetricResult> {
    return runMetricSql(queryOfDuckDb(this.connection), validateDefinition(definition), asOfMs(options.as_of), options.variants);
  }

  close(): void {
    this.connection.closeSync();
  }
}

const sqlPath = (p: string) => `'${p.replace(/'/g, "''")}'`;
const reader = (p: string) => (/\.parquet$/i.test(p) ? `read_parquet(${sqlPath(p)})` : `read_csv(${sqlPath(p)}, header = true, all_varchar = true)`);

/** Views `exposures` and `events` over files with the columns user_id, variant, exposed_at / user_id, event, timestamp (ISO 8601). */
export async function duckdbFromFiles(exposuresFile: string, eventsFile: string): Promise<DuckDbMetrics> {
  const db = await DuckDbMetrics.open();
  await db.connection.run(`CREATE VIEW exposures AS SELECT CAST(user_id AS VARCHAR) AS user_id, CAST(variant AS VARCHAR) AS variant, epoch_ms(CAST(exposed_at AS TIMESTAMPTZ)) AS exposed_ms FROM ${reader(exposuresFile)}`);
  await db.connection.run(`CREATE VIEW events AS SELECT CAST(user_id AS VARCHAR) AS user_id, CAST(event AS VARCHAR) AS event, epoch_ms(CAST("timestamp" AS TIMESTAMPTZ)) AS ts_ms FROM ${reader(eventsFile)}`);
  return db;
}
