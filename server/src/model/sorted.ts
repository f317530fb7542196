/**
 * Keyset pagination over sorted arrays. Every list keeps its items sorted by (timestamp, id) in the
 * list's direction; a cursor is located by binary search, never by scanning from the start, and new
 * items are inserted at their sorted place so a walk in progress neither repeats nor skips old items.
 * ISO timestamps of one format (`YYYY-MM-DDTHH:mm:ss.sssZ`) sort as strings, so no Date parsing is needed.
 */
export type Compare<T> = (a: T, b: T) => number;

const cmpStr = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Newest first; ties by id, descending too, so the order is the exact reverse of the ascending one. */
export function descBy<T extends { id: string }>(key: (t: T) => string): Compare<T> {
  return (a, b) => cmpStr(key(b), key(a)) || cmpStr(b.id, a.id);
}

/** Oldest first; ties by id ascending. */
export function ascBy<T extends { id: string }>(key: (t: T) => string): Compare<T> {
  return (a, b) => cmpStr(key(a), key(b)) || cmpStr(a.id, b.id);
}

/** First index whose item sorts strictly after `probe`. */
export function upperBound<T>(sorted: readonly T[], probe: T, cmp: Compare<T>): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cmp(sorted[mid], probe) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index whose item sorts at or after `probe`. */
export function lowerBound<T>(sorted: readonly T[], probe: T, cmp: Compare<T>): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cmp(sorted[mid], probe) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function insertSorted<T>(sorted: T[], item: T, cmp: Compare<T>): void {
  sorted.splice(upperBound(sorted, item, cmp), 0, item);
}

export function removeSorted<T>(sorted: T[], item: T, cmp: Compare<T>): void {
  const i = lowerBound(sorted, item, cmp);
  if (sorted[i] === item) sorted.splice(i, 1);
}

export interface Page<T> {
  data: T[];
  has_more: boolean;
}

/**
 * The page after `cursor` (or the first page): up to `limit` items passing `filter`, and whether one more
 * exists. Looking one item past the page makes `has_more` exact.
 */
export function pageAfter<T>(sorted: readonly T[], cmp: Compare<T>, cursor: T | undefined, limit: number, filter?: (t: T) => boolean): Page<T> {
  const data: T[] = [];
  let i = cursor ? upperBound(sorted, cursor, cmp) : 0;
  for (; i < sorted.length; i++) {
    const item = sorted[i];
    if (filter && !filter(item)) continue;
    if (data.length === limit) return { data, has_more: true };
    data.push(item);
  }
  return { data, has_more: false };
}

/**
 * `pageAfter` over the union of several lists sorted by the same order and disjoint (each item in one list only):
 * each list is entered after the cursor by binary search, then the page is merged from their heads, so the cost is
 * O(k log n + k * limit) for k lists, whatever their length.
 */
export function pageAfterMerged<T>(lists: ReadonlyArray<readonly T[]>, cmp: Compare<T>, cursor: T | undefined, limit: number): Page<T> {
  const at = lists.map((l) => (cursor ? upperBound(l, cursor, cmp) : 0));
  const data: T[] = [];
  for (;;) {
    let best = -1;
    for (let k = 0; k < lists.length; k++) {
      if (at[k] < lists[k].length && (best < 0 || cmp(lists[k][at[k]], lists[best][at[best]]) < 0)) best = k;
    }
    if (best < 0) return { data, has_more: false };
    if (data.length === limit) return { data, has_more: true };
    data.push(lists[best][at[best]++]);
  }
}
