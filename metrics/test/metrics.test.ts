// The success-metrics engines: the engine-agnostic laws and hand-computed cases of the conformance suite run
// against the in-memory engine and the SQL engine on DuckDB, plus the treatment-vs-control comparison checked
// against published values.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { metricCases } from "../../conformance/src/metrics/cases.ts";
import { metricLaws } from "../../conformance/src/metrics/laws.ts";
import { compareVariants, computeMetric, MetricInputError, type MetricResult } from "../src/index.ts";
import { computeMetric as computeSql } from "../src/sql/index.ts";
import { t975 } from "../src/stats.ts";

type Engine = { computeMetric(definition: unknown, data: unknown, options?: unknown): MetricResult | Promise<MetricResult> };
const engines: Array<[string, Engine, number]> = [
  ["in-memory", { computeMetric: computeMetric as Engine["computeMetric"] }, 300],
  ["SQL on DuckDB", { computeMetric: computeSql as Engine["computeMetric"] }, 40],
];
const result = (variants: MetricResult["variants"], metric: MetricResult["metric"] = "conversion"): MetricResult => ({ metric, event: "purchase", excluded_users: 0, immature_users: 0, as_of: "2026-03-02T00:00:00.000Z", as_of_source: "options", variants });

describe.each(engines)("metric laws (fast-check), %s engine", (_engine, engine, runs) => {
  it.each(metricLaws(engine as never).map((l) => [l.name, l] as const))("%s", async (_name, law) => {
    await fc.assert(law.property, { numRuns: runs, seed: 20260302 });
  }, 60_000);
});

describe.each(engines)("hand-computed cases, %s engine", (_engine, engine) => {
  it.each(metricCases.map((c) => [c.name, c] as const))("%s", async (_name, c) => {
    if (c.errorField) {
      let error: unknown;
      try {
        await engine.computeMetric(c.definition, c.data);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(MetricInputError);
      expect((error as Error).message.startsWith(c.errorField)).toBe(true);
      return;
    }
    const r = await engine.computeMetric(c.definition, c.data, c.options);
    expect(r.excluded_users).toBe(c.expected!.excluded_users);
    if (c.expected!.immature_users !== undefined) expect(r.immature_users).toBe(c.expected!.immature_users);
    expect(Object.keys(r.variants).sort()).toEqual(Object.keys(c.expected!.variants).sort());
    for (const [v, want] of Object.entries(c.expected!.variants)) {
      expect(r.variants[v].denominator).toBe(want.denominator);
      expect(r.variants[v].numerator).toBeCloseTo(want.numerator, 12);
      if (want.value === null) expect(r.variants[v].value).toBeNull();
      else expect(r.variants[v].value).toBeCloseTo(want.value, 12);
    }
  });

  it("reports requested variants with nobody exposed as null", async () => {
    const r = await engine.computeMetric({ type: "conversion", event: "purchase" }, { exposures: [], events: [] }, { variants: ["control", "treatment"] });
    expect(r.variants).toEqual({
      control: { value: null, numerator: 0, denominator: 0, sum: 0, sum_squares: 0 },
      treatment: { value: null, numerator: 0, denominator: 0, sum: 0, sum_squares: 0 },
    });
  });
});

describe("Student t quantile", () => {
  it("matches published values: closed forms for 1, 2 and 4 degrees of freedom, and SciPy 1.17 t.ppf elsewhere", () => {
    // df 1: tan(0.475 pi); df 2: (2p - 1) / sqrt(2p(1 - p)); df 4: Hill (1970) closed form.
    expect(t975(1)).toBeCloseTo(Math.tan(0.475 * Math.PI), 10);
    expect(t975(2)).toBeCloseTo(0.95 / Math.sqrt(2 * 0.975 * 0.025), 10);
    const alpha = 4 * 0.975 * 0.025;
    const q = Math.cos(Math.acos(Math.sqrt(alpha)) / 3) / Math.sqrt(alpha);
    expect(t975(4)).toBeCloseTo(2 * Math.sqrt(q - 1), 10);
    const scipy: Array<[number, number]> = [
      [1.5, 6.016663104427929], [2.5, 3.5746548420036817], [3, 3.1824463052837078], [1323 / 409, 3.055712710425896],
      [5, 2.5705818356363146], [7.5, 2.333039626864974], [10, 2.228138851986274], [14, 2.144786687917804],
      [30, 2.0422724563012378], [100, 1.9839715185235518], [1000, 1.9623390808264083],
    ];
    for (const [df, want] of scipy) expect(Math.abs(t975(df) - want), `df ${df}`).toBeLessThan(1e-9);
    expect(t975(0)).toBeNaN();
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
  const ones = (k: number, n: number) => Array.from({ length: n }, (_, i) => (i < k ? 1 : 0));

  it("conversion: Newcombe's hybrid score interval reproduces the published example (Newcombe 1998, 56/70 vs 48/80)", () => {
    const c = compareVariants(result({ control: variant(ones(48, 80)), treatment: variant(ones(56, 70)) }), "control", "treatment");
    expect(c.method).toBe("newcombe_wilson");
    expect(c.absolute_lift).toBeCloseTo(0.2, 12);
    // Newcombe (1998), Table II, example (a), method 10: 0.0524 to 0.3339.
    expect(c.ci95.absolute![0]).toBeCloseTo(0.0524, 4);
    expect(c.ci95.absolute![1]).toBeCloseTo(0.3339, 4);
    // MOVER-R for the ratio 0.8 / 0.6, minus 1: it contains the estimate and is close to Katz's log interval [0.076, 0.651].
    expect(c.relative_lift).toBeCloseTo(1 / 3, 12);
    expect(c.ci95.relative![0]).toBeCloseTo(0.0783, 3);
    expect(c.ci95.relative![1]).toBeCloseTo(0.6629, 3);
  });

  it("stays honest when both arms are at 0% or 100%: the interval does not collapse to a point", () => {
    for (const k of [0, 100]) {
      const c = compareVariants(result({ control: variant(ones(k, 100)), treatment: variant(ones(k, 100)) }), "control", "treatment");
      expect(c.absolute_lift).toBe(0);
      // Each arm's Wilson bound at 0/100 is z² / (n + z²) = 0.0370; Newcombe combines them: ±0.0370.
      const w = 1.959963984540054 ** 2 / (100 + 1.959963984540054 ** 2);
      expect(c.ci95.absolute![0]).toBeCloseTo(-w, 10);
      expect(c.ci95.absolute![1]).toBeCloseTo(w, 10);
      if (k === 100) {
        expect(c.ci95.relative![0]).toBeLessThan(-0.03);
        expect(c.ci95.relative![1]).toBeGreaterThan(0.03);
      } else expect(c.relative_lift).toBeNull();
    }
  });

  it("events per user: Welch's interval with Welch-Satterthwaite degrees of freedom and the exact t quantile", () => {
    // control [1,2,3,4]: mean 2.5, s² = 5/3; treatment [2,4,6]: mean 4, s² = 4
    // Var(means) = 4/3 and 5/12; SE = sqrt(1.75) = 1.3228757; df = 1.75² / ((4/3)²/2 + (5/12)²/3) = 1323/409 = 3.2347188
    // t(0.975, 1323/409) = 3.0557127 (SciPy); CI = 1.5 -+ 3.0557127 * 1.3228757
    const c = compareVariants(result({ control: variant([1, 2, 3, 4]), treatment: variant([2, 4, 6]) }, "events_per_user"), "control", "treatment");
    expect(c.method).toBe("welch_t");
    expect(c.absolute_lift).toBeCloseTo(1.5, 12);
    const half = 3.055712710425896 * Math.sqrt(1.75);
    expect(c.ci95.absolute![0]).toBeCloseTo(1.5 - half, 8);
    expect(c.ci95.absolute![1]).toBeCloseTo(1.5 + half, 8);
    // Relative: r = 0.6, SE(r) = sqrt((4/3)/6.25 + 16 (5/12) / 39.0625) = sqrt(0.384) = 0.6196773
    expect(c.relative_lift).toBeCloseTo(0.6, 12);
    expect(c.ci95.relative![0]).toBeCloseTo(0.6 - 3.055712710425896 * Math.sqrt(0.384), 8);
    expect(c.ci95.relative![1]).toBeCloseTo(0.6 + 3.055712710425896 * Math.sqrt(0.384), 8);
  });

  it("works end to end from computeMetric, with zero spread collapsing a means interval", () => {
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
    const empty = result({ control: { value: null, numerator: 0, denominator: 0, sum: 0, sum_squares: 0 }, treatment: variant([1, 0]) });
    expect(compareVariants(empty, "control", "treatment")).toMatchObject({ absolute_lift: null, relative_lift: null, ci95: { absolute: null, relative: null } });
    const zero = result({ control: variant([0, 0, 0]), treatment: variant([1, 0]) });
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
