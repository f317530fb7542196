/** Only JSON primitives leave the device: anything else (objects, arrays, functions, NaN) is dropped and reported. */
import type { Primitive } from "./types.ts";

export function primitivesOnly(input: unknown, drop: (key: string, reason: string) => void): Record<string, Primitive> {
  const out: Record<string, Primitive> = {};
  if (input === null || typeof input !== "object") return out;
  for (const [key, value] of Object.entries(input)) {
    if (value === null || typeof value === "string" || typeof value === "boolean") out[key] = value;
    else if (typeof value === "number" && Number.isFinite(value)) out[key] = value;
    else drop(key, Array.isArray(value) ? "array" : typeof value === "number" ? "not a finite number" : typeof value);
  }
  return out;
}
