/** fast-check generators of small experiment data sets: few users so collisions (ties, re-exposures) are common. */
import fc from "fast-check";
import type { Data, Exposure, MetricEvent } from "./engine.ts";

export const BASE_MS = Date.UTC(2026, 0, 5, 0, 0, 0);
export const HOUR = 3_600_000;
export const iso = (ms: number) => new Date(ms).toISOString();

export const VARIANTS = ["control", "treatment"] as const;
const user = fc.integer({ min: 0, max: 7 }).map((n) => `u${n}`);
/** Offsets up to 20 days in whole hours, so events land on many UTC days and exposures collide. */
const offset = fc.integer({ min: 0, max: 20 * 24 }).map((h) => h * HOUR);

/** The same instant written in a zone: `2026-01-05T22:00:00.000-03:30` is 2026-01-06T01:30Z, another UTC date. */
export function inZone(ms: number, zoneMinutes: number): string {
  if (zoneMinutes === 0) return iso(ms);
  const local = new Date(ms + zoneMinutes * 60_000).toISOString().slice(0, 23);
  const sign = zoneMinutes < 0 ? "-" : "+";
  const abs = Math.abs(zoneMinutes);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
}

/** Zone offsets, UTC most often; the others move the local date away from the UTC date. */
const zone = fc.constantFrom(0, 0, 0, -600, -210, 330, 540, 840);
const when = fc.tuple(offset, zone).map(([o, z]) => inZone(BASE_MS + o, z));

export const exposureArb: fc.Arbitrary<Exposure> = fc.record({
  user_id: user,
  variant: fc.constantFrom(...VARIANTS),
  exposed_at: when,
});

export const eventArb: fc.Arbitrary<MetricEvent> = fc.record({
  user_id: user,
  event: fc.constantFrom("purchase", "purchase", "purchase", "page_view"),
  timestamp: when,
});

export const dataArb: fc.Arbitrary<Data> = fc.record({
  exposures: fc.array(exposureArb, { maxLength: 12 }),
  events: fc.array(eventArb, { maxLength: 40 }),
});

export const windowArb = fc.option(fc.integer({ min: 1, max: 14 }), { nil: undefined });

/** Analysis times inside the data's span, so some windows are still open (immature users). */
export const asOfArb = fc.integer({ min: 0, max: 24 * 24 }).map((h) => BASE_MS + h * HOUR);
