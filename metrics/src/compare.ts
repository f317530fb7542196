/**
 * compareVariants: the treatment's lift over the control, with confidence intervals at a chosen level (default 95%)
 * and a two-sided p-value of no difference.
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
 *   df = SE⁴ / ((s_t²/n_t)² / (n_t - 1) + (s_c²/n_c)² / (n_c - 1)),  CI = d ± t((1 + level) / 2, df) SE(d),
 *   with the exact Student t quantile (stats.ts); relative lift by the delta method (first order, independent means):
 *   Var(r) = Var(m_t) / m_c² + m_t² Var(m_c) / m_c⁴,  CI = r ± t SE(r).
 * p-values, two-sided: proportions by the pooled two-proportion z test (the chi-square test without continuity
 *   correction), z = d / sqrt(p̄ (1 - p̄) (1/n_t + 1/n_c)); means by Welch's t test, t = d / SE(d) with the df above.
 * An interval or p-value is null when it is undefined: an empty variant, a zero control (relative lift), and for
 * means fewer than two users in an arm or no variance in either arm. Then `not_estimable` says why: two arms where
 * every user has the same value give no interval, never a point such as [1, 1].
 */
import { DEFAULT_SEQUENTIAL_TUNING, sequentialHalfWidth, sequentialPValue } from "./sequential.ts";
import { tCritical, tPValue, wilson, zCritical, zPValue } from "./stats.ts";
import type { MetricResult, MetricType, VariantResult } from "./types.ts";
import { MetricInputError } from "./validate.ts";
import { show } from "./show.ts";

type Interval = [number, number] | null;
interface Intervals {
  absolute: Interval;
  relative: Interval;
}

export interface Comparison {
  metric: MetricType;
  control: string;
  treatment: string;
  absolute_lift: number | null;
  relative_lift: number | null;
  /** The level of `ci` (default 0.95). */
  confidence: number;
  ci: Intervals;
  /** The intervals at 95%, whatever `confidence` is (as in 1.x). */
  ci95: Intervals;
  /** Two-sided p-value of no difference; null when the test is undefined (see `not_estimable`). */
  p_value: number | null;
  /** Why an interval or the p-value cannot be given; absent when everything is estimable. */
  not_estimable?: string;
  method: "newcombe_wilson" | "welch_t" | "cuped_welch_t" | "sequential_asymptotic_cs";
  /** With `sequential`: always-valid intervals and p-value (sequential.ts), and the tuning parameter N* used. */
  sequential?: { tuning: number };
  /** With `cuped`: the regression slope used and the share of the variance it removed. */
  cuped?: { theta: number; variance_reduction: number };
}

export interface CompareOptions {
  /** Confidence level of `ci`, in (0, 1): 0.90, 0.95 (default), 0.99, ... */
  confidence?: number;
  /** CUPED variance reduction, from a result computed with `{ cuped: true }`: Welch's test on the adjusted values. */
  cuped?: boolean;
  /** Always-valid intervals for daily peeks (sequential.ts); `tuning` is N* (default 5,000). */
  sequential?: boolean | { tuning?: number };
}

const PROPORTIONS: readonly MetricType[] = ["conversion", "retention"];

function proportionIntervals(c: VariantResult, t: VariantResult, d: number, rel: number | null, level: number): Intervals {
  const pc = c.value!;
  const pt = t.value!;
  const z = zCritical(level);
  const [lc, uc] = wilson(pc, c.denominator, z);
  const [lt, ut] = wilson(pt, t.denominator, z);
  const absolute: [number, number] = [d - Math.sqrt((pt - lt) ** 2 + (uc - pc) ** 2), d + Math.sqrt((ut - pt) ** 2 + (pc - lc) ** 2)];
  if (rel === null) return { absolute, relative: null };
  const root = (x: number) => Math.sqrt(Math.max(0, x));
  const lower = (pt * pc - root((pt * pc) ** 2 - lt * uc * (2 * pt - lt) * (2 * pc - uc))) / (uc * (2 * pc - uc));
  const upper = (pt * pc + root((pt * pc) ** 2 - ut * lc * (2 * pt - ut) * (2 * pc - lc))) / (lc * (2 * pc - lc));
  return { absolute, relative: Number.isFinite(lower) && Number.isFinite(upper) ? [lower - 1, upper - 1] : null };
}

function proportions(c: VariantResult, t: VariantResult, d: number, rel: number | null, level: number) {
  const pooled = (c.sum + t.sum) / (c.denominator + t.denominator);
  const se0 = Math.sqrt(pooled * (1 - pooled) * (1 / c.denominator + 1 / t.denominator));
  const p = se0 > 0 ? zPValue(d / se0) : null;
  return {
    ci: proportionIntervals(c, t, d, rel, level),
    ci95: proportionIntervals(c, t, d, rel, 0.95),
    p_value: p,
    ...(p === null ? { not_estimable: `p-value: both arms are at ${pooled === 0 ? "0%" : "100%"}, so the test has no variance (the Wilson-based intervals still hold)` } : {}),
  };
}

/** An arm's per-user values summarized: users, mean, sample variance. */
interface Moments {
  n: number;
  mean: number;
  variance: number;
}

const momentsOf = (v: VariantResult): Moments => {
  const mean = v.sum / v.denominator;
  return { n: v.denominator, mean, variance: v.denominator < 2 ? Number.NaN : Math.max(0, (v.sum_squares - v.denominator * mean * mean) / (v.denominator - 1)) };
};

/** Welch's interval and test on two arms' moments; the relative lift by the delta method. */
function welch(c: Moments, t: Moments, level: number) {
  const d = t.mean - c.mean;
  const rel = c.mean === 0 ? null : d / c.mean;
  const none = { absolute_lift: d, relative_lift: rel, ci: { absolute: null, relative: null }, ci95: { absolute: null, relative: null }, p_value: null };
  if (c.n < 2 || t.n < 2) return { ...none, not_estimable: "fewer than two users in an arm: no variance can be estimated" };
  const varMeanT = t.variance / t.n;
  const varMeanC = c.variance / c.n;
  if (varMeanT === 0 && varMeanC === 0) return { ...none, not_estimable: "zero variance in both arms: every user of each arm has the same value" };
  const se = Math.sqrt(varMeanT + varMeanC);
  const df = se ** 4 / (varMeanT ** 2 / (t.n - 1) + varMeanC ** 2 / (c.n - 1));
  const seRel = rel === null ? Number.NaN : Math.sqrt(varMeanT / c.mean ** 2 + (t.mean ** 2 * varMeanC) / c.mean ** 4);
  const at = (lvl: number): Intervals => {
    const q = tCritical(lvl, df);
    const interval = (center: number, s: number): Interval => (Number.isFinite(s) ? [center - q * s, center + q * s] : null);
    return { absolute: interval(d, se), relative: rel === null ? null : interval(rel, seRel) };
  };
  return { absolute_lift: d, relative_lift: rel, ci: at(level), ci95: at(0.95), p_value: tPValue(d / se, df) };
}

/**
 * CUPED (Deng, Xu, Kohavi & Walker 2013): y' = y - θ (x - x̄), x each user's pre-exposure value of the metric, θ the
 * within-arm pooled regression slope of y on x, x̄ the pooled mean of x. Each arm's adjusted mean is
 * ȳ - θ (x̄_arm - x̄) and its variance var(y) - 2θ cov(x, y) + θ² var(x); Welch's interval and test follow.
 * The variance reduction is 1 - Σ(n-1)var(y') / Σ(n-1)var(y) over the two arms.
 */
function cuped(c: VariantResult, t: VariantResult, level: number) {
  const arms = [c, t].map((v) => {
    const m = momentsOf(v);
    const pre = v.pre!;
    const xMean = pre.sum / v.denominator;
    const k = v.denominator - 1;
    return { m, xMean, k, varX: Math.max(0, (pre.sum_squares - v.denominator * xMean * xMean) / k), cov: (pre.sum_products - v.denominator * xMean * m.mean) / k };
  });
  const sxx = arms.reduce((a, r) => a + r.k * r.varX, 0);
  const theta = sxx > 0 ? arms.reduce((a, r) => a + r.k * r.cov, 0) / sxx : 0;
  const xPooled = (c.pre!.sum + t.pre!.sum) / (c.denominator + t.denominator);
  const adjusted = arms.map((r): Moments => ({ n: r.m.n, mean: r.m.mean - theta * (r.xMean - xPooled), variance: Math.max(0, r.m.variance - 2 * theta * r.cov + theta * theta * r.varX) }));
  const before = arms.reduce((a, r) => a + r.k * r.m.variance, 0);
  const after = adjusted.reduce((a, r, i) => a + arms[i].k * r.variance, 0);
  return { ...welch(adjusted[0], adjusted[1], level), cuped: { theta, variance_reduction: before > 0 ? 1 - after / before : 0 } };
}

/**
 * The sequential reading: each arm's mean and the variance of that mean (p(1-p)/n for proportions, s²/n for means),
 * the estimate's variance as the fixed-horizon analysis has it, and the confidence sequence around it.
 */
function sequentialIntervals(c: { n: number; mean: number; varMean: number }, t: { n: number; mean: number; varMean: number }, level: number, tuning: number) {
  const d = t.mean - c.mean;
  const rel = c.mean === 0 ? null : d / c.mean;
  const none = { absolute_lift: d, relative_lift: rel, ci: { absolute: null, relative: null }, ci95: { absolute: null, relative: null }, p_value: null };
  if (c.n < 2 || t.n < 2) return { ...none, not_estimable: "fewer than two users in an arm: no variance can be estimated" };
  const varD = t.varMean + c.varMean;
  if (!(varD > 0)) return { ...none, not_estimable: "zero variance in both arms: every user of each arm has the same value" };
  const varRel = rel === null ? Number.NaN : t.varMean / c.mean ** 2 + (t.mean ** 2 * c.varMean) / c.mean ** 4;
  const n = c.n + t.n;
  const at = (lvl: number): Intervals => {
    const interval = (center: number, variance: number): Interval => {
      const half = sequentialHalfWidth(variance, n, 1 - lvl, tuning);
      return Number.isFinite(half) ? [center - half, center + half] : null;
    };
    return { absolute: interval(d, varD), relative: rel === null ? null : interval(rel, varRel) };
  };
  return { absolute_lift: d, relative_lift: rel, ci: at(level), ci95: at(0.95), p_value: sequentialPValue(d, varD, n, tuning) };
}

export function compareVariants(result: MetricResult, control: string, treatment: string, options: CompareOptions = {}): Comparison {
  const confidence = options.confidence ?? 0.95;
  if (typeof confidence !== "number" || !(confidence > 0 && confidence < 1)) throw new MetricInputError("options.confidence", `must be a number between 0 and 1 (e.g. 0.95), got ${show(confidence)}`);
  const proportion = PROPORTIONS.includes(result.metric);
  const method = proportion ? "newcombe_wilson" : "welch_t";
  // Own properties only: a variant named `toString` or `constructor` must not read Object.prototype's.
  const c = Object.hasOwn(result.variants, control) ? result.variants[control] : undefined;
  const t = Object.hasOwn(result.variants, treatment) ? result.variants[treatment] : undefined;
  if (!c) throw new Error(`compareVariants: no variant "${control}" in the result`);
  if (!t) throw new Error(`compareVariants: no variant "${treatment}" in the result`);
  const base = { metric: result.metric, control, treatment, method, confidence } as const;
  if (c.value === null || t.value === null) {
    const none = { absolute: null, relative: null };
    return { ...base, absolute_lift: null, relative_lift: null, ci: none, ci95: none, p_value: null, not_estimable: `nobody was exposed to ${c.value === null ? control : treatment}` };
  }
  if (options.sequential) {
    const tuning = (typeof options.sequential === "object" ? options.sequential.tuning : undefined) ?? DEFAULT_SEQUENTIAL_TUNING;
    if (!(Number.isFinite(tuning) && tuning > 0)) throw new MetricInputError("options.sequential.tuning", `must be a positive number (N*, the total sample size where the interval is tightest), got ${show(tuning)}`);
    if (options.cuped) throw new MetricInputError("options.sequential", "and cuped do not combine yet: choose one");
    const arm = (v: VariantResult) => {
      if (proportion) return { n: v.denominator, mean: v.value!, varMean: (v.value! * (1 - v.value!)) / v.denominator };
      const m = momentsOf(v);
      return { n: m.n, mean: m.mean, varMean: m.variance / m.n };
    };
    return { ...base, method: "sequential_asymptotic_cs", sequential: { tuning }, ...sequentialIntervals(arm(c), arm(t), confidence, tuning) };
  }
  if (options.cuped) {
    if (!c.pre || !t.pre) throw new MetricInputError("options.cuped", "needs a result computed with { cuped: true } (the pre-exposure sums)");
    if (c.denominator < 2 || t.denominator < 2) return { ...base, method: "cuped_welch_t", ...welch(momentsOf(c), momentsOf(t), confidence) };
    return { ...base, method: "cuped_welch_t", ...cuped(c, t, confidence) };
  }
  if (!proportion) return { ...base, ...welch(momentsOf(c), momentsOf(t), confidence) };
  const d = t.value - c.value;
  const rel = c.value === 0 ? null : d / c.value;
  return { ...base, absolute_lift: d, relative_lift: rel, ...proportions(c, t, d, rel, confidence) };
}
