/**
 * The retry schedule of one process's dispatcher (dispatcher.ts): each pending retry waits on the clock until its
 * `scheduled_at` (at once when that passed while the sandbox was down), and can be taken out before it fires (its
 * webhook changed) or all at once (a shutdown). The delays themselves are schedule.ts's.
 */
import type { Clock } from "../clock.ts";
import type { Attempt } from "./attempt-records.ts";
import { TimerSet } from "./schedule.ts";

export class AttemptSchedule {
  private readonly timers: TimerSet;
  /** Attempts waiting for their time, with what cancels their timer. */
  private readonly waiting = new Map<Attempt, () => void>();

  constructor(clock: Clock) {
    this.timers = new TimerSet(clock);
  }

  get size(): number {
    return this.waiting.size;
  }

  /** Calls `due(attempt)` at the attempt's `scheduled_at`. */
  at(attempt: Attempt, due: (a: Attempt) => void): void {
    const cancel = this.timers.at(Date.parse(attempt.record.scheduled_at), () => {
      this.waiting.delete(attempt);
      due(attempt);
    });
    this.waiting.set(attempt, cancel);
  }

  /** Takes out the waiting attempts `drop` says go; returns them (their timers will not fire). */
  takeOut(drop: (a: Attempt) => boolean): Attempt[] {
    const out: Attempt[] = [];
    for (const [a, cancel] of this.waiting) {
      if (!drop(a)) continue;
      cancel();
      this.waiting.delete(a);
      out.push(a);
    }
    return out;
  }

  /** Stops every timer; returns the attempts that were waiting. */
  clear(): Attempt[] {
    const all = [...this.waiting.keys()];
    this.timers.clearAll();
    this.waiting.clear();
    return all;
  }
}
