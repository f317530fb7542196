/**
 * Usage windows of study caps (DESIGN.md): weekly = Monday 00:00 UTC to the next Monday 00:00 UTC;
 * monthly = the calendar month in UTC (no billing anchor is modelled).
 */
const DAY = 86_400_000;

export function weekStart(nowMs: number): number {
  const d = new Date(nowMs);
  const midnight = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  const sinceMonday = (d.getUTCDay() + 6) % 7; // getUTCDay: Sunday = 0
  return midnight - sinceMonday * DAY;
}

export function monthStart(nowMs: number): number {
  const d = new Date(nowMs);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/** How many of a newest-first interview list were created at or after `sinceIso`: they are a prefix, found by binary search. */
export function createdSince(list: readonly { created_at: string }[], sinceIso: string): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid].created_at >= sinceIso) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
