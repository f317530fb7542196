/**
 * The rows both engines consume, already checked: ids exactly as written (never trimmed or re-encoded) and instants
 * in epoch milliseconds. Files (input/read.ts) and in-memory data (`rowsOfData`) become rows through the same checks,
 * so every engine sees the same rows and gives the same answer.
 */
import type { MetricData } from "../types.ts";
import { MetricInputError } from "../validate.ts";
import { ValueProblem } from "./problem.ts";
import { parseInstant } from "./timestamp.ts";
import { show } from "../show.ts";

export interface ExposureRow {
  user_id: string;
  variant: string;
  ms: number;
}

export interface EventRow {
  user_id: string;
  event: string;
  ms: number;
}

/** Rows in batches: every exposure batch is read before the first event batch. */
export interface RowSource {
  exposures: AsyncIterable<ExposureRow[]> | Iterable<ExposureRow[]>;
  events: AsyncIterable<EventRow[]> | Iterable<EventRow[]>;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// String.prototype.isWellFormed (Node 20+; ES2024, beyond the declared lib) is a native scan, many times the regex's speed.
const nativeWellFormed = (String.prototype as { isWellFormed?: () => boolean }).isWellFormed;
const wellFormed = (s: string): boolean => (nativeWellFormed ? nativeWellFormed.call(s) : !LONE_SURROGATE.test(s));

/** An identifier: a non-empty string kept byte for byte, or an integer written in decimal (Parquet, JSON). */
export function idValue(value: unknown): string {
  if (typeof value === "string") {
    if (value === "") throw new ValueProblem("is empty");
    // Kept as written, but storable everywhere: PostgreSQL has no NUL in text, and a lone surrogate has no UTF-8.
    if (value.includes("\u0000")) throw new ValueProblem(`contains a NUL character: ${JSON.stringify(value)}`);
    if (!wellFormed(value)) throw new ValueProblem(`is not valid Unicode text (a lone surrogate): ${JSON.stringify(value)}`);
    return value;
  }
  if (typeof value === "bigint" || (typeof value === "number" && Number.isSafeInteger(value))) return String(value);
  if (value === undefined || value === null) throw new ValueProblem("is missing");
  throw new ValueProblem(`must be a string, got ${show(value)}`);
}

const CHUNK = 65_536;

/**
 * In-memory data (the library's `computeMetric`) as rows in batches, with errors naming `exposures[3].exposed_at`.
 * Batches, not one array: ten million events would otherwise be copied whole before the first is counted.
 */
export function rowSourceOfData(data: MetricData, timezone?: string): { exposures: ExposureRow[][]; events: Iterable<EventRow[]> } {
  const { exposures } = rowsOfData({ exposures: data.exposures, events: [] }, timezone);
  function* events(): Generator<EventRow[]> {
    for (let start = 0; start < data.events.length; start += CHUNK) yield rowsOfData({ exposures: [], events: data.events.slice(start, start + CHUNK) }, timezone, start).events;
  }
  return { exposures: [exposures], events: events() };
}

/** In-memory data as rows, with errors naming `exposures[3].exposed_at` (`offset`: the index of the first event). */
export function rowsOfData(data: MetricData, timezone?: string, offset = 0): { exposures: ExposureRow[]; events: EventRow[] } {
  // One try per row, not a closure per value: this runs for every one of millions of events.
  const exposures: ExposureRow[] = new Array(data.exposures.length);
  for (let i = 0; i < data.exposures.length; i++) {
    const x = data.exposures[i];
    if (!x || typeof x !== "object") throw new MetricInputError(`exposures[${i}]`, "must be an object");
    let field = "user_id";
    try {
      const user_id = idValue(x.user_id);
      field = "variant";
      const variant = idValue(x.variant);
      field = "exposed_at";
      exposures[i] = { user_id, variant, ms: parseInstant(x.exposed_at, timezone) };
    } catch (err) {
      if (err instanceof ValueProblem) throw new MetricInputError(`exposures[${i}].${field}`, err.message);
      throw err;
    }
  }
  const events: EventRow[] = new Array(data.events.length);
  for (let i = 0; i < data.events.length; i++) {
    const e = data.events[i];
    if (!e || typeof e !== "object") throw new MetricInputError(`events[${i + offset}]`, "must be an object");
    let field = "user_id";
    try {
      const user_id = idValue(e.user_id);
      field = "event";
      const event = idValue(e.event);
      field = "timestamp";
      events[i] = { user_id, event, ms: parseInstant(e.timestamp, timezone) };
    } catch (err) {
      if (err instanceof ValueProblem) throw new MetricInputError(`events[${i + offset}].${field}`, err.message);
      throw err;
    }
  }
  return { exposures, events };
}
