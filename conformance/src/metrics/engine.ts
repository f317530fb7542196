/**
 * The engine interface the laws and cases test: any module exporting `computeMetric(definition, data, options?)`
 * with the seed's four metric types. Written here, not imported from server/, so the suite can judge another
 * team's engine as an independent oracle.
 */
export interface Exposure { user_id: string; variant: string; exposed_at: string }
export interface MetricEvent { user_id: string; event: string; timestamp: string }
export interface Data { exposures: Exposure[]; events: MetricEvent[] }
export type Definition =
  | { type: "conversion" | "events_per_user"; event: string; window_days?: number }
  | { type: "events_per_user_per_active_day"; event: string; window_days?: number; active_day?: "metric_event" | "any_event" }
  | { type: "retention"; event: string; threshold: number; window_days: number };
export interface VariantResult { value: number | null; numerator: number; denominator: number }
export interface Result { variants: Record<string, VariantResult>; excluded_users: number; immature_users?: number }
export interface Options { variants?: string[]; as_of?: string }

/** `computeMetric` may answer at once or with a promise (an engine over a database). */
export interface MetricsEngine {
  computeMetric(definition: Definition, data: Data, options?: Options): Result | Promise<Result>;
}
