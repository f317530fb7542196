/**
 * Input checks of the metrics engine. Every error names the offending field by path
 * (`definition.threshold`, `events[3].timestamp`), so a bad row in a million is easy to find.
 */
import leven from "leven";
import { definitionFields } from "./definition-schema.ts";
import { ValueProblem } from "./input/problem.ts";
import { parseInstant } from "./input/timestamp.ts";
import type { MetricData, MetricDefinition, MetricType } from "./types.ts";
import { show } from "./show.ts";

export class MetricInputError extends Error {
  constructor(readonly field: string, problem: string) {
    super(`${field} ${problem}`);
    this.name = "MetricInputError";
  }
}

const TYPES: readonly MetricType[] = ["conversion", "events_per_user", "events_per_user_per_active_day", "retention"];
export const DAY_MS = 86_400_000;
/** The longest window: a million days keeps every exposure + window sum an exact integer of milliseconds. */
const MAX_WINDOW_DAYS = 1_000_000;

/**
 * The window in milliseconds, rounded to the millisecond: the one integer every engine compares with, so a
 * fractional window (`1/7` of a day) ends at the same instant everywhere. Undefined without a window.
 */
export function windowMs(def: MetricDefinition): number | undefined {
  return def.window_days === undefined ? undefined : Math.round(def.window_days * DAY_MS);
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
  if (typeof d.event !== "string" || d.event === "") throw new MetricInputError("definition.event", `must be a non-empty string, got ${JSON.stringify(d.event)}`);
  if (d.type === "retention") {
    // Past 2^53 an integer is not exact in a double, and the SQL engines refuse to inline it: every engine refuses it.
    if (!Number.isSafeInteger(d.threshold) || (d.threshold as number) < 1) throw new MetricInputError("definition.threshold", `must be an integer from 1 to ${Number.MAX_SAFE_INTEGER}, got ${show(d.threshold)}`);
    if (d.window_days === undefined) throw new MetricInputError("definition.window_days", "is required for retention");
  }
  if (d.active_day !== undefined) {
    if (d.type !== "events_per_user_per_active_day") throw new MetricInputError("definition.active_day", "applies to events_per_user_per_active_day only");
    if (d.active_day !== "metric_event" && d.active_day !== "any_event") throw new MetricInputError("definition.active_day", `must be metric_event or any_event, got ${JSON.stringify(d.active_day)}`);
  }
  if (d.window_days !== undefined) {
    const w = d.window_days;
    if (!(typeof w === "number" && Number.isFinite(w) && w > 0)) throw new MetricInputError("definition.window_days", `must be a finite number > 0, got ${show(w)}`);
    if (w > MAX_WINDOW_DAYS) throw new MetricInputError("definition.window_days", `must be at most ${MAX_WINDOW_DAYS} days, got ${w}`);
    if (Math.round(w * DAY_MS) < 1) throw new MetricInputError("definition.window_days", `must be at least one millisecond (${1 / DAY_MS} days), got ${w}`);
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
 * assignment would set the object's prototype (and `constructor` would read Object's). One order on every engine:
 * the requested variants as given, then the others by code unit (never a database's collation).
 */
export function variantRecord<T>(entries: Map<string, T>, requested: readonly string[] = []): Record<string, T> {
  const rest = [...entries.keys()].filter((v) => !requested.includes(v)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries([...new Set(requested)].concat(rest).map((v) => [v, entries.get(v)!])) as Record<string, T>;
}

/** The analysis time in milliseconds, when one is given (read like the data's timestamps). */
export function asOfOption(asOf: unknown, timezone?: string): number | undefined {
  if (asOf === undefined) return undefined;
  try {
    return parseInstant(asOf, timezone);
  } catch (err) {
    if (err instanceof ValueProblem) throw new MetricInputError("as_of", err.message);
    throw err;
  }
}
