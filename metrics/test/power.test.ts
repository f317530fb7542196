// `api-metrics power`: the sample size formulas of R's power.prop.test and power.t.test (two arms, two-sided,
// strict = FALSE), checked against R's documented results and independent computations:
// - proportions: the closed-form root of the power formula, with normal quantiles found here by bisection on an
//   erfc series, to 1e-6;
// - means: the noncentral t tail against numerical integration over the chi-square, and R's examples
//   (power.t.test(n = 20, delta = 1) has power 0.8689528; power.t.test(power = .90, delta = 1) has n = 22.02110);
// - the CLI: output, duration, arms, refusals.
import { spawnSync } from "node:child_process";
import gammaln from "@stdlib/math-base-special-gammaln";
import tCdf from "@stdlib/stats-base-dists-t-cdf";
import { describe, expect, it } from "vitest";
import { meanPower, noncentralTUpper, proportionPower, sampleSize } from "../src/power.ts";
import { METRICS_CLI } from "./command.ts";

/** Φ by the Maclaurin series of erf (independent of the package's statistics library); fine for |x| < 4. */
function phi(x: number): number {
  const y = x / Math.SQRT2;
  let sum = 0;
  let term = y;
  for (let n = 0; n < 200; n++) {
    sum += term / (2 * n + 1);
    term *= (-y * y) / (n + 1);
  }
  return 0.5 + sum / Math.sqrt(Math.PI);
}
function z(p: number): number {
  let lo = -6;
  let hi = 6;
  for (let i = 0; i < 200; i++) {
    const mid = (lo + hi) / 2;
    if (phi(mid) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** P(T > t) for the noncentral t by Simpson's rule over V ~ chi-square(df): P(Z > t sqrt(V/df) - ncp). */
function integratedUpper(t: number, df: number, ncp: number): number {
  const top = df + 60 * Math.sqrt(2 * df) + 60;
  const steps = 40_000;
  const h = top / steps;
  const density = (v: number) => (v <= 0 ? 0 : Math.exp((df / 2 - 1) * Math.log(v) - v / 2 - (df / 2) * Math.LN2 - gammaln(df / 2)));
  const f = (v: number) => density(v) * (1 - phi(Math.min(7.9, t * Math.sqrt(v / df) - ncp)));
  let s = f(0) + f(top);
  for (let i = 1; i < steps; i++) s += (i % 2 ? 4 : 2) * f(i * h);
  return (s * h) / 3;
}

describe("power.prop.test", () => {
  it("reproduces R's documented power: power.prop.test(n = 50, p1 = .50, p2 = .75) is 0.7401659", () => {
    expect(Math.abs(proportionPower(50, 0.5, 0.75, 0.05) - 0.7401659)).toBeLessThan(1e-7);
  });

  for (const [p1, p2, alpha, power] of [[0.5, 0.75, 0.05, 0.9], [0.1, 0.11, 0.05, 0.8], [0.02, 0.025, 0.01, 0.95], [0.3, 0.25, 0.1, 0.8]] as const) {
    it(`n per arm for ${p1} -> ${p2} at alpha ${alpha}, power ${power} is the formula's exact root (to 1e-6)`, () => {
      const pbar = (p1 + p2) / 2;
      const exact = ((z(1 - alpha / 2) * Math.sqrt(2 * pbar * (1 - pbar)) + z(power) * Math.sqrt(p1 * (1 - p1) + p2 * (1 - p2))) / (p2 - p1)) ** 2;
      const r = sampleSize({ metric: "conversion", baseline: p1, mde: p2 - p1, alpha, power });
      expect(Math.abs(r.n_exact - exact) / exact).toBeLessThan(1e-6);
      expect(r.users_per_arm).toBe(Math.ceil(exact));
      expect(r.method).toBe("power.prop.test");
    });
  }
});

describe("power.t.test", () => {
  it("the noncentral t tail matches numerical integration (to 1e-6), and the central t at ncp 0 (to 1e-9)", () => {
    for (const [t, df, ncp] of [[2.0, 10, 1], [1.96, 38, 3.16], [2.5, 5, 0.5], [1.7, 200, 2.2], [2.1, 18, 0]] as const) {
      expect(Math.abs(noncentralTUpper(t, df, ncp) - integratedUpper(t, df, ncp)), `t ${t} df ${df} ncp ${ncp}`).toBeLessThan(1e-6);
    }
    for (const [t, df] of [[2.0, 10], [1.3, 3], [0.5, 40]] as const) expect(Math.abs(noncentralTUpper(t, df, 0) - (1 - tCdf(t, df)))).toBeLessThan(1e-9);
  });

  it("reproduces R's documented results: power 0.8689528 for n = 20, delta = 1; n = 22.02110 for power .90", () => {
    expect(Math.abs(meanPower(20, 1, 1, 0.05) - 0.8689528)).toBeLessThan(1e-7);
    const r = sampleSize({ metric: "mean", baseline: 0, sd: 1, mde: 1, power: 0.9 });
    // R's uniroot stops at a tolerance of 1.2e-4; the root here is exact, and its power is the target's.
    expect(Math.abs(r.n_exact - 22.0211)).toBeLessThan(1e-4);
    expect(Math.abs(meanPower(r.n_exact, 1, 1, 0.05) - 0.9)).toBeLessThan(1e-9);
    expect(r.users_per_arm).toBe(23);
  });

  it("takes a relative effect on the baseline mean, and splits alpha over the treatments of several arms", () => {
    const rel = sampleSize({ metric: "mean", baseline: 2, sd: 1.5, mde: 0.05, relative: true, arms: 3, dailyUsers: 1000 });
    expect(rel.target).toBeCloseTo(2.1, 12);
    expect(rel.alpha_per_comparison).toBe(0.025);
    expect(Math.abs(meanPower(rel.n_exact, 0.1, 1.5, 0.025) - 0.8)).toBeLessThan(1e-9);
    expect(rel.total_users).toBe(rel.users_per_arm * 3);
    expect(rel.days).toBe(Math.ceil(rel.total_users / 1000));
  });
});

describe("api-metrics power", () => {
  const cli = (...args: string[]) => spawnSync(process.execPath, [METRICS_CLI, "power", ...args], { encoding: "utf8" });

  it("prints the per-arm sample size and the duration, as JSON or a table", () => {
    const json = JSON.parse(cli("--metric", "conversion", "--baseline", "0.1", "--mde", "0.01", "--daily-users", "1000", "--format", "json").stdout);
    expect(json).toMatchObject({ metric: "conversion", baseline: 0.1, arms: 2, alpha: 0.05, power: 0.8, method: "power.prop.test" });
    expect(json.days).toBe(Math.ceil((json.users_per_arm * 2) / 1000));
    const table = cli("--metric", "mean", "--baseline", "0", "--sd", "1", "--mde", "1", "--power", "0.9", "--format", "table");
    expect(table.status).toBe(0);
    expect(table.stdout).toMatch(/users per arm\s+23\s+\(exact root 22\.0211\)/);
  }, 30_000);

  it("infers the kind from the options: a baseline with --sd is a mean, without it a rate, and says so", () => {
    const rate = cli("--baseline", "0.1", "--mde", "0.02", "--format", "json");
    expect(rate.status, rate.stderr).toBe(0);
    const explicit = JSON.parse(cli("--metric", "conversion", "--baseline", "0.1", "--mde", "0.02", "--format", "json").stdout);
    expect(JSON.parse(rate.stdout)).toEqual({ ...explicit, metric_inferred: "conversion: no --sd" });
    const mean = cli("--baseline", "5", "--sd", "2", "--mde", "0.5", "--format", "table");
    expect(mean.status, mean.stderr).toBe(0);
    expect(mean.stdout).toMatch(/^Metric: mean: --sd was given \(--metric to choose\)\nSample size \(power\.t\.test\)/);
    const explicitMean = JSON.parse(cli("--metric", "mean", "--baseline", "5", "--sd", "2", "--mde", "0.5", "--format", "json").stdout);
    expect(JSON.parse(cli("--baseline", "5", "--sd", "2", "--mde", "0.5", "--format", "json").stdout)).toEqual({ ...explicitMean, metric_inferred: "mean: --sd was given" });
  }, 30_000);

  it("refuses incomplete or impossible inputs with exit 2 and a message", () => {
    for (const [args, message] of [
      [["--metric", "mean", "--baseline", "0", "--mde", "1"], /--sd is required/],
      [["--metric", "conversion", "--baseline", "1.5", "--mde", "0.1"], /--baseline must be between 0 and 1/],
      [["--metric", "conversion", "--baseline", "0.95", "--mde", "0.1"], /outside \(0, 1\)/],
      [["--metric", "conversion", "--baseline", "0.1", "--mde", "0"], /--mde must be a non-zero number/],
      [["--metric", "conversion", "--baseline", "0.1", "--mde", "0.01", "--arms", "1"], /--arms must be a whole number/],
      [["--metric", "ratio", "--baseline", "0.1", "--mde", "0.01"], /--metric/],
      [["--metric", "conversion", "--baseline", "0.1", "--sd", "2", "--mde", "0.01"], /--sd applies to a mean metric/],
      // Without --metric, a baseline that is no rate and no --sd: the missing --sd is named.
      [["--baseline", "5", "--mde", "0.5"], /--baseline 5 is not a rate between 0 and 1: for a mean metric, give --sd/],
      [["--mde", "0.5"], /required option '--baseline <x>' not specified/],
      [["--baseline", "0.1"], /required option '--mde <x>' not specified/],
      [["--baseline", "1e308", "--sd", "1", "--mde", "1", "--relative"], /--mde puts the treatment's value at Infinity/],
      [["--baseline", "0.1", "--mde", "0.02", "--daily-users", "1e-320"], /--daily-users 1e-320 a day gives Infinity days/],
    ] as const) {
      const r = cli(...args);
      expect(r.status, args.join(" ")).toBe(2);
      expect(r.stderr, args.join(" ")).toMatch(message);
    }
  }, 60_000);
});
