/**
 * The engines a test holds to one answer: the in-memory engine, the SQL engine on DuckDB and the same SQL on
 * PostgreSQL (PGlite, a real Postgres in WebAssembly), each fed the same rows from the one input layer; and, given
 * files, DuckDB reading them with its own readers and checking them in SQL (`duckdb-files`, what `--engine sql` runs).
 * `outcomes` runs each and returns its result or its error message, so engines can be compared on either.
 */
import { PGlite } from "@electric-sql/pglite";
import { stringify } from "csv-stringify/sync";
import { computeMetricFromRows } from "../src/compute.ts";
import { readFiles, type ReadOptions } from "../src/input/read.ts";
import type { EventRow, ExposureRow, RowSource } from "../src/input/rows.ts";
import { DuckDbMetrics } from "../src/sql/duckdb.ts";
import { runMetricSql } from "../src/sql/run.ts";
import type { MetricDefinition, MetricOptions, MetricResult } from "../src/types.ts";
import { asOfOption, validateDefinition } from "../src/validate.ts";

export type EngineName = "memory" | "duckdb" | "postgres" | "duckdb-files";
export const ENGINES: readonly EngineName[] = ["memory", "duckdb", "postgres", "duckdb-files"];

/** Two files and how to read them: every engine reads them, `duckdb-files` with DuckDB's own readers. */
export interface FileInput {
  exposures: string;
  events: string;
  read?: ReadOptions;
}
export type Input = (() => RowSource) | FileInput;

export interface Engines {
  run(engine: EngineName, def: MetricDefinition, input: Input, options?: MetricOptions): Promise<MetricResult>;
  /** Files `duckdb-files` loaded with DuckDB's readers, and files its SQL checks sent to the input layer. */
  readers: { duckdb: number; "input layer": number };
  close(): Promise<void>;
}

async function collect<T>(batches: AsyncIterable<T[]> | Iterable<T[]>): Promise<T[]> {
  const out: T[] = [];
  for await (const b of batches) out.push(...b);
  return out;
}

/** Rows into PostgreSQL with COPY from CSV text (csv-stringify quotes any id), the fast way to load a million rows. */
async function loadPg(pg: PGlite, exposures: ExposureRow[], events: EventRow[]): Promise<void> {
  await pg.exec("DELETE FROM exposures; DELETE FROM events;");
  const copy = async (table: string, rows: Array<[string, string, number]>) => {
    if (rows.length === 0) return;
    await pg.query(`COPY ${table} FROM '/dev/blob' WITH (FORMAT csv)`, [], { blob: new Blob([stringify(rows)]) });
  };
  await copy("exposures", exposures.map((x) => [x.user_id, x.variant, x.ms]));
  await copy("events", events.map((e) => [e.user_id, e.event, e.ms]));
}

export async function openEngines(): Promise<Engines> {
  const duck = await DuckDbMetrics.open();
  const pg = new PGlite();
  await pg.exec("CREATE TABLE exposures (user_id VARCHAR, variant VARCHAR, exposed_ms BIGINT); CREATE TABLE events (user_id VARCHAR, event VARCHAR, ts_ms BIGINT);");
  const readers = { duckdb: 0, "input layer": 0 };
  return {
    readers,
    async run(engine, def, input, options = {}) {
      if (engine === "duckdb-files") {
        if (typeof input === "function") throw new Error("duckdb-files reads files: give a FileInput");
        const run = await duck.computeMetricFromFiles(def, input.exposures, input.events, input.read, options);
        for (const reader of Object.values(run.readers)) readers[reader]++;
        return run.result;
      }
      const source = typeof input === "function" ? input : () => readFiles(input.exposures, input.events, input.read);
      if (engine === "memory") return computeMetricFromRows(def, source(), options);
      if (engine === "duckdb") return duck.computeMetricFromRows(def, source, options);
      // PostgreSQL: the same checks first (definition, as_of, rows), then the same generated SQL.
      const checked = validateDefinition(def);
      const asOf = asOfOption(options.as_of, options.timezone);
      const rows = source();
      await loadPg(pg, await collect(rows.exposures), await collect(rows.events));
      // Freshly loaded tables have no statistics: without ANALYZE, PostgreSQL plans nested loops and hangs at 100k users.
      return runMetricSql(async (sql) => (await pg.query<Record<string, unknown>>(sql)).rows, checked, asOf, { variants: options.variants, cuped: options.cuped, analyze: true });
    },
    async close() {
      duck.close();
      await pg.close();
    },
  };
}

/** Each engine's result, or its error as `error: <message>` (`duckdb-files` only when the input is files). */
export async function outcomes(engines: Engines, def: MetricDefinition, input: Input, options?: MetricOptions): Promise<Partial<Record<EngineName, MetricResult | string>>> {
  const out: Partial<Record<EngineName, MetricResult | string>> = {};
  for (const name of ENGINES) {
    if (name === "duckdb-files" && typeof input === "function") continue;
    try {
      out[name] = await engines.run(name, def, input, options);
    } catch (err) {
      out[name] = `error: ${(err as Error).message}`;
    }
  }
  return out;
}
