/** The distribution functions the comparison needs, from a kept statistics library (stdlib), not a table. */
import normalCdf from "@stdlib/stats-base-dists-normal-cdf";
import normalQuantile from "@stdlib/stats-base-dists-normal-quantile";
import tCdf from "@stdlib/stats-base-dists-t-cdf";
import tQuantile from "@stdlib/stats-base-dists-t-quantile";

/** z such that P(Z <= z) = 0.975. */
export const Z_975 = 1.959963984540054;

/** Two-sided critical value of the standard normal at `level` (0.95 gives 1.96). */
export function zCritical(level: number): number {
  return normalQuantile((1 + level) / 2, 0, 1);
}

/** Two-sided critical value of Student's t with `df` degrees of freedom at `level` (fractional df allowed, as Welch's is). */
export function tCritical(level: number, df: number): number {
  if (!(df > 0)) return Number.NaN;
  return tQuantile((1 + level) / 2, df);
}

/** Two-sided 95% critical value of Student's t. */
export const t975 = (df: number): number => tCritical(0.95, df);

/** Two-sided p-value of a z statistic. */
export const zPValue = (z: number): number => 2 * normalCdf(-Math.abs(z), 0, 1);

/** Two-sided p-value of a t statistic with `df` degrees of freedom. */
export const tPValue = (t: number, df: number): number => 2 * tCdf(-Math.abs(t), df);

/**
 * Wilson score interval of a proportion k/n (95% by default): unlike Wald's, it never collapses to a point at
 * 0% or 100% (0/100 gives [0, 0.037]).
 */
export function wilson(p: number, n: number, z = Z_975): [number, number] {
  const z2 = z * z;
  const center = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
  return [Math.max(0, center - half), Math.min(1, center + half)];
}
