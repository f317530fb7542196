/**
 * A value as an error message names it. JSON.stringify names NaN and ±Infinity `null`, which misleads: a number is
 * shown as JavaScript writes it (`NaN`, `Infinity`, `1e+300`), with a note when it can only be an overflow.
 */
export function show(value: unknown): string {
  if (typeof value === "number") return Number.isNaN(value) || Number.isFinite(value) ? String(value) : `${value} (a number past ±1.8e308 overflows a double)`;
  if (typeof value === "bigint") return String(value);
  return JSON.stringify(value) ?? String(value);
}
