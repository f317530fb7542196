/**
 * Only JSON primitives leave the device: objects, arrays, functions, symbols, bigints and non-finite numbers are
 * dropped and reported. `undefined` is skipped quietly: an allowlist mapper (`plan: props?.plan`) yields it for
 * every absent property, and JSON would drop it anyway.
 */
import type { Primitive } from "./types.ts";

export function primitivesOnly(input: unknown, drop: (key: string, reason: string) => void): Record<string, Primitive> {
  const out: Record<string, Primitive> = {};
  if (input === null || typeof input !== "object") return out;
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined) continue;
    if (value === null || typeof value === "string" || typeof value === "boolean") out[key] = value;
    else if (typeof value === "number" && Number.isFinite(value)) out[key] = value;
    else drop(key, Array.isArray(value) ? "array" : typeof value === "number" ? "not a finite number" : typeof value);
  }
  return out;
}
