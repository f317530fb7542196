/** Inputs and outputs of the success-metrics engine. */
export type MetricType = "conversion" | "events_per_user" | "events_per_user_per_active_day" | "retention";

/** Which days count as active for the per-active-day metric: days with the metric's own event (default), or with any event. */
export type ActiveDay = "metric_event" | "any_event";

export type MetricDefinition =
  | { type: "conversion"; event: string; window_days?: number }
  | { type: "events_per_user"; event: string; window_days?: number }
  | { type: "events_per_user_per_active_day"; event: string; window_days?: number; active_day?: ActiveDay }
  | { type: "retention"; event: string; threshold: number; window_days: number };

export interface Exposure {
  user_id: string;
  variant: string;
  /** ISO 8601 timestamp with an offset (`Z` or `+hh:mm`), or without one when the options name a `timezone`. */
  exposed_at: string;
}

export interface MetricEvent {
  user_id: string;
  event: string;
  timestamp: string;
}

export interface MetricData {
  exposures: readonly Exposure[];
  events: readonly MetricEvent[];
}

export interface MetricOptions {
  /** Variants to report even when nobody was exposed to them (their value is then null). */
  variants?: readonly string[];
  /**
   * The time the analysis is made at (ISO 8601; default: one millisecond after the data's last timestamp, never the
   * wall clock, so the same data gives the same answer on any day). Exposures and events at or after it do not exist
   * yet, and a user whose window (`window_days`) has not ended by then is immature: excluded from every variant and
   * counted in `immature_users`, instead of counting as not converted.
   */
  as_of?: string;
  /** IANA time zone (`Europe/Paris`) of timestamps written without an offset; without it they are refused. */
  timezone?: string;
  /** Also sum each user's pre-exposure value of the metric per variant (`VariantResult.pre`), for CUPED. */
  cuped?: boolean;
}

/** Sums of the users' pre-exposure values x (CUPED's covariate) next to their values y. */
export interface PreExposureSums {
  /** Σx */
  sum: number;
  /** Σx² */
  sum_squares: number;
  /** Σxy */
  sum_products: number;
}

export interface VariantResult {
  /** numerator / denominator; null when nobody was exposed (never 0 or NaN). */
  value: number | null;
  /** Converting users, total counted events, sum of per-user intensities, or retained users. */
  numerator: number;
  /** Distinct exposed users of the variant (excluded users not counted). */
  denominator: number;
  /** Sum of the per-user values, zeros included (equals numerator). */
  sum: number;
  /** Sum of the squared per-user values: with `sum` and `denominator`, the variance for confidence intervals. */
  sum_squares: number;
  /** With `cuped`: the sums of the pre-exposure values. */
  pre?: PreExposureSums;
}

export interface MetricResult {
  metric: MetricType;
  event: string;
  variants: Record<string, VariantResult>;
  /** Users exposed to more than one variant, left out of every variant. */
  excluded_users: number;
  /** Users whose window had not ended at `as_of`, left out of every variant. */
  immature_users: number;
  /** The analysis time used, ISO 8601 UTC; null when there is no data and none was given. */
  as_of: string | null;
  /** Where `as_of` came from: the options, or the data (one millisecond after its last timestamp). */
  as_of_source: "options" | "data";
}
