/**
 * compareVariants: the treatment's lift over the control with a 95% confidence interval.
 *
 * Absolute lift d = m_t - m_c; relative lift r = d / m_c (null when m_c is 0 or null).
 *
 * Proportions (conversion, retention), Wald interval for a difference of proportions:
 *   SE(d) = sqrt(p_t (1 - p_t) / n_t + p_c (1 - p_c) / n_c),  CI = d ± 1.96 SE(d).
 * Means (events per user, events per user per active day), Welch's interval on the per-user values:
 *   s² = (sum_squares - n m²) / (n - 1) per variant,  SE(d) = sqrt(s_t² / n_t + s_c² / n_c),
 *   df = SE⁴ / ((s_t²/n_t)² / (n_t - 1) + (s_c²/n_c)² / (n_c - 1)),  CI = d ± t(0.975, df) SE(d).
 * Relative lift, delta method (first-order, treating the two means as independent):
 *   Var(r) = Var(m_t) / m_c² + m_t² Var(m_c) / m_c⁴,  CI = r ± q SE(r) with q the same critical value.
 * An interval is null when it is undefined: an empty variant, fewer than two users for Welch, or a zero control.
 */
import { t975, Z_975 } from "./stats.ts";
import type { MetricResult, MetricType, VariantResult } from "./types.ts";

export interface Comparison {
  metric: MetricType;
  control: string;
  treatment: string;
  absolute_lift: number | null;
  relative_lift: number | null;
  ci95: { absolute: [number, number] | null; relative: [number, number] | null };
  method: "wald_difference_of_proportions" | "welch_t";
}

const PROPORTIONS: readonly MetricType[] = ["conversion", "retention"];

function variance(v: VariantResult, proportion: boolean): number {
  const n = v.denominator;
  const m = v.sum / n;
  if (proportion) return m * (1 - m);
  return n < 2 ? Number.NaN : Math.max(0, (v.sum_squares - n * m * m) / (n - 1));
}

export function compareVariants(result: MetricResult, control: string, treatment: string): Comparison {
  const proportion = PROPORTIONS.includes(result.metric);
  const method = proportion ? "wald_difference_of_proportions" : "welch_t";
  const c = result.variants[control];
  const t = result.variants[treatment];
  if (!c) throw new Error(`compareVariants: no variant "${control}" in the result`);
  if (!t) throw new Error(`compareVariants: no variant "${treatment}" in the result`);
  const base = { metric: result.metric, control, treatment, method } as const;
  if (c.value === null || t.value === null) return { ...base, absolute_lift: null, relative_lift: null, ci95: { absolute: null, relative: null } };

  const d = t.value - c.value;
  const rel = c.value === 0 ? null : d / c.value;
  const varMeanT = variance(t, proportion) / t.denominator;
  const varMeanC = variance(c, proportion) / c.denominator;
  const se = Math.sqrt(varMeanT + varMeanC);
  let q = Z_975;
  if (!proportion) {
    const df = se ** 4 / (varMeanT ** 2 / (t.denominator - 1) + varMeanC ** 2 / (c.denominator - 1));
    // Both variances 0: no spread, the interval collapses to the point estimate.
    q = Number.isFinite(df) ? t975(df) : Z_975;
  }
  const interval = (center: number, s: number): [number, number] | null => (Number.isFinite(s) ? [center - q * s, center + q * s] : null);
  const seRel = rel === null ? Number.NaN : Math.sqrt(varMeanT / c.value ** 2 + (t.value ** 2 * varMeanC) / c.value ** 4);
  return {
    ...base,
    absolute_lift: d,
    relative_lift: rel,
    ci95: { absolute: interval(d, se), relative: rel === null ? null : interval(rel, seRel) },
  };
}
