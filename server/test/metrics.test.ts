// The success-metrics engine: the engine-agnostic laws and hand-computed cases of the conformance suite run
// against our engine, plus the treatment-vs-control comparison checked against numbers computed by hand.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { metricCases } from "../../conformance/src/metrics/cases.ts";
import { metricLaws } from "../../conformance/src/metrics/laws.ts";
import { compareVariants, computeMetric, MetricInputError, type MetricResult } from "../src/metrics/index.ts";

const engine = { computeMetric: computeMetric as never };

describe("metric laws (fast-check)", () => {
  it.each(metricLaws(engine).map((l) => [l.name, l] as const))("%s", (_name, law) => {
    fc.assert(law.property, { numRuns: 300, seed: 20260302 });
  });
});

describe("hand-computed cases", () => {
  it.each(metricCases.map((c) => [c.name, c] as const))("%s", (_name, c) => {
    if (c.errorField) {
      let error: unknown;
      try {
        computeMetric(c.definition as never, c.data as never);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(MetricInputError);
      expect((error as Error).message.startsWith(c.errorField)).toBe(true);
      return;
    }
    const r = computeMetric(c.definition as never, c.data as never);
    expect(r.excluded_users).toBe(c.expected!.excluded_users);
    expect(Object.keys(r.variants).sort()).toEqual(Object.keys(c.expected!.variants).sort());
    for (const [v, want] of Object.entries(c.expected!.variants)) {
      expect(r.variants[v].denominator).toBe(want.denominator);
      expect(r.variants[v].numerator).toBeCloseTo(want.numerator, 12);
      if (want.value === null) expect(r.variants[v].value).toBeNull();
      else expect(r.variants[v].value).toBeCloseTo(want.value, 12);
    }
  });

  it("reports requested variants with nobody exposed as null", () => {
    const r = computeMetric({ type: "conversion", event: "purchase" }, { exposures: [], events: [] }, { variants: ["control", "treatment"] });
    expect(r.variants).toEqual({
      control: { value: null, numerator: 0, denominator: 0, sum: 0, sum_squares: 0 },
      treatment: { value: null, numerator: 0, denominator: 0, sum: 0, sum_squares: 0 },
    });
  });
});

describe("compareVariants", () => {
  const variant = (values: number[]) => ({
    value: values.reduce((s, x) => s + x, 0) / values.length,
    numerator: values.reduce((s, x) => s + x, 0),
    denominator: values.length,
    sum: values.reduce((s, x) => s + x, 0),
    sum_squares: values.reduce((s, x) => s + x * x, 0),
  });

  it("conversion: Wald interval for a difference of proportions", () => {
    // control 20/100 = 0.2, treatment 30/100 = 0.3; d = 0.1
    // SE = sqrt(0.2*0.8/100 + 0.3*0.7/100) = sqrt(0.0037) = 0.0608276; CI = 0.1 -+ 1.959964 * 0.0608276
    // relative 0.5; SE = sqrt(0.0021/0.04 + 0.09*0.0016/0.0016) = sqrt(0.1425) = 0.3774917
    const ones = (k: number, n: number) => Array.from({ length: n }, (_, i) => (i < k ? 1 : 0));
    const result: MetricResult = { metric: "conversion", event: "purchase", excluded_users: 0, variants: { control: variant(ones(20, 100)), treatment: variant(ones(30, 100)) } };
    const c = compareVariants(result, "control", "treatment");
    expect(c.method).toBe("wald_difference_of_proportions");
    expect(c.absolute_lift).toBeCloseTo(0.1, 12);
    expect(c.relative_lift).toBeCloseTo(0.5, 12);
    expect(c.ci95.absolute![0]).toBeCloseTo(-0.01921995485894243, 10);
    expect(c.ci95.absolute![1]).toBeCloseTo(0.21921995485894238, 10);
    expect(c.ci95.relative![0]).toBeCloseTo(-0.23987017911854847, 10);
    expect(c.ci95.relative![1]).toBeCloseTo(1.2398701791185482, 10);
  });

  it("events per user: Welch's interval with Welch-Satterthwaite degrees of freedom", () => {
    // control [1,2,3,4]: mean 2.5, s² = 5/3; treatment [2,4,6]: mean 4, s² = 4
    // Var(means) = 4/3 and 5/12; SE = sqrt(1.75); df = 1.75² / ((4/3)²/2 + (5/12)²/3) = 3.23472
    // t(0.975, 3.23472) = 3.182446 + w (2.776445 - 3.182446), w = (1/3 - 1/df) / (1/3 - 1/4) -> 3.064605
    const result: MetricResult = { metric: "events_per_user", event: "purchase", excluded_users: 0, variants: { control: variant([1, 2, 3, 4]), treatment: variant([2, 4, 6]) } };
    const c = compareVariants(result, "control", "treatment");
    expect(c.method).toBe("welch_t");
    expect(c.absolute_lift).toBeCloseTo(1.5, 12);
    expect(c.ci95.absolute![0]).toBeCloseTo(-2.554090934076487, 8);
    expect(c.ci95.absolute![1]).toBeCloseTo(5.554090934076487, 8);
    expect(c.relative_lift).toBeCloseTo(0.6, 12);
    expect(c.ci95.relative![0]).toBeCloseTo(-1.2990660663865103, 8);
    expect(c.ci95.relative![1]).toBeCloseTo(2.4990660663865105, 8);
  });

  it("works end to end from computeMetric, with zero spread collapsing the interval", () => {
    const data = {
      exposures: ["a", "b", "c", "d"].map((u, i) => ({ user_id: u, variant: i < 2 ? "control" : "treatment", exposed_at: "2026-01-05T00:00:00Z" })),
      events: ["a", "c", "c", "d", "d"].map((u) => ({ user_id: u, event: "purchase", timestamp: "2026-01-05T01:00:00Z" })),
    };
    // control a:1 b:0 (mean 0.5), treatment c:2 d:2 (mean 2, no spread)
    const c = compareVariants(computeMetric({ type: "events_per_user", event: "purchase" }, data), "control", "treatment");
    expect(c.absolute_lift).toBe(1.5);
    expect(c.relative_lift).toBe(3);
  });

  it("has no lift when a variant is empty, and no relative lift over a zero control", () => {
    const empty: MetricResult = { metric: "conversion", event: "e", excluded_users: 0, variants: { control: { value: null, numerator: 0, denominator: 0, sum: 0, sum_squares: 0 }, treatment: variant([1, 0]) } };
    expect(compareVariants(empty, "control", "treatment")).toMatchObject({ absolute_lift: null, relative_lift: null, ci95: { absolute: null, relative: null } });
    const zero: MetricResult = { ...empty, variants: { control: variant([0, 0, 0]), treatment: variant([1, 0]) } };
    expect(compareVariants(zero, "control", "treatment")).toMatchObject({ absolute_lift: 0.5, relative_lift: null, ci95: { relative: null } });
    expect(() => compareVariants(zero, "control", "nope")).toThrow(/no variant "nope"/);
  });
});

describe("scale", () => {
  it("is linear: doubling the events doubles the work, not squares it", () => {
    // Counted structurally, not timed: the engine reads each event once, so a Proxy counting index reads sees 2n.
    const make = (n: number) => {
      const events = Array.from({ length: n }, (_, i) => ({ user_id: `u${i % 1000}`, event: "purchase", timestamp: "2026-01-05T01:00:00Z" }));
      let reads = 0;
      const counted = new Proxy(events, { get: (t, p, r) => (typeof p === "string" && /^\d+$/.test(p) && reads++, Reflect.get(t, p, r)) });
      const exposures = Array.from({ length: 1000 }, (_, i) => ({ user_id: `u${i}`, variant: i % 2 ? "a" : "b", exposed_at: "2026-01-05T00:00:00Z" }));
      computeMetric({ type: "events_per_user_per_active_day", event: "purchase" }, { exposures, events: counted });
      return reads;
    };
    expect(make(20_000)).toBe(20_000);
    expect(make(40_000)).toBe(40_000);
  });
});
