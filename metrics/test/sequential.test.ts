// Sequential testing (--sequential): the asymptotic confidence sequences of Waudby-Smith et al. as GrowthBook
// implements them, checked three ways:
// - against an independent implementation of the published formula, written here from the paper's notation
//   (time t, the variance of one observation, the optimal ρ for t*), to 1e-9, through compareVariants;
// - by simulation, the property it promises: under no difference, peeking every day and stopping at the first
//   interval that excludes zero keeps the false-positive rate at or under α, where the fixed-horizon interval read
//   the same way does not;
// - through the CLI: the options, the default tuning, the refusals.
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Rng } from "../../fixtures/prng.ts";
import { compareVariants } from "../src/index.ts";
import type { MetricResult, MetricType, VariantResult } from "../src/types.ts";
import { METRICS_CLI } from "./command.ts";

function variant(n: number, sum: number, sumSquares: number): VariantResult {
  return { value: n ? sum / n : null, numerator: sum, denominator: n, sum, sum_squares: sumSquares };
}
function result(metric: MetricType, control: VariantResult, treatment: VariantResult): MetricResult {
  return { metric, event: "e", variants: { control, treatment }, excluded_users: 0, immature_users: 0, as_of: "2026-01-01T00:00:00.000Z", as_of_source: "options" };
}

/**
 * The paper's asymptotic confidence sequence (arXiv 2103.06476, eq. 9), written independently: at time t, with
 * σ² the variance of one observation of the estimator, and ρ chosen to make the sequence tightest at t* (the closed
 * form GrowthBook documents, α the error rate):
 *   μ̂_t ± sqrt( (t σ² ρ² + σ²) · 2 / (t² ρ²) · log( sqrt(t ρ² + 1) / α ) ).
 */
function paperHalfWidth(estimateVariance: number, t: number, alpha: number, tStar: number): number {
  const l = Math.log(1 / alpha);
  const rhoSquared = (2 * l + Math.log(1 + 2 * l)) / tStar;
  const sigmaSquared = estimateVariance * t;
  return Math.sqrt(((sigmaSquared * (t * rhoSquared + 1)) * 2 / (t * t * rhoSquared)) * Math.log(Math.sqrt(1 + t * rhoSquared) / alpha));
}

const close = (actual: number, expected: number) => expect(Math.abs(actual - expected), `${actual} vs ${expected}`).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(expected)));

describe("--sequential: the published formula", () => {
  const cases: Array<[string, number, number, number]> = [
    // metric, confidence, tuning N*, scale (users per arm)
    ["conversion", 0.95, 5000, 1000],
    ["conversion", 0.9, 5000, 20_000],
    ["conversion", 0.99, 100_000, 300],
    ["events_per_user", 0.95, 5000, 2500],
    ["events_per_user", 0.8, 1000, 50],
  ];
  for (const [metric, confidence, tuning, n] of cases) {
    it(`${metric} at ${confidence}, N* = ${tuning}, ${n} users per arm: absolute and relative intervals to 1e-9`, () => {
      const proportion = metric === "conversion";
      // Control: 12% converting, or a mean of 2.0 with variance 1.5; treatment: 13% / 2.1.
      const arm = (rate: number, mean: number) => (proportion ? variant(n, Math.round(rate * n), Math.round(rate * n)) : variant(n, mean * n, (1.5 * (n - 1)) / 1 + n * mean * mean));
      const c = arm(0.12, 2.0);
      const t = arm(0.13, 2.1);
      const out = compareVariants(result(metric as MetricType, c, t), "control", "treatment", { confidence, sequential: { tuning } });
      expect(out.method).toBe("sequential_asymptotic_cs");
      expect(out.sequential).toEqual({ tuning });
      const pc = c.sum / n;
      const pt = t.sum / n;
      const varMean = (v: VariantResult, p: number) => (proportion ? (p * (1 - p)) / n : (v.sum_squares - n * p * p) / (n - 1) / n);
      const vc = varMean(c, pc);
      const vt = varMean(t, pt);
      const d = pt - pc;
      const half = paperHalfWidth(vc + vt, 2 * n, 1 - confidence, tuning);
      close(out.ci.absolute![0], d - half);
      close(out.ci.absolute![1], d + half);
      const rel = d / pc;
      const relHalf = paperHalfWidth(vt / pc ** 2 + (pt ** 2 * vc) / pc ** 4, 2 * n, 1 - confidence, tuning);
      close(out.ci.relative![0], rel - relHalf);
      close(out.ci.relative![1], rel + relHalf);
      // The p-value is where the sequence starts to exclude zero: at level 1 - p the interval touches it; 1 when no
      // level excludes it (then the interval holds zero).
      if (out.p_value === 1) expect(out.ci.absolute![0] <= 0 && out.ci.absolute![1] >= 0).toBe(true);
      else {
        const atP = paperHalfWidth(vc + vt, 2 * n, out.p_value!, tuning);
        expect(Math.abs(Math.abs(d) - atP)).toBeLessThan(1e-6 * Math.abs(d));
      }
      // Wider than the fixed-horizon interval at the same level: the price of peeking.
      const fixed = compareVariants(result(metric as MetricType, c, t), "control", "treatment", { confidence });
      expect(out.ci.absolute![1] - out.ci.absolute![0]).toBeGreaterThan(fixed.ci.absolute![1] - fixed.ci.absolute![0]);
    });
  }

  it("defaults N* to GrowthBook's 5,000, and refuses a tuning that is not a positive number", () => {
    const r = result("conversion", variant(1000, 120, 120), variant(1000, 150, 150));
    expect(compareVariants(r, "control", "treatment", { sequential: true }).sequential).toEqual({ tuning: 5000 });
    expect(() => compareVariants(r, "control", "treatment", { sequential: { tuning: 0 } })).toThrow(/positive number/);
  });
});

describe("--sequential: the promise, by simulation", () => {
  it("under no difference, peeking daily for 30 days keeps the false-positive rate at or under alpha (the fixed-horizon interval read daily does not)", () => {
    // Seeded (the fixtures' generator), so the simulation is the same on every run.
    const random = new Rng(20261126);
    const EXPERIMENTS = 400;
    const DAYS = 30;
    const PER_DAY = 200;
    const RATE = 0.1;
    let sequentialFalse = 0;
    let fixedFalse = 0;
    for (let e = 0; e < EXPERIMENTS; e++) {
      let kc = 0;
      let kt = 0;
      let n = 0;
      let seqHit = false;
      let fixedHit = false;
      for (let day = 0; day < DAYS; day++) {
        for (let i = 0; i < PER_DAY; i++) {
          if (random.chance(RATE)) kc++;
          if (random.chance(RATE)) kt++;
        }
        n += PER_DAY;
        const r = result("conversion", variant(n, kc, kc), variant(n, kt, kt));
        const excludesZero = (ci: [number, number] | null) => ci !== null && (ci[0] > 0 || ci[1] < 0);
        seqHit ||= excludesZero(compareVariants(r, "control", "treatment", { sequential: true }).ci.absolute);
        fixedHit ||= excludesZero(compareVariants(r, "control", "treatment").ci.absolute);
      }
      if (seqHit) sequentialFalse++;
      if (fixedHit) fixedFalse++;
    }
    expect(sequentialFalse / EXPERIMENTS).toBeLessThanOrEqual(0.05);
    // Daily peeks at a fixed-horizon 95% interval find a "difference" far more often than 5%.
    expect(fixedFalse / EXPERIMENTS).toBeGreaterThan(0.1);
  }, 60_000);
});

describe("--sequential through the CLI", () => {
  const dir = mkdtempSync(join(tmpdir(), "metrics-sequential-"));
  const exposures = join(dir, "exposures.csv");
  const events = join(dir, "events.csv");
  const lines = ["user_id,variant,exposed_at"];
  const eventLines = ["user_id,event,timestamp"];
  for (let i = 0; i < 400; i++) {
    lines.push(`u${i},${i % 2 ? "treatment" : "control"},2026-01-01T00:00:00Z`);
    if (i % 5 === 0 || (i % 2 === 1 && i % 7 === 0)) eventLines.push(`u${i},purchase,2026-01-02T00:00:00Z`);
  }
  writeFileSync(exposures, `${lines.join("\n")}\n`);
  writeFileSync(events, `${eventLines.join("\n")}\n`);
  const cli = (...extra: string[]) =>
    spawnSync(process.execPath, [METRICS_CLI, "--definition", '{"type":"conversion","event":"purchase"}', "--exposures", exposures, "--events", events, "--as-of", "2026-02-01T00:00:00Z", "--control", "control", "--treatment", "treatment", "--format", "json", ...extra], { encoding: "utf8" });

  it("reports the sequential method, its tuning and wider intervals than the fixed-horizon run", () => {
    const fixed = JSON.parse(cli().stdout).comparisons[0];
    const seq = JSON.parse(cli("--sequential").stdout).comparisons[0];
    expect(seq.method).toBe("sequential_asymptotic_cs");
    expect(seq.sequential).toEqual({ tuning: 5000 });
    expect(seq.ci.absolute[1] - seq.ci.absolute[0]).toBeGreaterThan(fixed.ci.absolute[1] - fixed.ci.absolute[0]);
    const tuned = JSON.parse(cli("--sequential", "--sequential-tuning", "400").stdout).comparisons[0];
    expect(tuned.sequential).toEqual({ tuning: 400 });
    // Tuned for the sample at hand, the sequence is tighter there than with N* = 5,000.
    expect(tuned.ci.absolute[1] - tuned.ci.absolute[0]).toBeLessThan(seq.ci.absolute[1] - seq.ci.absolute[0]);
  }, 60_000);

  it("refuses a tuning without --sequential, and a tuning that is not a positive number", () => {
    const alone = cli("--sequential-tuning", "5000");
    expect(alone.status).toBe(2);
    expect(alone.stderr).toContain("--sequential-tuning");
    for (const bad of ["0", "-5", "many"]) {
      const r = cli("--sequential", "--sequential-tuning", bad);
      expect(r.status, bad).not.toBe(0);
      expect(r.stderr).toMatch(/positive number/);
    }
  }, 60_000);
});
