/**
 * compareVariants: the treatment's lift over the control with a 95% confidence interval.
 *
 * Absolute lift d = m_t - m_c; relative lift r = d / m_c (null when m_c is 0 or null).
 *
 * Proportions (conversion, retention): intervals built from each arm's Wilson score interval, so they stay honest
 * at 0% and 100% where Wald's collapses to a point (both arms 0/100 gives about ±0.037, not [0, 0]):
 *   absolute, Newcombe's hybrid score interval (Newcombe 1998, method 10), with (l, u) each arm's Wilson bounds:
 *     L = d - sqrt((p_t - l_t)² + (u_c - p_c)²),  U = d + sqrt((u_t - p_t)² + (p_c - l_c)²);
 *   relative, MOVER-R for the ratio θ = p_t / p_c (Donner & Zou 2012), minus 1:
 *     L = (p_t p_c - sqrt((p_t p_c)² - l_t u_c (2p_t - l_t)(2p_c - u_c))) / (u_c (2p_c - u_c)),
 *     U = (p_t p_c + sqrt((p_t p_c)² - u_t l_c (2p_t - u_t)(2p_c - l_c))) / (l_c (2p_c - l_c)).
 * Means (events per user, events per user per active day), Welch's interval on the per-user values:
 *   s² = (sum_squares - n m²) / (n - 1) per variant,  SE(d) = sqrt(s_t² / n_t + s_c² / n_c),
 *   df = SE⁴ / ((s_t²/n_t)² / (n_t - 1) + (s_c²/n_c)² / (n_c - 1)),  CI = d ± t(0.975, df) SE(d),
 *   with the exact Student t quantile (stats.ts); relative lift by the delta method (first order, independent means):
 *   Var(r) = Var(m_t) / m_c² + m_t² Var(m_c) / m_c⁴,  CI = r ± t SE(r).
 * An interval is null when it is undefined: an empty variant, fewer than two users for Welch, or a zero control.
 */
import { t975, wilson, Z_975 } from "./stats.ts";
import type { MetricResult, MetricType, VariantResult } from "./types.ts";

export interface Comparison {
  metric: MetricType;
  control: string;
  treatment: string;
  absolute_lift: number | null;
  relative_lift: number | null;
  ci95: { absolute: [number, number] | null; relative: [number, number] | null };
  method: "newcombe_wilson" | "welch_t";
}

const PROPORTIONS: readonly MetricType[] = ["conversion", "retention"];

function proportions(c: VariantResult, t: VariantResult, d: number, rel: number | null): Comparison["ci95"] {
  const pc = c.value!;
  const pt = t.value!;
  const [lc, uc] = wilson(pc, c.denominator);
  const [lt, ut] = wilson(pt, t.denominator);
  const absolute: [number, number] = [d - Math.sqrt((pt - lt) ** 2 + (uc - pc) ** 2), d + Math.sqrt((ut - pt) ** 2 + (pc - lc) ** 2)];
  if (rel === null) return { absolute, relative: null };
  const root = (x: number) => Math.sqrt(Math.max(0, x));
  const lower = (pt * pc - root((pt * pc) ** 2 - lt * uc * (2 * pt - lt) * (2 * pc - uc))) / (uc * (2 * pc - uc));
  const upper = (pt * pc + root((pt * pc) ** 2 - ut * lc * (2 * pt - ut) * (2 * pc - lc))) / (lc * (2 * pc - lc));
  return { absolute, relative: Number.isFinite(lower) && Number.isFinite(upper) ? [lower - 1, upper - 1] : null };
}

function means(c: VariantResult, t: VariantResult, d: number, rel: number | null): Comparison["ci95"] {
  const variance = (v: VariantResult) => {
    const m = v.sum / v.denominator;
    return v.denominator < 2 ? Number.NaN : Math.max(0, (v.sum_squares - v.denominator * m * m) / (v.denominator - 1));
  };
  const varMeanT = variance(t) / t.denominator;
  const varMeanC = variance(c) / c.denominator;
  const se = Math.sqrt(varMeanT + varMeanC);
  const df = se ** 4 / (varMeanT ** 2 / (t.denominator - 1) + varMeanC ** 2 / (c.denominator - 1));
  // Both variances 0: no spread, df is undefined and the interval collapses to the point estimate.
  const q = Number.isFinite(df) ? t975(df) : Z_975;
  const interval = (center: number, s: number): [number, number] | null => (Number.isFinite(s) ? [center - q * s, center + q * s] : null);
  const seRel = rel === null ? Number.NaN : Math.sqrt(varMeanT / c.value! ** 2 + (t.value! ** 2 * varMeanC) / c.value! ** 4);
  return { absolute: interval(d, se), relative: rel === null ? null : interval(rel, seRel) };
}

export function compareVariants(result: MetricResult, control: string, treatment: string): Comparison {
  const proportion = PROPORTIONS.includes(result.metric);
  const method = proportion ? "newcombe_wilson" : "welch_t";
  // Own properties only: a variant named `toString` or `constructor` must not read Object.prototype's.
  const c = Object.hasOwn(result.variants, control) ? result.variants[control] : undefined;
  const t = Object.hasOwn(result.variants, treatment) ? result.variants[treatment] : undefined;
  if (!c) throw new Error(`compareVariants: no variant "${control}" in the result`);
  if (!t) throw new Error(`compareVariants: no variant "${treatment}" in the result`);
  const base = { metric: result.metric, control, treatment, method } as const;
  if (c.value === null || t.value === null) return { ...base, absolute_lift: null, relative_lift: null, ci95: { absolute: null, relative: null } };
  const d = t.value - c.value;
  const rel = c.value === 0 ? null : d / c.value;
  return { ...base, absolute_lift: d, relative_lift: rel, ci95: proportion ? proportions(c, t, d, rel) : means(c, t, d, rel) };
}
