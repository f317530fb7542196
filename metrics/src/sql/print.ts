/**
 * `--print-sql [--dialect D]`: the metric's SQL to paste into a warehouse. The text comes from generate.ts (one
 * definition of the metric, the dialect naming its types); with a dialect it is laid out by sql-formatter in that
 * dialect's grammar, and what the dialect needs first (PostgreSQL: statistics) is said or written before it.
 */
import { format, type SqlLanguage } from "sql-formatter";
import type { MetricDefinition } from "../types.ts";
import { metricSql, type Dialect } from "./generate.ts";

const LANGUAGE: Record<Dialect, SqlLanguage> = { standard: "sql", duckdb: "duckdb", postgres: "postgresql", bigquery: "bigquery", snowflake: "snowflake" };

const BEFORE: Partial<Record<Dialect, string>> = {
  // Without statistics the planner expects one row per table and nests loops: minutes instead of seconds.
  postgres: "-- PostgreSQL plans the joins by table statistics: gather them for freshly loaded tables\nANALYZE exposures;\nANALYZE events;\n\n",
  bigquery: "-- BigQuery: qualify exposures and events with your dataset (my_dataset.exposures)\n",
  snowflake: "-- Snowflake: the tables' columns unquoted (USER_ID, VARIANT, EXPOSED_MS; USER_ID, EVENT, TS_MS)\n",
};

/** The printed text: both queries, with the note on a missing --as-of. `dialect` undefined: standard SQL as generated. */
export function printSql(def: MetricDefinition, asOf: number | undefined, options: { cuped?: boolean; dialect?: Dialect }): string {
  const sql = metricSql(def, asOf ?? Number.MAX_SAFE_INTEGER, { cuped: options.cuped, dialect: options.dialect });
  const lay = (text: string) => (options.dialect === undefined ? text : format(text, { language: LANGUAGE[options.dialect], keywordCase: "upper" }));
  const note = asOf === undefined ? "-- no --as-of: replace 9007199254740991 with your analysis time in epoch ms (default: one after MAX(ts))\n" : "";
  return `${note}${options.dialect ? (BEFORE[options.dialect] ?? "") : ""}-- per variant\n${lay(sql.variants)};\n\n-- excluded and immature users\n${lay(sql.counts)};`;
}
