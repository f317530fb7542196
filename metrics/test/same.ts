/** One answer from every engine: the same error, or the same result (counts exact, ratios and sums to 1e-12). */
import { expect } from "vitest";
import type { MetricResult } from "../src/types.ts";
import type { EngineName } from "./engines.ts";

const close = (a: number | null, b: number | null) => (a === null || b === null ? a === b : Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(a), Math.abs(b)));

/** Why two outcomes differ, or null when they are the same answer. */
export function difference(a: MetricResult | string, b: MetricResult | string): string | null {
  if (typeof a === "string" || typeof b === "string") return a === b ? null : `${JSON.stringify(a).slice(0, 300)} vs ${JSON.stringify(b).slice(0, 300)}`;
  for (const k of ["metric", "event", "excluded_users", "immature_users", "as_of", "as_of_source"] as const) if (a[k] !== b[k]) return `${k}: ${a[k]} vs ${b[k]}`;
  const names = (r: MetricResult) => Object.keys(r.variants).sort();
  if (names(a).join("\u0000") !== names(b).join("\u0000")) return `variants: ${JSON.stringify(names(a))} vs ${JSON.stringify(names(b))}`;
  for (const v of names(a)) {
    const x = a.variants[v];
    const y = b.variants[v];
    if (x.denominator !== y.denominator) return `${v}.denominator: ${x.denominator} vs ${y.denominator}`;
    for (const k of ["value", "numerator", "sum", "sum_squares"] as const) if (!close(x[k], y[k])) return `${v}.${k}: ${x[k]} vs ${y[k]}`;
    for (const k of ["sum", "sum_squares", "sum_products"] as const) if (!close(x.pre?.[k] ?? null, y.pre?.[k] ?? null)) return `${v}.pre.${k}: ${x.pre?.[k]} vs ${y.pre?.[k]}`;
  }
  return null;
}

export function expectOneAnswer(outcomes: Partial<Record<EngineName, MetricResult | string>>): MetricResult | string {
  const [first, ...rest] = Object.entries(outcomes) as Array<[EngineName, MetricResult | string]>;
  for (const [name, o] of rest) expect(difference(first[1], o), `${first[0]} vs ${name}`).toBeNull();
  return first[1];
}
