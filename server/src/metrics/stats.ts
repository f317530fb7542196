/** The few distribution functions the comparison needs, with their accuracy stated. */

/** z such that P(Z <= z) = 0.975. */
export const Z_975 = 1.959963984540054;

/** Exact t(0.975, df) for df = 1..10 (standard tables). */
const T_TABLE = [12.706204736, 4.302652730, 3.182446305, 2.776445105, 2.570581836, 2.446911851, 2.364624252, 2.306004135, 2.262157163, 2.228138852];

/** Cornish-Fisher expansion of Student's t around the normal quantile (Abramowitz & Stegun 26.7.5). */
function cornishFisher(df: number): number {
  const z = Z_975;
  return (
    z +
    (z ** 3 + z) / (4 * df) +
    (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2) +
    (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / (384 * df ** 3) +
    (79 * z ** 9 + 776 * z ** 7 + 1482 * z ** 5 - 1920 * z ** 3 - 945 * z) / (92160 * df ** 4)
  );
}

/**
 * Two-sided 95% critical value of Student's t with `df` (possibly fractional, as Welch's df is) degrees of
 * freedom: exact table values for df <= 10, interpolated linearly in 1/df between them; the Cornish-Fisher
 * expansion above 10, where its error is below 1e-5.
 */
export function t975(df: number): number {
  if (!(df > 0)) return Number.NaN;
  if (df <= 1) return T_TABLE[0];
  if (df < 10) {
    const lo = Math.floor(df);
    const hi = lo + 1;
    const w = (1 / lo - 1 / df) / (1 / lo - 1 / hi);
    return T_TABLE[lo - 1] + w * (T_TABLE[hi - 1] - T_TABLE[lo - 1]);
  }
  return cornishFisher(df);
}
