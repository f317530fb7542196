/**
 * The four success metrics as SQL over two tables, with the same rules as compute.ts:
 *
 *   exposures(user_id VARCHAR, variant VARCHAR, exposed_ms BIGINT)   -- one row per exposure
 *   events(user_id VARCHAR, event VARCHAR, ts_ms BIGINT)             -- one row per event
 *
 * Times are epoch milliseconds (UTC), so windows and UTC days are integer arithmetic that every warehouse does the
 * same way. The text is standard SQL (CTEs, CASE, COUNT(DISTINCT), CAST ... AS DOUBLE PRECISION): one text, no
 * dialect switch; the tests run it unchanged on DuckDB and on PostgreSQL. Definition values are inlined as
 * literals (numbers checked, strings quoted by doubling '), so a definition cannot inject SQL.
 */
import type { MetricDefinition } from "../types.ts";

const DAY_MS = 86_400_000;

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

export function metricSql(def: MetricDefinition, asOfMs: number): MetricSql {
  const event = literal(def.event);
  const windowMs = def.window_days === undefined ? null : integer(Math.round(def.window_days * DAY_MS));
  const asOf = integer(asOfMs);
  const anyEventDays = def.type === "events_per_user_per_active_day" && def.active_day === "any_event";
  const day = "FLOOR(CAST(w.ts_ms AS DOUBLE PRECISION) / 86400000)";
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
    `  SELECT user_id, variant, exposed_ms FROM eligible${windowMs === null ? "" : ` WHERE exposed_ms + ${windowMs} <= ${asOf}`}`,
    ")",
  ];
  const perUserValue = {
    conversion: "CASE WHEN n > 0 THEN CAST(1 AS DOUBLE PRECISION) ELSE CAST(0 AS DOUBLE PRECISION) END",
    events_per_user: "CAST(n AS DOUBLE PRECISION)",
    events_per_user_per_active_day: `CASE WHEN n > 0 THEN CAST(n AS DOUBLE PRECISION) / ${anyEventDays ? "any_days" : "metric_days"} ELSE CAST(0 AS DOUBLE PRECISION) END`,
    retention: `CASE WHEN n >= ${def.type === "retention" ? integer(def.threshold) : "1"} THEN CAST(1 AS DOUBLE PRECISION) ELSE CAST(0 AS DOUBLE PRECISION) END`,
  }[def.type];
  const variants = [
    ...cohort.slice(0, -1),
    "),",
    "windowed AS (",
    "  SELECT a.user_id, e.event, e.ts_ms",
    "  FROM analysed a JOIN events e ON e.user_id = a.user_id",
    `  WHERE e.ts_ms >= a.exposed_ms AND e.ts_ms < ${asOf}${windowMs === null ? "" : ` AND e.ts_ms < a.exposed_ms + ${windowMs}`}${anyEventDays ? "" : ` AND e.event = ${event}`}`,
    "),",
    "per_user AS (",
    "  SELECT a.user_id, a.variant,",
    `    COUNT(CASE WHEN w.event = ${event} THEN 1 END) AS n,`,
    `    COUNT(DISTINCT CASE WHEN w.event = ${event} THEN ${day} END) AS metric_days,`,
    `    COUNT(DISTINCT ${day}) AS any_days`,
    "  FROM analysed a LEFT JOIN windowed w ON w.user_id = a.user_id",
    "  GROUP BY a.user_id, a.variant",
    "),",
    "per_user_value AS (",
    `  SELECT variant, ${perUserValue} AS value FROM per_user`,
    ")",
    "SELECT variant, CAST(COUNT(*) AS INTEGER) AS denominator, SUM(value) AS total, SUM(value * value) AS total_squares",
    "FROM per_user_value",
    "GROUP BY variant",
    "ORDER BY variant",
  ].join("\n");
  const counts = [
    ...cohort,
    "SELECT",
    "  CAST((SELECT COUNT(*) FROM first_exposure WHERE variant_count > 1) AS INTEGER) AS excluded_users,",
    "  CAST((SELECT COUNT(*) FROM eligible) - (SELECT COUNT(*) FROM analysed) AS INTEGER) AS immature_users",
  ].join("\n");
  return { variants, counts };
}
