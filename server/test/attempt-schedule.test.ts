// The retry schedule of one process (webhooks/attempt-schedule.ts) on an injected clock: an attempt fires at its
// scheduled_at and not before, at once when that is past (the sandbox was down), never once taken out (its webhook
// changed: staleness and cancellation), and nothing fires after a shutdown. No real time passes.
import { describe, expect, it } from "vitest";
import type { Attempt } from "../src/webhooks/attempt-records.ts";
import { AttemptSchedule } from "../src/webhooks/attempt-schedule.ts";
import { maxAttempts, retryDelayAfter, DEFAULT_RETRY_DELAYS_MS } from "../src/webhooks/schedule.ts";
import { manualClock } from "./webhooks-helpers.ts";

const T0 = Date.parse("2026-11-27T10:00:00.000Z");
const attempt = (id: string, webhook: string, atMs: number) => ({ ev: { id, webhook } as unknown, record: { id, scheduled_at: new Date(atMs).toISOString() } as unknown }) as Attempt;

describe("the attempt schedule", () => {
  it("fires each attempt at its scheduled_at, in time order, and at once when that is already past", () => {
    const clock = manualClock(T0);
    const s = new AttemptSchedule(clock);
    const fired: string[] = [];
    s.at(attempt("late", "w", T0 + 60_000), (a) => fired.push(a.record.id));
    s.at(attempt("soon", "w", T0 + 10_000), (a) => fired.push(a.record.id));
    s.at(attempt("missed", "w", T0 - 5_000), (a) => fired.push(a.record.id));
    clock.advance(0);
    expect(fired).toEqual(["missed"]);
    clock.advance(9_999);
    expect(fired).toEqual(["missed"]);
    clock.advance(1);
    expect(fired).toEqual(["missed", "soon"]);
    expect(s.size).toBe(1);
    clock.advance(50_000);
    expect(fired).toEqual(["missed", "soon", "late"]);
    expect(s.size).toBe(0);
  });

  it("never fires what was taken out (a webhook changed), and keeps the rest", () => {
    const clock = manualClock(T0);
    const s = new AttemptSchedule(clock);
    const fired: string[] = [];
    for (const [id, webhook] of [["a1", "old"], ["a2", "old"], ["b1", "new"]]) s.at(attempt(id, webhook, T0 + 1_000), (a) => fired.push(a.record.id));
    const out = s.takeOut((a) => (a.ev as unknown as { webhook: string }).webhook === "old");
    expect(out.map((a) => a.record.id).sort()).toEqual(["a1", "a2"]);
    clock.advance(5_000);
    expect(fired).toEqual(["b1"]);
  });

  it("fires nothing after a shutdown, and says what was waiting", () => {
    const clock = manualClock(T0);
    const s = new AttemptSchedule(clock);
    const fired: string[] = [];
    s.at(attempt("x", "w", T0 + 1_000), (a) => fired.push(a.record.id));
    expect(s.clear().map((a) => a.record.id)).toEqual(["x"]);
    clock.advance(10_000);
    expect(fired).toEqual([]);
    expect(clock.pending).toBe(0);
  });

  it("holds the seed's schedule: 10 s, 1 min, 5 min after the failed attempt, then no more (4 attempts)", () => {
    expect(maxAttempts(DEFAULT_RETRY_DELAYS_MS)).toBe(4);
    expect([1, 2, 3, 4].map((n) => retryDelayAfter(DEFAULT_RETRY_DELAYS_MS, n))).toEqual([10_000, 60_000, 300_000, null]);
  });
});
