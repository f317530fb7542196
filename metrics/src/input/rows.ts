/**
 * The rows both engines consume, already checked: ids exactly as written (never trimmed or re-encoded) and instants
 * in epoch milliseconds. Files (input/read.ts) and in-memory data (`rowsOfData`) become rows through the same checks,
 * so every engine sees the same rows and gives the same answer.
 */
import type { MetricData } from "../types.ts";
import { MetricInputError } from "../validate.ts";
import { ValueProblem } from "./problem.ts";
import { parseInstant } from "./timestamp.ts";

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

/** An identifier: a non-empty string kept byte for byte, or an integer written in decimal (Parquet, JSON). */
export function idValue(value: unknown): string {
  if (typeof value === "string") {
    if (value === "") throw new ValueProblem("is empty");
    // Kept as written, but storable everywhere: PostgreSQL has no NUL in text, and a lone surrogate has no UTF-8.
    if (value.includes("\u0000")) throw new ValueProblem(`contains a NUL character: ${JSON.stringify(value)}`);
    if (LONE_SURROGATE.test(value)) throw new ValueProblem(`is not valid Unicode text (a lone surrogate): ${JSON.stringify(value)}`);
    return value;
  }
  if (typeof value === "bigint" || (typeof value === "number" && Number.isSafeInteger(value))) return String(value);
  if (value === undefined || value === null) throw new ValueProblem("is missing");
  throw new ValueProblem(`must be a string, got ${JSON.stringify(value) ?? String(value)}`);
}

/** A checked row value, or a MetricInputError naming `where` (a field path, or a file, line and column). */
export function check<T>(read: () => T, where: () => string): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof ValueProblem) throw new MetricInputError(where(), err.message);
    throw err;
  }
}

/** In-memory data (the library's `computeMetric`) as rows, with errors naming `exposures[3].exposed_at`. */
export function rowsOfData(data: MetricData, timezone?: string): { exposures: ExposureRow[]; events: EventRow[] } {
  const exposures = data.exposures.map((x, i) => {
    if (!x || typeof x !== "object") throw new MetricInputError(`exposures[${i}]`, "must be an object");
    return {
      user_id: check(() => idValue(x.user_id), () => `exposures[${i}].user_id`),
      variant: check(() => idValue(x.variant), () => `exposures[${i}].variant`),
      ms: check(() => parseInstant(x.exposed_at, timezone), () => `exposures[${i}].exposed_at`),
    };
  });
  const events = data.events.map((e, i) => {
    if (!e || typeof e !== "object") throw new MetricInputError(`events[${i}]`, "must be an object");
    return {
      user_id: check(() => idValue(e.user_id), () => `events[${i}].user_id`),
      event: check(() => idValue(e.event), () => `events[${i}].event`),
      ms: check(() => parseInstant(e.timestamp, timezone), () => `events[${i}].timestamp`),
    };
  });
  return { exposures, events };
}
