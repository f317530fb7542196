/**
 * Always-valid confidence intervals for peeking every day: the asymptotic confidence sequences of Waudby-Smith,
 * Arbour, Sinha, Kennedy and Ramdas ("Time-uniform central limit theory and asymptotic confidence sequences",
 * arXiv 2103.06476), as GrowthBook implements them for its sequential testing:
 *
 *   ρ² = (-2 ln α + ln(-2 ln α + 1)) / N*
 *   half-width = σ̂ · sqrt( 2 (N ρ² + 1) / (N² ρ²) · ln( sqrt(N ρ² + 1) / α ) )
 *
 * with α = 1 - confidence, N the users in both arms, σ̂² = N · Var(estimate) (the estimate's variance from the
 * fixed-horizon analysis: unpooled for proportions, Welch's for means, the delta method for the relative lift), and
 * N* the tuning parameter: the total sample size at which the sequence is tightest (GrowthBook's default 5,000).
 * The interval is the estimate ± that half-width. It holds at every look at once: stopping the first day it excludes
 * zero keeps the false-positive rate at or under α (a simulation test checks it).
 *
 * The p-value is the always-valid one: the smallest α at which the sequence excludes no difference.
 */
export const DEFAULT_SEQUENTIAL_TUNING = 5000;

/** The half-width of the sequence at level 1 - alpha, for an estimate whose variance is `variance` from `n` users. */
export function sequentialHalfWidth(variance: number, n: number, alpha: number, tuning: number): number {
  const rho2 = (-2 * Math.log(alpha) + Math.log(-2 * Math.log(alpha) + 1)) / tuning;
  const s2 = variance * n;
  return Math.sqrt(s2) * Math.sqrt(((2 * (n * rho2 + 1)) / (n * n * rho2)) * Math.log(Math.sqrt(n * rho2 + 1) / alpha));
}

/**
 * The smallest α whose sequence excludes 0, by bisection on ln α (the half-width falls as α grows); 1 when even
 * α just under 1 does not exclude it.
 */
export function sequentialPValue(estimate: number, variance: number, n: number, tuning: number): number {
  const excludes = (alpha: number) => Math.abs(estimate) > sequentialHalfWidth(variance, n, alpha, tuning);
  const top = 1 - 1e-12;
  if (!excludes(top)) return 1;
  let lo = Math.log(1e-300);
  let hi = Math.log(top);
  if (excludes(Math.exp(lo))) return 0;
  for (let i = 0; i < 200 && hi - lo > 1e-13; i++) {
    const mid = (lo + hi) / 2;
    if (excludes(Math.exp(mid))) hi = mid;
    else lo = mid;
  }
  return Math.exp(hi);
}
