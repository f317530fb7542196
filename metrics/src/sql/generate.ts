/**
 * The four success metrics as SQL over two tables, with the same rules as compute.ts:
 *
 *   exposures(user_id VARCHAR, variant VARCHAR, exposed_ms BIGINT)   -- one row per exposure
 *   events(user_id VARCHAR, event VARCHAR, ts_ms BIGINT)             -- one row per event
 *
 * Times are epoch milliseconds (UTC), so windows and UTC days are integer arithmetic that every warehouse does the
 * same way. The text is standard SQL (CTEs, CASE, COUNT(DISTINCT), CAST ... AS DOUBLE PRECISION), the same for
 * every dialect but for the names of its two types (`DIALECT_TYPES`: BigQuery has FLOAT64 and INT64); the tests run
 * it on DuckDB and PostgreSQL and parse it as BigQuery and Snowflake. Definition values are inlined as literals
 * (numbers checked, strings quoted by doubling '), so a definition cannot inject SQL.
 */
import type { MetricDefinition } from "../types.ts";
import { windowMs } from "../validate.ts";


export interface MetricSql {
  /** One row per variant: variant, denominator, total (sum of per-user values), total_squares. */
  variants: string;
  /** One row: excluded_users, immature_users. */
  counts: string;
}

const literal = (s: string) => `'${s.replace(/'/g, "''")}'`;
const integer = (n: number) => {
  if (!Number.isSafeInteger(n)) throw new Error(`not a safe integer: ${n}`);
  return String(n);
};

export type Dialect = "standard" | "duckdb" | "postgres" | "bigquery" | "snowflake";
export const DIALECTS: readonly Dialect[] = ["standard", "duckdb", "postgres", "bigquery", "snowflake"];

/** The only words that differ between the dialects: the names of a double and an integer type. */
export const DIALECT_TYPES: Record<Dialect, { double: string; integer: string }> = {
  standard: { double: "DOUBLE PRECISION", integer: "INTEGER" },
  duckdb: { double: "DOUBLE PRECISION", integer: "INTEGER" },
  postgres: { double: "DOUBLE PRECISION", integer: "INTEGER" },
  bigquery: { double: "FLOAT64", integer: "INT64" },
  snowflake: { double: "DOUBLE PRECISION", integer: "INTEGER" },
};

export interface MetricSqlOptions {
  /** Also sum each user's pre-exposure value (x) per variant: pre_total, pre_total_squares, pre_total_products. */
  cuped?: boolean;
  /** The database the text is for (default standard SQL, which DuckDB and PostgreSQL run). */
  dialect?: Dialect;
}

/** The query giving the data's last timestamp (`last_ms`, NULL without data): the default analysis time is just after it. */
export const LAST_TIMESTAMP_SQL = "SELECT MAX(ms) AS last_ms FROM (SELECT MAX(exposed_ms) AS ms FROM exposures UNION ALL SELECT MAX(ts_ms) AS ms FROM events) t";

export function metricSql(def: MetricDefinition, asOfMs: number, options: MetricSqlOptions = {}): MetricSql {
  const event = literal(def.event);
  const window = windowMs(def);
  const windowSql = window === undefined ? null : integer(window);
  const asOf = integer(asOfMs);
  const anyEventDays = def.type === "events_per_user_per_active_day" && def.active_day === "any_event";
  const cuped = options.cuped === true;
  const { double, integer: int } = DIALECT_TYPES[options.dialect ?? "standard"];
  const day = `FLOOR(CAST(w.ts_ms AS ${double}) / 86400000)`;
  const cohort = [
    "WITH first_exposure AS (",
    "  SELECT user_id, MIN(variant) AS variant, COUNT(DISTINCT variant) AS variant_count, MIN(exposed_ms) AS exposed_ms",
    "  FROM exposures",
    `  WHERE exposed_ms < ${asOf}`,
    "  GROUP BY user_id",
    "),",
    "eligible AS (",
    "  SELECT user_id, variant, exposed_ms FROM first_exposure WHERE variant_count = 1",
    "),",
    "analysed AS (",
    `  SELECT user_id, variant, exposed_ms FROM eligible${windowSql === null ? "" : ` WHERE exposed_ms + ${windowSql} <= ${asOf}`}`,
    ")",
  ];
  const one = `CAST(1 AS ${double})`;
  const zero = `CAST(0 AS ${double})`;
  // The per-user value from a user's counted events (n) and active days, in columns named with `p`.
  const perUserValue = (p: string) => ({
    conversion: `CASE WHEN ${p}n > 0 THEN ${one} ELSE ${zero} END`,
    events_per_user: `CAST(${p}n AS ${double})`,
    events_per_user_per_active_day: `CASE WHEN ${p}n > 0 THEN CAST(${p}n AS ${double}) / ${anyEventDays ? `${p}any_days` : `${p}metric_days`} ELSE ${zero} END`,
    retention: `CASE WHEN ${p}n >= ${def.type === "retention" ? integer(def.threshold) : "1"} THEN ${one} ELSE ${zero} END`,
  })[def.type];
  const perUser = (name: string, windowed: string, p: string) => [
    `${name} AS (`,
    "  SELECT a.user_id, a.variant,",
    `    COUNT(CASE WHEN w.event = ${event} THEN 1 END) AS ${p}n,`,
    `    COUNT(DISTINCT CASE WHEN w.event = ${event} THEN ${day} END) AS ${p}metric_days,`,
    `    COUNT(DISTINCT ${day}) AS ${p}any_days`,
    `  FROM analysed a LEFT JOIN ${windowed} w ON w.user_id = a.user_id`,
    "  GROUP BY a.user_id, a.variant",
    "),",
  ];
  const onlyMetric = anyEventDays ? "" : ` AND e.event = ${event}`;
  const variants = [
    ...cohort.slice(0, -1),
    "),",
    "windowed AS (",
    "  SELECT a.user_id, e.event, e.ts_ms",
    "  FROM analysed a JOIN events e ON e.user_id = a.user_id",
    `  WHERE e.ts_ms >= a.exposed_ms AND e.ts_ms < ${asOf}${windowSql === null ? "" : ` AND e.ts_ms < a.exposed_ms + ${windowSql}`}${onlyMetric}`,
    "),",
    ...perUser("per_user", "windowed", ""),
    ...(cuped
      ? [
          // CUPED's covariate: the same metric over the same length of time just before the exposure.
          "pre_windowed AS (",
          "  SELECT a.user_id, e.event, e.ts_ms",
          "  FROM analysed a JOIN events e ON e.user_id = a.user_id",
          `  WHERE e.ts_ms < a.exposed_ms${windowSql === null ? "" : ` AND e.ts_ms >= a.exposed_ms - ${windowSql}`}${onlyMetric}`,
          "),",
          ...perUser("pre_user", "pre_windowed", "pre_"),
          "per_user_value AS (",
          `  SELECT u.variant, ${perUserValue("u.")} AS value, ${perUserValue("p.pre_")} AS pre_value`,
          "  FROM per_user u JOIN pre_user p ON p.user_id = u.user_id",
          ")",
        ]
      : ["per_user_value AS (", `  SELECT variant, ${perUserValue("")} AS value FROM per_user`, ")"]),
    `SELECT variant, CAST(COUNT(*) AS ${int}) AS denominator, SUM(value) AS total, SUM(value * value) AS total_squares${cuped ? ", SUM(pre_value) AS pre_total, SUM(pre_value * pre_value) AS pre_total_squares, SUM(value * pre_value) AS pre_total_products" : ""}`,
    "FROM per_user_value",
    "GROUP BY variant",
    "ORDER BY variant",
  ].join("\n");
  const counts = [
    ...cohort,
    "SELECT",
    `  CAST((SELECT COUNT(*) FROM first_exposure WHERE variant_count > 1) AS ${int}) AS excluded_users,`,
    `  CAST((SELECT COUNT(*) FROM eligible) - (SELECT COUNT(*) FROM analysed) AS ${int}) AS immature_users`,
  ].join("\n");
  return { variants, counts };
}
