/**
 * Timestamps as every engine reads them: one parser, so a value means the same instant on every engine and on every
 * machine, whatever its `TZ`.
 *
 * - ISO 8601 date and time, `T` or a space between them, seconds and fractions optional.
 * - The offset is `Z`, `+hh:mm`, `+hhmm` or `+hh`. A timestamp without one is refused, unless the run names a time zone
 *   (`timezone`, an IANA name such as `Europe/Paris`): then it is that zone's wall-clock time. A wall-clock time that
 *   occurs twice (clocks go back) is the later instant; one that does not exist (clocks go forward) moves forward by
 *   the gap (Luxon's rules).
 * - Invalid calendar dates and times (Feb 30, 24:00, 12:60) are refused, never rolled over.
 * - Instants are milliseconds: digits after the third of a fraction are dropped (truncated, not rounded).
 */
import { DateTime, IANAZone } from "luxon";
import { ValueProblem } from "./problem.ts";
import { show } from "../show.ts";

/**
 * The accepted shape, one definition for both carriers of the rules: this parser, and the SQL that checks files read
 * by DuckDB's own readers (sql/files.ts), which runs the same source in RE2 (same syntax here; \d is ASCII in both).
 * Groups: year, month, day, hour, minute, second, fraction, Z, offset sign, offset hours, offset minutes.
 */
export const TIMESTAMP_PATTERN = String.raw`^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:(Z|z)|([+-])(\d{2})(?::?(\d{2}))?)?$`;
/** Date.UTC reads years 0..99 as 1900..1999; no real event is that old. */
export const MIN_YEAR = 1000;
const PATTERN = new RegExp(TIMESTAMP_PATTERN);

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const daysIn = (year: number, month: number) => (month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : DAYS[month - 1]);


/** Throws a ValueProblem when `timezone` is not an IANA zone name. */
export function checkTimezone(timezone: string | undefined): void {
  if (timezone !== undefined && !IANAZone.isValidZone(timezone)) throw new ValueProblem(`is not an IANA time zone name (such as UTC or Europe/Paris): ${JSON.stringify(timezone)}`);
}

/** Epoch milliseconds of `value`, or a ValueProblem saying what is wrong with it. */
export function parseInstant(value: unknown, timezone?: string): number {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new ValueProblem("is an invalid date");
    return value.getTime();
  }
  if (typeof value !== "string") throw new ValueProblem(`must be an ISO 8601 timestamp, got ${show(value)}`);
  const m = PATTERN.exec(value);
  if (!m) throw new ValueProblem(`must be an ISO 8601 timestamp such as 2026-03-02T09:30:00Z, got ${JSON.stringify(value)}`);
  const [year, month, day, hour, minute] = [1, 2, 3, 4, 5].map((i) => Number(m[i]));
  const second = m[6] === undefined ? 0 : Number(m[6]);
  const ms = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, "0"));
  if (year < MIN_YEAR) throw new ValueProblem(`is before the year ${MIN_YEAR}: ${JSON.stringify(value)}`);
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) throw new ValueProblem(`is not a calendar date: ${JSON.stringify(value)}`);
  if (hour > 23 || minute > 59 || second > 59) throw new ValueProblem(`is not a time of day: ${JSON.stringify(value)}`);
  if (m[8]) return Date.UTC(year, month - 1, day, hour, minute, second, ms);
  if (m[9]) {
    const [oh, om] = [Number(m[10]), m[11] === undefined ? 0 : Number(m[11])];
    if (oh > 23 || om > 59) throw new ValueProblem(`has an invalid UTC offset: ${JSON.stringify(value)}`);
    const offset = (m[9] === "-" ? -1 : 1) * (oh * 60 + om) * 60_000;
    return Date.UTC(year, month - 1, day, hour, minute, second, ms) - offset;
  }
  if (timezone === undefined) throw new ValueProblem(`has no UTC offset (add Z or +hh:mm, or name the data's time zone with --timezone): ${JSON.stringify(value)}`);
  const local = DateTime.fromObject({ year, month, day, hour, minute, second, millisecond: ms }, { zone: timezone });
  if (!local.isValid) throw new ValueProblem(`cannot be read in ${timezone}: ${local.invalidExplanation ?? local.invalidReason}`);
  return local.toMillis();
}
