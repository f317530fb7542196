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

export const exposureArb: fc.Arbitrary<Exposure> = fc.record({
  user_id: user,
  variant: fc.constantFrom(...VARIANTS),
  exposed_at: offset.map((o) => iso(BASE_MS + o)),
});

export const eventArb: fc.Arbitrary<MetricEvent> = fc.record({
  user_id: user,
  event: fc.constantFrom("purchase", "purchase", "purchase", "page_view"),
  timestamp: offset.map((o) => iso(BASE_MS + o)),
});

export const dataArb: fc.Arbitrary<Data> = fc.record({
  exposures: fc.array(exposureArb, { maxLength: 12 }),
  events: fc.array(eventArb, { maxLength: 40 }),
});

export const windowArb = fc.option(fc.integer({ min: 1, max: 14 }), { nil: undefined });
