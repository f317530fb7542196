/**
 * The same event can arrive more than once (retries after a lost 2xx); receivers de-duplicate on
 * `session_id` (the deprecated alias of `interview_id`, both sent). Memory is bounded by a TTL and an entry
 * cap; a store interface lets a team keep the seen set in Redis or a database instead.
 */
import type { InterviewCompletedEvent } from "./types.ts";

export interface SeenStore {
  /** Records `key` for `ttlMs` and says whether it was already there, atomically where the store allows. */
  remember(key: string, ttlMs: number): boolean | Promise<boolean>;
}

/** An in-memory store: insertion-ordered Map, expired and overflowing entries evicted oldest first. */
export function memoryStore({ maxEntries = 10_000, clock = { now: () => Date.now() } }: { maxEntries?: number; clock?: { now(): number } } = {}): SeenStore {
  const seen = new Map<string, number>();
  return {
    remember(key, ttlMs) {
      const now = clock.now();
      const expires = seen.get(key);
      if (expires !== undefined && expires > now) return true;
      seen.delete(key);
      // Make room: drop expired entries and, past the cap, the oldest ones.
      for (const [k, e] of seen) {
        if (e > now && seen.size < maxEntries) break;
        seen.delete(k);
      }
      seen.set(key, now + ttlMs);
      return false;
    },
  };
}

/** The de-duplication key of an event: `data.session_id`, else `data.interview_id`. */
export function dedupeKey(event: Pick<InterviewCompletedEvent, "event" | "data"> | { event?: unknown; data?: { session_id?: unknown; interview_id?: unknown } } | null | undefined): string | null {
  // Anything but an object (a signed `null`, a number) has no id: never a duplicate, never a crash.
  if (event === null || typeof event !== "object") return null;
  const data = (event as { data?: { session_id?: unknown; interview_id?: unknown } | null }).data;
  const id = data?.session_id ?? data?.interview_id;
  return typeof id === "string" && id !== "" ? `${String((event as { event?: unknown }).event ?? "")}:${id}` : null;
}

export interface Deduplicator {
  /** True when this event was already seen within the TTL (and records it otherwise). Events without an id are never duplicates. */
  seen(event: unknown): Promise<boolean>;
}

export function createDeduplicator({ ttlMs = 24 * 3_600_000, maxEntries, clock, store }: { ttlMs?: number; maxEntries?: number; clock?: { now(): number }; store?: SeenStore } = {}): Deduplicator {
  const backing = store ?? memoryStore({ maxEntries, clock });
  return {
    async seen(event) {
      const key = dedupeKey(event as never);
      return key === null ? false : await backing.remember(key, ttlMs);
    },
  };
}
