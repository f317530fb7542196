/**
 * The retry schedule of the seed (1st retry after 10 s, 2nd after 1 min, 3rd after 5 min, then drop) on the
 * injectable clock, so a test's fake clock can run the whole schedule without waiting. Every timer goes
 * through one TimerSet, so shutdown can clear whatever is still pending.
 */
import { schedule, type Clock } from "../clock.ts";

export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [10_000, 60_000, 300_000];

/** Attempts of one event: the first one plus one per configured retry delay (4 with the defaults). */
export function maxAttempts(retryDelaysMs: readonly number[]): number {
  return 1 + retryDelaysMs.length;
}

/** The wait before attempt `attempt + 1` after attempt `attempt` (1-based) failed; null once retries are exhausted. */
export function retryDelayAfter(retryDelaysMs: readonly number[], attempt: number): number | null {
  return attempt >= 1 && attempt <= retryDelaysMs.length ? retryDelaysMs[attempt - 1] : null;
}

/** How early a real timer may wake up, by the clock, before we treat it as a clock that does not follow real time. */
const EARLY_WAKEUP_MS = 20;
const MAX_REARMS = 3;

export class TimerSet {
  /** Live timers: the key is the cancel function handed out, the value clears the clock's timer. */
  private readonly live = new Map<() => void, () => void>();

  constructor(private readonly clock: Clock) {}

  /**
   * Runs `fn` when the clock reaches `dueMs`; returns a cancel function (a no-op once fired or cancelled).
   * The real timer runs on a monotonic clock and may fire a millisecond before Date.now() reaches the due time;
   * such an early wake-up waits out the rest, so an attempt is not sent before its recorded `scheduled_at`.
   * Only a short remainder is waited out, a few times at most: a clock that does not move with real time (a
   * test's frozen clock without timers) must not stall the schedule.
   */
  at(dueMs: number, fn: () => void): () => void {
    const cancel = () => {
      const clear = this.live.get(cancel);
      if (!clear) return;
      this.live.delete(cancel);
      clear();
    };
    const arm = (ms: number, rearms: number) => {
      const clear = schedule(this.clock, () => {
        // A fake clock may call a timer it was asked to clear; only live timers run.
        if (!this.live.has(cancel)) return;
        const early = dueMs - this.clock.now();
        if (early > 0 && early <= EARLY_WAKEUP_MS && rearms < MAX_REARMS) return arm(early, rearms + 1);
        this.live.delete(cancel);
        fn();
      }, ms);
      this.live.set(cancel, clear);
    };
    arm(Math.max(0, dueMs - this.clock.now()), 0);
    return cancel;
  }

  clearAll(): void {
    for (const cancel of [...this.live.keys()]) cancel();
  }

  get size(): number {
    return this.live.size;
  }
}
