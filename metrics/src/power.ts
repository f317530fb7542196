/**
 * Power and sample size, as R computes them (two arms, two-sided, `strict = FALSE`), so an analyst's numbers match
 * the ones statisticians check them with:
 * - proportions, `power.prop.test`:
 *     power = Φ( (sqrt(n) |p1 - p2| - z(1 - α/2) sqrt((p1 + p2)(q1 + q2) / 2)) / sqrt(p1 q1 + p2 q2) )
 * - means, `power.t.test`: with ν = 2 (n - 1) and the noncentral t of noncentrality sqrt(n / 2) δ / σ,
 *     power = P( T(ν, ncp) > t(1 - α/2; ν) )
 * n is per arm; it is found by bisection on the power formula (R's uniroot stops at a tolerance of 1.2e-4; here the
 * root is found to 1e-10) and reported rounded up. With more than two arms each treatment is compared with the
 * control at α / (arms - 1) (Bonferroni), so every comparison keeps its power. The expected duration is the arms'
 * total sample divided by the daily users entering the experiment.
 */
import betainc from "@stdlib/math-base-special-betainc";
import gammaln from "@stdlib/math-base-special-gammaln";
import normalCdf from "@stdlib/stats-base-dists-normal-cdf";
import normalQuantile from "@stdlib/stats-base-dists-normal-quantile";
import tQuantile from "@stdlib/stats-base-dists-t-quantile";
import { MetricInputError } from "./validate.ts";

export type PowerInput =
  | { metric: "conversion"; baseline: number; mde: number; relative?: boolean; alpha?: number; power?: number; arms?: number; dailyUsers?: number }
  | { metric: "mean"; baseline: number; sd: number; mde: number; relative?: boolean; alpha?: number; power?: number; arms?: number; dailyUsers?: number };

export interface PowerResult {
  metric: "conversion" | "mean";
  /** The baseline and the treatment value the test is powered to detect. */
  baseline: number;
  target: number;
  /** The absolute difference detected (target - baseline). */
  mde_absolute: number;
  alpha: number;
  /** α per comparison: α / (arms - 1). */
  alpha_per_comparison: number;
  power: number;
  arms: number;
  /** The exact root of the power formula, per arm, before rounding up. */
  n_exact: number;
  users_per_arm: number;
  total_users: number;
  /** With daily users: days until every arm has its sample. */
  days?: number;
  method: "power.prop.test" | "power.t.test";
}

/** P(T > t) for the noncentral t with `df` degrees of freedom and noncentrality `ncp` >= 0, t >= 0 (AS 243, Lenth 1989, as R's pnt). */
export function noncentralTUpper(t: number, df: number, ncp: number): number {
  // R's pnt switches to a normal approximation for huge df or noncentrality (the series underflows there).
  if (df > 4e5 || ncp * ncp > 2 * Math.LN2 * 1021) {
    const s4 = 1 / (4 * df);
    return 1 - normalCdf(t * (1 - s4), ncp, Math.sqrt(1 + t * t * 2 * s4));
  }
  const x = (t * t) / (t * t + df);
  const lambda = ncp * ncp;
  let p = 0.5 * Math.exp(-0.5 * lambda);
  let q = Math.sqrt(2 / Math.PI) * p * ncp;
  let s = 0.5 - p;
  let a = 0.5;
  const b = 0.5 * df;
  const rxb = Math.pow(1 - x, b);
  const albeta = 0.5 * Math.log(Math.PI) + gammaln(b) - gammaln(0.5 + b);
  let xodd = betainc(x, a, b);
  let godd = 2 * rxb * Math.exp(a * Math.log(x) - albeta);
  let xeven = 1 - rxb;
  let geven = b * x * rxb;
  let tnc = p * xodd + q * xeven;
  for (let j = 1; j <= 1000; j++) {
    a += 1;
    xodd -= godd;
    xeven -= geven;
    godd *= (x * (a + b - 1)) / a;
    geven *= (x * (a + b - 0.5)) / (a + 0.5);
    p *= lambda / (2 * j);
    q *= lambda / (2 * j + 1);
    tnc += p * xodd + q * xeven;
    s -= p;
    if (s <= 0 && j > 1) break;
    if (Math.abs(2 * s * (xodd - godd)) < 1e-12) break;
  }
  // tnc + Φ(-ncp) is P(T <= t).
  return Math.min(1, Math.max(0, 1 - (tnc + normalCdf(-ncp, 0, 1))));
}

/** power.prop.test's power for n per arm. */
export function proportionPower(n: number, p1: number, p2: number, alpha: number): number {
  const q1 = 1 - p1;
  const q2 = 1 - p2;
  const z = normalQuantile(1 - alpha / 2, 0, 1);
  return normalCdf((Math.sqrt(n) * Math.abs(p1 - p2) - z * Math.sqrt(((p1 + p2) * (q1 + q2)) / 2)) / Math.sqrt(p1 * q1 + p2 * q2), 0, 1);
}

/** power.t.test's power for n per arm (two samples, two-sided, strict = FALSE). */
export function meanPower(n: number, delta: number, sd: number, alpha: number): number {
  const nu = 2 * (n - 1);
  const qu = tQuantile(1 - alpha / 2, nu);
  return noncentralTUpper(qu, nu, Math.sqrt(n / 2) * (Math.abs(delta) / sd));
}

/** The n (>= 2) at which `power(n)` reaches `target`, by bisection (power rises with n). */
function solveN(power: (n: number) => number, target: number): number {
  let lo = 2;
  let hi = 4;
  while (power(hi) < target) {
    hi *= 2;
    if (hi > 1e12) throw new MetricInputError("power", "needs more than 10^12 users per arm: the effect is too small to detect");
  }
  if (power(lo) >= target) return lo;
  while (hi - lo > 1e-10 * Math.max(1, lo)) {
    const mid = (lo + hi) / 2;
    if (power(mid) >= target) hi = mid;
    else lo = mid;
  }
  return hi;
}

const probability = (name: string, v: number) => {
  if (!(v > 0 && v < 1)) throw new MetricInputError(name, `must be between 0 and 1 (exclusive), got ${v}`);
  return v;
};

export function sampleSize(input: PowerInput): PowerResult {
  const alpha = probability("--alpha", input.alpha ?? 0.05);
  const power = probability("--power", input.power ?? 0.8);
  const arms = input.arms ?? 2;
  if (!Number.isInteger(arms) || arms < 2) throw new MetricInputError("--arms", `must be a whole number of arms, 2 or more (control included), got ${arms}`);
  if (!(Number.isFinite(input.mde) && input.mde !== 0)) throw new MetricInputError("--mde", `must be a non-zero number, got ${input.mde}`);
  if (!Number.isFinite(input.baseline)) throw new MetricInputError("--baseline", `must be a number, got ${input.baseline}`);
  if (input.dailyUsers !== undefined && !(input.dailyUsers > 0)) throw new MetricInputError("--daily-users", `must be a positive number, got ${input.dailyUsers}`);
  const perComparison = alpha / (arms - 1);
  const target = input.relative ? input.baseline * (1 + input.mde) : input.baseline + input.mde;
  if (!Number.isFinite(target)) throw new MetricInputError("--mde", `puts the treatment's value at ${target} (past a double's largest, 1.8e308): no sample size is computed for it`);
  let n: number;
  if (input.metric === "conversion") {
    probability("--baseline", input.baseline);
    if (!(target > 0 && target < 1)) throw new MetricInputError("--mde", `puts the treatment's rate at ${target}, outside (0, 1)`);
    n = solveN((m) => proportionPower(m, input.baseline, target, perComparison), power);
  } else {
    if (!(input.sd > 0 && Number.isFinite(input.sd))) throw new MetricInputError("--sd", `must be a positive number, got ${input.sd}`);
    if (input.relative && input.baseline === 0) throw new MetricInputError("--relative", "needs a non-zero baseline mean");
    n = solveN((m) => meanPower(m, target - input.baseline, input.sd, perComparison), power);
  }
  const usersPerArm = Math.ceil(n);
  const total = usersPerArm * arms;
  const days = input.dailyUsers === undefined ? undefined : Math.ceil(total / input.dailyUsers);
  if (days !== undefined && !Number.isSafeInteger(days)) throw new MetricInputError("--daily-users", `${input.dailyUsers} a day gives ${days} days for ${total} users: no duration is computed for it`);
  return {
    metric: input.metric, baseline: input.baseline, target, mde_absolute: input.relative ? target - input.baseline : input.mde, alpha, alpha_per_comparison: perComparison, power, arms,
    n_exact: n, users_per_arm: usersPerArm, total_users: total,
    ...(days !== undefined ? { days } : {}),
    method: input.metric === "conversion" ? "power.prop.test" : "power.t.test",
  };
}
