/**
 * Files to rows: the one input layer of the command line, for both engines. Each value is checked where it is read,
 * and a bad one stops the run with the file, line and column named (`events.csv line 12, column 3 (timestamp) is not
 * a calendar date: "2026-02-30T10:00:00Z"`). An empty file, or one with only a header, has no rows.
 */
import { access } from "node:fs/promises";
import { MetricInputError } from "../validate.ts";
import { readBatches } from "./formats.ts";
import { ValueProblem } from "./problem.ts";
import { idValue, type EventRow, type ExposureRow, type RowSource } from "./rows.ts";
import { checkTimezone, parseInstant } from "./timestamp.ts";

export interface ReadOptions {
  /** The CSV delimiter (default: detected from the header). */
  delimiter?: string;
  /** IANA time zone of timestamps written without an offset (default: such timestamps are refused). */
  timezone?: string;
  /** Called with the rows read so far, every million rows of a file. */
  onProgress?: (file: string, rows: number, done: boolean) => void;
  /**
   * `--engine sql`: called about every second while DuckDB works on a step (loading a file, computing the metric)
   * that has run a second or more, with DuckDB's own estimate of the share done (0-100), and once with `done`.
   */
  onStepProgress?: (step: string, percent: number, done: boolean) => void;
}

export const PROGRESS_EVERY = 1_000_000;

type Checks = readonly [(v: unknown) => string, (v: unknown) => string, (v: unknown) => number];

async function* rows<R>(file: string, columns: readonly string[], checks: Checks, make: (a: string, b: string, ms: number) => R, options: ReadOptions): AsyncGenerator<R[]> {
  try {
    await access(file);
  } catch {
    throw new MetricInputError(file, "cannot be read (no such file, or no permission)");
  }
  let count = 0;
  for await (const batch of readBatches(file, columns, options)) {
    const out: R[] = new Array(batch.cells.length);
    for (let i = 0; i < batch.cells.length; i++) {
      const cells = batch.cells[i];
      let c = 0;
      try {
        const a = checks[0](cells[0]);
        c = 1;
        const b = checks[1](cells[1]);
        c = 2;
        out[i] = make(a, b, checks[2](cells[2]));
      } catch (err) {
        if (err instanceof ValueProblem) throw new MetricInputError(await batch.place(i, c), err.message);
        throw err;
      }
    }
    const before = count;
    count += out.length;
    if (options.onProgress && Math.floor(count / PROGRESS_EVERY) > Math.floor(before / PROGRESS_EVERY)) options.onProgress(file, Math.floor(count / PROGRESS_EVERY) * PROGRESS_EVERY, false);
    yield out;
  }
  if (options.onProgress && count >= PROGRESS_EVERY) options.onProgress(file, count, true);
}

/** The two files as rows: exposures `user_id, variant, exposed_at`, events `user_id, event, timestamp`. */
export function readFiles(exposuresFile: string, eventsFile: string, options: ReadOptions = {}): RowSource {
  try {
    checkTimezone(options.timezone);
  } catch (err) {
    throw new MetricInputError("--timezone", (err as Error).message);
  }
  if (options.delimiter !== undefined && [...options.delimiter].length !== 1) throw new MetricInputError("--delimiter", `must be one character (or "tab"), got ${JSON.stringify(options.delimiter)}`);
  const checks: Checks = [idValue, idValue, (v) => parseInstant(v, options.timezone)];
  return {
    exposures: rows<ExposureRow>(exposuresFile, ["user_id", "variant", "exposed_at"], checks, (user_id, variant, ms) => ({ user_id, variant, ms }), options),
    events: rows<EventRow>(eventsFile, ["user_id", "event", "timestamp"], checks, (user_id, event, ms) => ({ user_id, event, ms }), options),
  };
}
