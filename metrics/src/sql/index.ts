/**
 * The SQL engine as a module with the same `computeMetric` as the in-memory engine (asynchronous), so the
 * conformance suite can hold it to the same laws: `--metrics-engine metrics/src/sql/index.ts`.
 */
import type { MetricData, MetricDefinition, MetricOptions, MetricResult } from "../types.ts";
import { DuckDbMetrics } from "./duckdb.ts";

export { metricSql } from "./generate.ts";
export { runMetricSql, type Query } from "./run.ts";
export { DuckDbMetrics, SqlEngineError } from "./duckdb.ts";

let shared: Promise<DuckDbMetrics> | undefined;

export async function computeMetric(definition: MetricDefinition, data: MetricData, options?: MetricOptions): Promise<MetricResult> {
  shared ??= DuckDbMetrics.open();
  return (await shared).computeMetric(definition, data, options);
}
