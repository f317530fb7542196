// The comparison's statistics against published reference values and independent formulas: two-sided p-values
// (the pooled two-proportion z test, Welch's t test), intervals at a chosen confidence level, and "not estimable"
// where an interval would otherwise collapse to a point.
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compareVariants, MetricInputError } from "../src/index.ts";
import type { MetricResult, MetricType, VariantResult } from "../src/types.ts";
import { METRICS_CLI } from "./command.ts";

/** A result built from per-user values, as the engines would report them. */
function result(metric: MetricType, arms: Record<string, number[]>): MetricResult {
  const variants: Record<string, VariantResult> = {};
  for (const [name, xs] of Object.entries(arms)) {
    const sum = xs.reduce((a, b) => a + b, 0);
    variants[name] = { value: xs.length ? sum / xs.length : null, numerator: sum, denominator: xs.length, sum, sum_squares: xs.reduce((a, b) => a + b * b, 0) };
  }
  return { metric, event: "e", variants, excluded_users: 0, immature_users: 0, as_of: "2026-01-01T00:00:00.000Z", as_of_source: "options" };
}
const ones = (k: number, n: number) => Array.from({ length: n }, (_, i) => (i < k ? 1 : 0));

/** erfc by its Maclaurin series (independent of the engine's statistics library); fine to 1e-13 for |x| < 3. */
function erfc(x: number): number {
  let sum = 0;
  let term = x;
  for (let n = 0; n < 80; n++) {
    sum += term / (2 * n + 1);
    term *= (-x * x) / (n + 1);
  }
  return 1 - (2 / Math.sqrt(Math.PI)) * sum;
}

// R: t.test(extra ~ group, data = sleep) gives t = -1.8608, df = 17.776, p-value = 0.07939, 95% CI -3.3654832 0.2054832.
const sleep1 = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0];
const sleep2 = [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4];

describe("compareVariants statistics", () => {
  it("Welch's t test reproduces R's classic sleep example: p = 0.07939 and the 95% interval", () => {
    const c = compareVariants(result("events_per_user", { control: sleep2, treatment: sleep1 }), "control", "treatment");
    expect(c.absolute_lift).toBeCloseTo(-1.58, 12);
    expect(c.p_value).toBeCloseTo(0.07939, 5);
    expect(c.ci.absolute![0]).toBeCloseTo(-3.3654832, 6);
    expect(c.ci.absolute![1]).toBeCloseTo(0.2054832, 6);
    expect(c.ci95).toEqual(c.ci);
    expect(c.not_estimable).toBeUndefined();
  });

  it("the two-proportion z test equals Pearson's chi-square on the 2x2 table (Newcombe's 56/70 vs 48/80)", () => {
    const c = compareVariants(result("conversion", { control: ones(48, 80), treatment: ones(56, 70) }), "control", "treatment");
    // Pearson's X² = sum (O - E)² / E over the four cells; for 1 df, p = erfc(sqrt(X² / 2)).
    const cells = [[56, 14], [48, 32]];
    const rows = cells.map((r) => r[0] + r[1]);
    const cols = [cells[0][0] + cells[1][0], cells[0][1] + cells[1][1]];
    const n = rows[0] + rows[1];
    let x2 = 0;
    for (let i = 0; i < 2; i++) for (let j = 0; j < 2; j++) x2 += (cells[i][j] - (rows[i] * cols[j]) / n) ** 2 / ((rows[i] * cols[j]) / n);
    expect(c.p_value).toBeCloseTo(erfc(Math.sqrt(x2 / 2)), 12);
    expect(c.p_value).toBeGreaterThan(0.0079);
    expect(c.p_value).toBeLessThan(0.0082);
  });

  it("takes a confidence level: the intervals share their centre and widen from 0.90 to 0.95 to 0.99", () => {
    for (const [metric, arms] of [["conversion", { control: ones(48, 80), treatment: ones(56, 70) }], ["events_per_user", { control: sleep2, treatment: sleep1 }]] as const) {
      const [c90, c95, c99] = [0.9, 0.95, 0.99].map((confidence) => compareVariants(result(metric, arms), "control", "treatment", { confidence }));
      const width = (x: typeof c90) => x.ci.absolute![1] - x.ci.absolute![0];
      expect(width(c90)).toBeLessThan(width(c95));
      expect(width(c95)).toBeLessThan(width(c99));
      expect(c95.ci).toEqual(c95.ci95);
      expect(c90.ci95).toEqual(c95.ci95);
      expect(c99.confidence).toBe(0.99);
      expect(c90.p_value).toBe(c99.p_value);
      if (metric === "events_per_user") expect((c90.ci.absolute![0] + c90.ci.absolute![1]) / 2).toBeCloseTo(-1.58, 12);
    }
    expect(() => compareVariants(result("conversion", { control: [1, 0], treatment: [1, 1] }), "control", "treatment", { confidence: 1.5 })).toThrow(MetricInputError);
  });

  it("says not estimable, never a point interval, when both arms have zero variance or an arm has one user", () => {
    const flat = compareVariants(result("events_per_user", { control: [1, 1, 1], treatment: [1, 1] }), "control", "treatment");
    expect(flat.ci).toEqual({ absolute: null, relative: null });
    expect(flat.p_value).toBeNull();
    expect(flat.not_estimable).toMatch(/zero variance in both arms/);
    const single = compareVariants(result("events_per_user", { control: [1, 2, 3], treatment: [5] }), "control", "treatment");
    expect(single.not_estimable).toMatch(/fewer than two users/);
    // One arm without spread is still estimable (the other's variance carries the interval).
    const half = compareVariants(result("events_per_user", { control: [0, 1, 2], treatment: [2, 2, 2] }), "control", "treatment");
    expect(half.ci.absolute).not.toBeNull();
    expect(half.not_estimable).toBeUndefined();
    // Proportions at 0% in both arms: Wilson's intervals stay honest, the test has no variance.
    const zeros = compareVariants(result("conversion", { control: ones(0, 50), treatment: ones(0, 50) }), "control", "treatment");
    expect(zeros.ci.absolute![1]).toBeGreaterThan(0);
    expect(zeros.p_value).toBeNull();
    expect(zeros.not_estimable).toMatch(/0%/);
  });

  it("api-metrics takes --confidence and refuses a level outside (0, 1)", () => {
    const dir = mkdtempSync(join(tmpdir(), "metrics-confidence-"));
    writeFileSync(join(dir, "x.csv"), "user_id,variant,exposed_at\na,control,2026-01-01T00:00:00Z\nb,control,2026-01-01T00:00:00Z\nc,treatment,2026-01-01T00:00:00Z\nd,treatment,2026-01-01T00:00:00Z\n");
    writeFileSync(join(dir, "e.csv"), "user_id,event,timestamp\na,buy,2026-01-02T00:00:00Z\nc,buy,2026-01-02T00:00:00Z\nd,buy,2026-01-02T00:00:00Z\n");
    const run = (...args: string[]) => spawnSync(process.execPath, [METRICS_CLI, "--definition", '{"type":"conversion","event":"buy"}', "--exposures", join(dir, "x.csv"), "--events", join(dir, "e.csv"), "--as-of", "2026-02-01T00:00:00Z", "--control", "control", "--treatment", "treatment", ...args], { encoding: "utf8" });
    const ok = run("--confidence", "0.9");
    expect(ok.status, ok.stderr).toBe(0);
    const [comparison] = JSON.parse(ok.stdout).comparisons;
    expect(comparison.confidence).toBe(0.9);
    expect(typeof comparison.p_value).toBe("number");
    const bad = run("--confidence", "95");
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/--confidence.*between 0 and 1/);
  }, 30_000);
});
