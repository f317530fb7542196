/**
 * An experiment's read-out: the sample ratio mismatch check first, then every treatment against the control, with
 * Holm-adjusted p-values across the treatments.
 *
 * Sample ratio mismatch: Pearson's chi-square goodness-of-fit test of the arms' user counts against the configured
 * split (equal by default), X² = Σ (observed - expected)² / expected with k - 1 degrees of freedom. p < 0.001 flags a
 * mismatch (the threshold GrowthBook and Statsig use): the assignment or the logging is broken, and no lift should
 * be trusted until it is explained.
 *
 * Holm (1979): with the m p-values sorted ascending p(1) <= ... <= p(m), the adjusted p(i) is
 * max over j <= i of min(1, (m - j + 1) p(j)), which controls the family-wise error rate with any dependence.
 */
import chisquareCdf from "@stdlib/stats-base-dists-chisquare-cdf";
import { compareVariants, type CompareOptions, type Comparison } from "./compare.ts";
import type { MetricResult } from "./types.ts";
import { MetricInputError } from "./validate.ts";
import { show } from "./show.ts";

export const SRM_THRESHOLD = 0.001;

export interface SampleRatioCheck {
  /** Users per arm, as counted in the result. */
  observed: Record<string, number>;
  /** Users per arm the split predicts. */
  expected: Record<string, number>;
  chi_square: number | null;
  df: number;
  p_value: number | null;
  /** p_value < 0.001. */
  mismatch: boolean;
  /** Why there is no test (no users). */
  not_estimable?: string;
}

export interface ArmComparison extends Comparison {
  /** The p-value adjusted for the number of treatments (Holm); equals p_value with one treatment. */
  p_adjusted: number | null;
}

export interface ReadOut {
  srm: SampleRatioCheck;
  comparisons: ArmComparison[];
}

export interface ReadOutOptions extends CompareOptions {
  /** Configured traffic weights per arm (any positive numbers, e.g. { control: 50, treatment: 50 }); default equal. */
  split?: Record<string, number>;
}

/** Holm-adjusted p-values, in the order given; null stays null and does not count in m. */
export function holm(pValues: readonly (number | null)[]): (number | null)[] {
  const order = pValues.map((p, i) => [p, i] as const).filter((x): x is readonly [number, number] => x[0] !== null).sort((a, b) => a[0] - b[0]);
  const m = order.length;
  const out: (number | null)[] = pValues.map(() => null);
  let running = 0;
  order.forEach(([p, i], j) => {
    running = Math.max(running, Math.min(1, (m - j) * p));
    out[i] = running;
  });
  return out;
}

export function sampleRatioCheck(result: MetricResult, arms: readonly string[], split?: Record<string, number>): SampleRatioCheck {
  const weights = arms.map((a) => {
    const w = split === undefined ? 1 : Object.hasOwn(split, a) ? split[a] : undefined;
    if (typeof w !== "number" || !(w > 0) || !Number.isFinite(w)) throw new MetricInputError(`split.${a}`, `must be a weight > 0 for every compared arm (${arms.join(", ")}), got ${show(w)}`);
    return w;
  });
  if (split) for (const name of Object.keys(split)) if (!arms.includes(name)) throw new MetricInputError(`split.${name}`, `is not a compared arm (${arms.join(", ")})`);
  const observed = arms.map((a) => (Object.hasOwn(result.variants, a) ? result.variants[a].denominator : 0));
  const total = observed.reduce((a, b) => a + b, 0);
  // Shares of the largest weight: weights near a double's largest (1e308) would overflow their sum, and the counts
  // times them, to Infinity (the chi-square came out NaN). w / max is correctly rounded, and equal weights give
  // exactly 1, so any equal split is the equal split.
  const largest = Math.max(...weights);
  const shares = weights.map((w) => w / largest);
  const shareSum = shares.reduce((a, b) => a + b, 0);
  const expected = shares.map((s) => (total * s) / shareSum);
  const record = (xs: number[]) => Object.fromEntries(arms.map((a, i) => [a, xs[i]])) as Record<string, number>;
  const df = arms.length - 1;
  if (total === 0) return { observed: record(observed), expected: record(expected), chi_square: null, df, p_value: null, mismatch: false, not_estimable: "no users in the compared arms" };
  // An arm whose share is below a double's smallest (a weight 1e308 times another's) expects no users at all: a user
  // there is an infinite mismatch, none is no mismatch (the term's limit), never 0/0.
  const chi = observed.reduce((a, o, i) => a + (expected[i] === 0 ? (o === 0 ? 0 : Infinity) : (o - expected[i]) ** 2 / expected[i]), 0);
  const p = 1 - chisquareCdf(chi, df);
  return { observed: record(observed), expected: record(expected), chi_square: chi, df, p_value: p, mismatch: p < SRM_THRESHOLD };
}

/** The sample ratio check, then each treatment against the control with Holm-adjusted p-values. */
export function readOut(result: MetricResult, control: string, treatments: readonly string[], options: ReadOutOptions = {}): ReadOut {
  if (treatments.length === 0) throw new MetricInputError("treatments", "must name at least one treatment arm");
  const arms = [control, ...treatments];
  const duplicate = arms.find((a, i) => arms.indexOf(a) !== i);
  if (duplicate !== undefined) throw new MetricInputError("treatments", `names ${JSON.stringify(duplicate)} twice (or as the control too)`);
  const srm = sampleRatioCheck(result, arms, options.split);
  const comparisons = treatments.map((t) => compareVariants(result, control, t, options));
  const adjusted = holm(comparisons.map((c) => c.p_value));
  return { srm, comparisons: comparisons.map((c, i) => ({ ...c, p_adjusted: adjusted[i] })) };
}
