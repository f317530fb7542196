/**
 * Runs the generated metric SQL on any database through a `query` function, and shapes the rows into the same
 * MetricResult as the in-memory engine. The database only has to hold the `exposures` and `events` tables.
 */
import type { MetricDefinition, MetricResult, VariantResult } from "../types.ts";
import { variantRecord } from "../validate.ts";
import { LAST_TIMESTAMP_SQL, metricSql } from "./generate.ts";

export type Query = (sql: string) => Promise<Array<Record<string, unknown>>>;

export interface RunOptions {
  /** Variants to report even when nobody was exposed to them. */
  variants?: readonly string[];
  /** With the pre-exposure sums for CUPED. */
  cuped?: boolean;
  /**
   * When to run `ANALYZE` on `exposures` and `events` first. PostgreSQL (and PGlite) plan the joins by table
   * statistics, and freshly loaded tables have none: the planner then expects one row and picks nested loops, which
   * at 100,000 users runs for minutes instead of seconds.
   * - `"when-missing"` (the default): on PostgreSQL only (its `version()`), each table that has never been analysed
   *   (`pg_class.reltuples <= 0`); other databases are left alone;
   * - `true`: always, on any database (it must know `ANALYZE <table>`);
   * - `false`: never (a role that may not analyse, or statistics you keep yourself).
   */
  analyze?: boolean | "when-missing";
}

const TABLES = ["exposures", "events"] as const;

/**
 * The metric tables PostgreSQL has no statistics for: never analysed (reltuples -1 since PostgreSQL 14) or analysed
 * while empty (0). Empty on any other database, told by `version()` (DuckDB answers `v1...`; BigQuery and Snowflake
 * refuse the call, which is taken as "not PostgreSQL").
 */
async function tablesWithoutStatistics(query: Query): Promise<string[]> {
  let version: string;
  try {
    version = String((await query("SELECT version() AS version"))[0]?.version ?? "");
  } catch {
    return [];
  }
  if (!/^PostgreSQL\b/.test(version)) return [];
  const rows = await query("SELECT relname FROM pg_class WHERE oid IN (to_regclass('exposures'), to_regclass('events')) AND reltuples <= 0");
  return TABLES.filter((t) => rows.some((r) => r.relname === t));
}

const num = (v: unknown) => (typeof v === "bigint" ? Number(v) : Number(v ?? 0));

/**
 * The metric on the database. `asOfMs` undefined: one millisecond after the tables' last timestamp, as the in-memory
 * engine does (and no analysis time when the tables are empty).
 */
export async function runMetricSql(query: Query, def: MetricDefinition, asOfMs: number | undefined, options: RunOptions = {}): Promise<MetricResult> {
  const { variants: show = [], cuped = false } = options;
  const analyze = options.analyze ?? "when-missing";
  const unanalysed = analyze === true ? TABLES : analyze === false ? [] : await tablesWithoutStatistics(query);
  for (const table of unanalysed) await query(`ANALYZE ${table}`);
  let asOf = asOfMs;
  if (asOf === undefined) {
    const [row] = await query(LAST_TIMESTAMP_SQL);
    asOf = row?.last_ms === null || row?.last_ms === undefined ? undefined : num(row.last_ms) + 1;
  }
  // Without data there is nothing to cut off: any instant past every timestamp gives the same (empty) answer.
  const sql = metricSql(def, asOf ?? Number.MAX_SAFE_INTEGER, { cuped });
  const [rows, [counts]] = [await query(sql.variants), await query(sql.counts)];
  const variants = new Map<string, VariantResult>();
  const empty = (): VariantResult => ({ value: null, numerator: 0, denominator: 0, sum: 0, sum_squares: 0, ...(cuped ? { pre: { sum: 0, sum_squares: 0, sum_products: 0 } } : {}) });
  for (const v of show) variants.set(v, empty());
  for (const row of rows) {
    const denominator = num(row.denominator);
    const sum = num(row.total);
    variants.set(String(row.variant), {
      value: denominator === 0 ? null : sum / denominator, numerator: sum, denominator, sum, sum_squares: num(row.total_squares),
      ...(cuped ? { pre: { sum: num(row.pre_total), sum_squares: num(row.pre_total_squares), sum_products: num(row.pre_total_products) } } : {}),
    });
  }
  return {
    metric: def.type, event: def.event, variants: variantRecord(variants, show),
    excluded_users: num(counts?.excluded_users), immature_users: num(counts?.immature_users),
    as_of: asOf === undefined ? null : new Date(asOf).toISOString(), as_of_source: asOfMs === undefined ? "data" : "options",
  };
}
