/**
 * The server's only source of time. Injectable so tests can freeze "now" (usage windows, launch-token
 * expiry) and run the whole webhook retry schedule without waiting.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Schedules `fn` after `ms`; defaults to the real timer when a clock only provides `now`. */
  setTimeout?(fn: () => void, ms: number): unknown;
  clearTimeout?(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

/** Schedules on the clock's timer when it has one, else on the real timer. */
export function schedule(clock: Clock, fn: () => void, ms: number): () => void {
  if (clock.setTimeout) {
    const h = clock.setTimeout(fn, ms);
    return () => clock.clearTimeout?.(h);
  }
  const t = setTimeout(fn, ms);
  t.unref?.();
  return () => clearTimeout(t);
}

export const iso = (ms: number) => new Date(ms).toISOString();
