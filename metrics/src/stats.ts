/** The distribution functions the comparison needs, from a kept statistics library (stdlib), not a table. */
import tQuantile from "@stdlib/stats-base-dists-t-quantile";

/** z such that P(Z <= z) = 0.975. */
export const Z_975 = 1.959963984540054;

/** Two-sided 95% critical value of Student's t with `df` degrees of freedom (fractional df allowed, as Welch's is). */
export function t975(df: number): number {
  if (!(df > 0)) return Number.NaN;
  return tQuantile(0.975, df);
}

/**
 * Wilson score interval of a proportion k/n at the 95% level: unlike Wald's, it never collapses to a point at
 * 0% or 100% (0/100 gives [0, 0.037]).
 */
export function wilson(p: number, n: number, z = Z_975): [number, number] {
  const z2 = z * z;
  const center = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
  return [Math.max(0, center - half), Math.min(1, center + half)];
}
