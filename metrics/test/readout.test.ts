// The read-out's statistics against published values and independent formulas: the sample ratio mismatch check
// (R's chisq.test; closed forms of the chi-square tail for 1 and 2 degrees of freedom), Holm's adjustment (R's
// p.adjust), and CUPED (its sums-based formulas against Welch's test on explicitly adjusted per-user values), and the
// engines' pre-exposure sums on planted data.
import { describe, expect, it } from "vitest";
import { holm, readOut, sampleRatioCheck } from "../src/arms.ts";
import { compareVariants } from "../src/compare.ts";
import { computeMetric } from "../src/compute.ts";
import { computeMetric as computeSql } from "../src/sql/index.ts";
import type { MetricResult, MetricType, VariantResult } from "../src/types.ts";

/** erfc by its Maclaurin series (independent of the statistics library); fine to 1e-12 for |x| < 3. */
function erfc(x: number): number {
  let sum = 0;
  let term = x;
  for (let n = 0; n < 100; n++) {
    sum += term / (2 * n + 1);
    term *= (-x * x) / (n + 1);
  }
  return 1 - (2 / Math.sqrt(Math.PI)) * sum;
}
// The chi-square tail: df 1 is erfc(sqrt(x / 2)); df 2 is exp(-x / 2).
const tail1 = (x: number) => erfc(Math.sqrt(x / 2));
const tail2 = (x: number) => Math.exp(-x / 2);

const counts = (arms: Record<string, number>, metric: MetricType = "conversion"): MetricResult => ({
  metric, event: "e", excluded_users: 0, immature_users: 0, as_of: "2026-01-01T00:00:00.000Z", as_of_source: "options",
  variants: Object.fromEntries(Object.entries(arms).map(([a, n]) => [a, { value: 0.5, numerator: n / 2, denominator: n, sum: n / 2, sum_squares: n / 2 }])),
});

describe("sample ratio mismatch", () => {
  it("reproduces R: chisq.test(c(821, 779), p = c(0.5, 0.5)) gives X-squared = 1.1025, p-value = 0.2937", () => {
    const s = sampleRatioCheck(counts({ control: 821, treatment: 779 }), ["control", "treatment"]);
    expect(s.chi_square).toBeCloseTo(1.1025, 12);
    expect(s.df).toBe(1);
    expect(s.p_value!).toBeCloseTo(0.2937, 4);
    expect(s.p_value!).toBeCloseTo(tail1(1.1025), 12);
    expect(s.mismatch).toBe(false);
  });

  it("tests against the configured split, with k - 1 degrees of freedom", () => {
    const equal = sampleRatioCheck(counts({ a: 1000, b: 1050, c: 950 }), ["a", "b", "c"]);
    expect([equal.chi_square, equal.df]).toEqual([5, 2]);
    expect(equal.p_value!).toBeCloseTo(tail2(5), 12);
    const weighted = sampleRatioCheck(counts({ a: 5000, b: 2600, c: 2400 }), ["a", "b", "c"], { a: 50, b: 25, c: 25 });
    expect(weighted.expected).toEqual({ a: 5000, b: 2500, c: 2500 });
    expect(weighted.chi_square).toBeCloseTo(8, 12);
    expect(weighted.p_value!).toBeCloseTo(tail2(8), 12);
  });

  it("flags a mismatch below p = 0.001, and only then", () => {
    const near = sampleRatioCheck(counts({ control: 10_000, treatment: 10_400 }), ["control", "treatment"]);
    expect(near.p_value!).toBeCloseTo(tail1((2 * 200 ** 2) / 10_200), 12);
    expect(near.mismatch).toBe(false);
    const off = sampleRatioCheck(counts({ control: 10_000, treatment: 10_600 }), ["control", "treatment"]);
    expect(off.p_value!).toBeCloseTo(tail1((2 * 300 ** 2) / 10_300), 12);
    expect(off.p_value!).toBeLessThan(0.001);
    expect(off.mismatch).toBe(true);
  });

  it("is reported first, is not estimable without users, and refuses a split that does not name every arm", () => {
    expect(Object.keys(readOut(counts({ control: 10, treatment: 10 }), "control", ["treatment"]))).toEqual(["srm", "comparisons"]);
    expect(sampleRatioCheck(counts({}), ["control", "treatment"])).toMatchObject({ p_value: null, mismatch: false, not_estimable: "no users in the compared arms" });
    expect(() => sampleRatioCheck(counts({ a: 1, b: 1 }), ["a", "b"], { a: 1 })).toThrow("split.b must be a weight > 0");
    expect(() => sampleRatioCheck(counts({ a: 1, b: 1 }), ["a", "b"], { a: 1, b: 1, c: 1 })).toThrow("split.c is not a compared arm");
    expect(() => readOut(counts({ a: 1, b: 1 }), "a", ["b", "a"])).toThrow('names "a" twice');
  });
});

describe("Holm-adjusted p-values", () => {
  it("reproduces R: p.adjust(c(0.01, 0.04, 0.03, 0.005), 'holm') is 0.03 0.06 0.06 0.02", () => {
    const adjusted = holm([0.01, 0.04, 0.03, 0.005]);
    [0.03, 0.06, 0.06, 0.02].forEach((want, i) => expect(adjusted[i]!).toBeCloseTo(want, 15));
  });

  it("caps at 1, keeps the order monotone, leaves one p-value as it is, and skips nulls", () => {
    expect(holm([0.6, 0.5])).toEqual([1, 1]);
    expect(holm([0.04])).toEqual([0.04]);
    expect(holm([null, 0.02, 0.03])).toEqual([null, 0.04, 0.04]);
  });

  it("adjusts the read-out's treatments against one control", () => {
    const arm = (k: number, n: number): VariantResult => ({ value: k / n, numerator: k, denominator: n, sum: k, sum_squares: k });
    const result: MetricResult = { ...counts({}), variants: { control: arm(100, 1000), b: arm(130, 1000), c: arm(112, 1000), d: arm(101, 1000) } };
    const r = readOut(result, "control", ["b", "c", "d"]);
    const raw = ["b", "c", "d"].map((t) => compareVariants(result, "control", t).p_value);
    expect(r.comparisons.map((c) => c.p_value)).toEqual(raw);
    expect(r.comparisons.map((c) => c.p_adjusted)).toEqual(holm(raw));
    expect(r.comparisons[0].p_adjusted!).toBeCloseTo(Math.min(1, 3 * raw[0]!), 15); // the smallest, times 3
  });
});

/** Deterministic pseudo-random numbers (mulberry32). */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sums = (pairs: Array<[number, number]>): VariantResult => {
  const n = pairs.length;
  const sy = pairs.reduce((a, [, y]) => a + y, 0);
  return {
    value: sy / n, numerator: sy, denominator: n, sum: sy, sum_squares: pairs.reduce((a, [, y]) => a + y * y, 0),
    pre: { sum: pairs.reduce((a, [x]) => a + x, 0), sum_squares: pairs.reduce((a, [x]) => a + x * x, 0), sum_products: pairs.reduce((a, [x, y]) => a + x * y, 0) },
  };
};
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const variance = (xs: number[]) => xs.reduce((a, b) => a + (b - mean(xs)) ** 2, 0) / (xs.length - 1);

describe("CUPED", () => {
  // Users whose post-exposure value y follows their pre-exposure value x, plus noise and a treatment effect.
  const next = random(20261124);
  const arm = (n: number, effect: number) => Array.from({ length: n }, (): [number, number] => {
    const x = Math.floor(next() * 10);
    return [x, Math.max(0, Math.round(0.8 * x + effect + next() * 4 - 2))];
  });
  const control = arm(400, 0);
  const treatment = arm(380, 0.6);
  const result: MetricResult = { ...counts({}), metric: "events_per_user", variants: { control: sums(control), treatment: sums(treatment) } };

  it("equals Welch's test on explicitly adjusted values y - θ(x - x̄), θ the pooled within-arm slope", () => {
    // θ by ordinary least squares on values centered within each arm, computed from the per-user values.
    const centered = [control, treatment].flatMap((a) => a.map(([x, y]) => [x - mean(a.map((p) => p[0])), y - mean(a.map((p) => p[1]))]));
    const theta = centered.reduce((s, [x, y]) => s + x * y, 0) / centered.reduce((s, [x]) => s + x * x, 0);
    const xBar = mean([...control, ...treatment].map(([x]) => x));
    const adjust = (a: Array<[number, number]>) => a.map(([x, y]) => y - theta * (x - xBar));
    const adjusted: MetricResult = { ...result, variants: { control: sums(adjust(control).map((y) => [0, y])), treatment: sums(adjust(treatment).map((y) => [0, y])) } };
    const want = compareVariants(adjusted, "control", "treatment", { confidence: 0.9 });
    const got = compareVariants(result, "control", "treatment", { cuped: true, confidence: 0.9 });
    expect(got.method).toBe("cuped_welch_t");
    expect(got.cuped!.theta).toBeCloseTo(theta, 12);
    expect(got.absolute_lift!).toBeCloseTo(want.absolute_lift!, 12);
    expect(got.p_value!).toBeCloseTo(want.p_value!, 12);
    for (const i of [0, 1]) {
      expect(got.ci.absolute![i]).toBeCloseTo(want.ci.absolute![i], 10);
      expect(got.ci.relative![i]).toBeCloseTo(want.ci.relative![i], 10);
    }
    // The variance reduction, from the per-user values: 1 - pooled var(y') / pooled var(y).
    const pooled = (arms: number[][]) => arms.reduce((s, a) => s + (a.length - 1) * variance(a), 0);
    const reduction = 1 - pooled([adjust(control), adjust(treatment)]) / pooled([control.map((p) => p[1]), treatment.map((p) => p[1])]);
    expect(got.cuped!.variance_reduction).toBeCloseTo(reduction, 12);
    expect(reduction).toBeGreaterThan(0.3); // a strong covariate removes much of the variance...
    const plain = compareVariants(result, "control", "treatment", { confidence: 0.9 });
    expect(got.ci.absolute![1] - got.ci.absolute![0]).toBeLessThan(plain.ci.absolute![1] - plain.ci.absolute![0]); // ...and narrows the interval
  });

  it("leaves the estimate alone when the covariate has no variance, and calls a perfectly explained metric not estimable", () => {
    const flat: MetricResult = { ...result, variants: { control: sums(control.map(([, y]) => [3, y])), treatment: sums(treatment.map(([, y]) => [3, y])) } };
    const c = compareVariants(flat, "control", "treatment", { cuped: true });
    expect(c.cuped).toEqual({ theta: 0, variance_reduction: 0 });
    expect(c.p_value!).toBeCloseTo(compareVariants(flat, "control", "treatment").p_value!, 12);
    const exact: MetricResult = { ...result, variants: { control: sums(control.map(([x]) => [x, 2 * x])), treatment: sums(treatment.map(([x]) => [x, 2 * x + 1])) } };
    expect(compareVariants(exact, "control", "treatment", { cuped: true })).toMatchObject({ p_value: null, not_estimable: "zero variance in both arms: every user of each arm has the same value" });
    expect(() => compareVariants({ ...result, variants: { control: { ...sums(control), pre: undefined }, treatment: sums(treatment) } }, "control", "treatment", { cuped: true })).toThrow("options.cuped");
  });

  it("sums each user's pre-exposure value over the same window just before exposure, on both engines", async () => {
    const d = (day: number, hour = 12) => new Date(Date.UTC(2026, 2, day, hour)).toISOString();
    const data = {
      exposures: [
        { user_id: "a", variant: "control", exposed_at: d(10, 0) },
        { user_id: "b", variant: "control", exposed_at: d(10, 0) },
        { user_id: "c", variant: "treatment", exposed_at: d(10, 0) },
      ],
      events: [
        { user_id: "a", event: "buy", timestamp: d(8) }, // pre (within 3 days before)
        { user_id: "a", event: "buy", timestamp: d(9) }, // pre
        { user_id: "a", event: "buy", timestamp: d(6) }, // before the pre-window: ignored
        { user_id: "a", event: "buy", timestamp: d(11) }, // post
        { user_id: "b", event: "buy", timestamp: d(7, 0) }, // exactly 3 days before: pre (start inclusive)
        { user_id: "c", event: "buy", timestamp: d(9) }, // pre
        { user_id: "c", event: "buy", timestamp: d(11) }, // post
        { user_id: "c", event: "buy", timestamp: d(12) }, // post
        { user_id: "c", event: "view", timestamp: d(9) }, // another event: ignored
      ],
    };
    const def = { type: "events_per_user" as const, event: "buy", window_days: 3 };
    const options = { as_of: d(20), cuped: true };
    // x, y per user: a (2, 1), b (1, 0), c (1, 2).
    for (const r of [computeMetric(def, data, options), await computeSql(def, data, options)]) {
      expect(r.variants.control.pre).toEqual({ sum: 3, sum_squares: 5, sum_products: 2 });
      expect(r.variants.treatment.pre).toEqual({ sum: 1, sum_squares: 1, sum_products: 2 });
      expect([r.variants.control.sum, r.variants.treatment.sum]).toEqual([1, 2]);
    }
  });
});
