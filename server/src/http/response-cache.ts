/**
 * A bounded cache of serialized GET bodies for the read-only operations. A body is a pure function of the
 * project's data version (bumped by every change to it: simulated interviews), the request URL and, for the
 * operations that show usage, the current week and month: so a hit is byte-identical to a fresh answer.
 * Authentication, faults and admission still run on every request (validation once per URL, router.ts); only the
 * handler and serialization are skipped, and, for a URL answered before, Express's walk of the request (the fast lane,
 * router.ts).
 * RESPONSE_CACHE=0 turns it off (the benchmarks report both).
 */
export interface CachedBody {
  status: number;
  body: Buffer;
}

interface Entry extends CachedBody {
  /** Read since the eviction sweep last passed it (second chance: a read costs a flag, not a move in the map). */
  used: boolean;
}

export class ResponseCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(private readonly maxEntries = 2_000, private readonly maxBytes = 64 * 1024 * 1024) {}

  get(key: string): CachedBody | undefined {
    const hit = this.entries.get(key);
    if (hit) hit.used = true;
    return hit;
  }

  set(key: string, value: CachedBody): void {
    if (value.body.length > this.maxBytes / 8) return;
    const old = this.entries.get(key);
    if (old) {
      this.bytes -= old.body.length;
      this.entries.delete(key);
    }
    this.entries.set(key, { status: value.status, body: value.body, used: false });
    this.bytes += value.body.length;
    // Oldest first; one read since the last sweep buys an entry another round at the back (CLOCK, close to LRU).
    // Each entry is moved at most once per sweep, so this ends.
    let moved = 0;
    for (const [k, v] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.bytes <= this.maxBytes) break;
      if (v.used && moved < this.entries.size) {
        v.used = false;
        moved++;
        this.entries.delete(k);
        this.entries.set(k, v);
        continue;
      }
      this.entries.delete(k);
      this.bytes -= v.body.length;
    }
  }

  get size(): number {
    return this.entries.size;
  }
}
