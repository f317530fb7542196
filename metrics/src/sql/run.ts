/**
 * Runs the generated metric SQL on any database through a `query` function, and shapes the rows into the same
 * MetricResult as the in-memory engine. The database only has to hold the `exposures` and `events` tables.
 */
import type { MetricDefinition, MetricResult, VariantResult } from "../types.ts";
import { variantRecord } from "../validate.ts";
import { metricSql } from "./generate.ts";

export type Query = (sql: string) => Promise<Array<Record<string, unknown>>>;

const num = (v: unknown) => (typeof v === "bigint" ? Number(v) : Number(v ?? 0));

export async function runMetricSql(query: Query, def: MetricDefinition, asOfMs: number, variantsToShow: readonly string[] = []): Promise<MetricResult> {
  const sql = metricSql(def, asOfMs);
  const [rows, [counts]] = [await query(sql.variants), await query(sql.counts)];
  const variants = new Map<string, VariantResult>();
  for (const v of variantsToShow) variants.set(v, { value: null, numerator: 0, denominator: 0, sum: 0, sum_squares: 0 });
  for (const row of rows) {
    const denominator = num(row.denominator);
    const sum = num(row.total);
    variants.set(String(row.variant), { value: denominator === 0 ? null : sum / denominator, numerator: sum, denominator, sum, sum_squares: num(row.total_squares) });
  }
  return {
    metric: def.type, event: def.event, variants: variantRecord(variants),
    excluded_users: num(counts?.excluded_users), immature_users: num(counts?.immature_users), as_of: new Date(asOfMs).toISOString(),
  };
}
