/**
 * Input checks of the metrics engine. Every error names the offending field by path
 * (`definition.threshold`, `events[3].timestamp`), so a bad row in a million is easy to find.
 */
import leven from "leven";
import { definitionFields } from "./definition-schema.ts";
import type { MetricData, MetricDefinition, MetricType } from "./types.ts";

export class MetricInputError extends Error {
  constructor(readonly field: string, problem: string) {
    super(`${field} ${problem}`);
    this.name = "MetricInputError";
  }
}

const TYPES: readonly MetricType[] = ["conversion", "events_per_user", "events_per_user_per_active_day", "retention"];
// A date, a time and an explicit zone: "2026-03-02" or "March 2" would be read in local time or guessed.
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** Milliseconds since the epoch, or a MetricInputError naming `field`. */
export function parseTimestamp(value: unknown, field: string): number {
  if (typeof value !== "string" || !ISO.test(value)) throw new MetricInputError(field, `must be an ISO 8601 timestamp with a zone, got ${JSON.stringify(value)}`);
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new MetricInputError(field, `is not a valid date: ${JSON.stringify(value)}`);
  return ms;
}

export function requireId(value: unknown, field: string): string {
  if (typeof value !== "string" || value === "") throw new MetricInputError(field, "must be a non-empty string");
  return value;
}

export function validateDefinition(def: unknown): MetricDefinition {
  if (!def || typeof def !== "object") throw new MetricInputError("definition", "must be an object");
  const d = def as Record<string, unknown>;
  if (!TYPES.includes(d.type as MetricType)) throw new MetricInputError("definition.type", `must be one of ${TYPES.join(", ")}, got ${JSON.stringify(d.type)}`);
  // Strict: a misspelled field (`windowdays`) is refused with the closest field named, never silently ignored.
  const fields = definitionFields.get(d.type as string)!.map((f) => f.name);
  for (const key of Object.keys(d)) {
    if (fields.includes(key)) continue;
    const known = [...new Set([...definitionFields.values()].flat().map((f) => f.name))];
    const closest = [...fields, ...known].map((f) => [f, leven(key.toLowerCase(), f)] as const).sort((a, b) => a[1] - b[1])[0];
    const hint = closest && closest[1] <= Math.max(2, Math.floor(key.length / 3)) ? `; did you mean ${closest[0]}?` : "";
    const elsewhere = known.includes(key) ? ` (it applies to ${[...definitionFields].filter(([, fs]) => fs.some((f) => f.name === key)).map(([t]) => t).join(", ")})` : "";
    throw new MetricInputError(`definition.${key}`, `is not a field of a ${d.type} definition${elsewhere}${hint} Fields: ${fields.join(", ")}`);
  }
  requireId(d.event, "definition.event");
  if (d.type === "retention") {
    if (!Number.isInteger(d.threshold) || (d.threshold as number) < 1) throw new MetricInputError("definition.threshold", `must be an integer >= 1, got ${JSON.stringify(d.threshold)}`);
    if (d.window_days === undefined) throw new MetricInputError("definition.window_days", "is required for retention");
  }
  if (d.active_day !== undefined) {
    if (d.type !== "events_per_user_per_active_day") throw new MetricInputError("definition.active_day", "applies to events_per_user_per_active_day only");
    if (d.active_day !== "metric_event" && d.active_day !== "any_event") throw new MetricInputError("definition.active_day", `must be metric_event or any_event, got ${JSON.stringify(d.active_day)}`);
  }
  if (d.window_days !== undefined && !(typeof d.window_days === "number" && Number.isFinite(d.window_days) && d.window_days > 0)) {
    throw new MetricInputError("definition.window_days", `must be a number > 0, got ${JSON.stringify(d.window_days)}`);
  }
  return def as MetricDefinition;
}

export function validateDataShape(data: unknown): MetricData {
  if (!data || typeof data !== "object") throw new MetricInputError("data", "must be an object");
  const d = data as Record<string, unknown>;
  if (!Array.isArray(d.exposures)) throw new MetricInputError("data.exposures", "must be an array");
  if (!Array.isArray(d.events)) throw new MetricInputError("data.events", "must be an array");
  return data as MetricData;
}

/**
 * Results keyed by variant name, as own properties: `Object.fromEntries` defines `__proto__` as a plain key, where an
 * assignment would set the object's prototype (and `constructor` would read Object's).
 */
export function variantRecord<T>(entries: Map<string, T>): Record<string, T> {
  return Object.fromEntries(entries) as Record<string, T>;
}

/** The analysis time in milliseconds: `as_of` parsed, or now. */
export function asOfMs(asOf: unknown): number {
  return asOf === undefined ? Date.now() : parseTimestamp(asOf, "options.as_of");
}
