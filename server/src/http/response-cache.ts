/**
 * A bounded cache of serialized GET bodies for the read-only operations. A body is a pure function of the
 * project's data version (bumped by every change to it: simulated interviews), the request URL and, for the
 * operations that show usage, the current week and month: so a hit is byte-identical to a fresh answer.
 * Authentication and validation still run on every request; only the handler and serialization are skipped.
 * RESPONSE_CACHE=0 turns it off (the benchmarks report both).
 */
export interface CachedBody {
  status: number;
  body: Buffer;
}

export class ResponseCache {
  private readonly entries = new Map<string, CachedBody>();
  private bytes = 0;

  constructor(private readonly maxEntries = 2_000, private readonly maxBytes = 64 * 1024 * 1024) {}

  get(key: string): CachedBody | undefined {
    const hit = this.entries.get(key);
    if (hit) {
      // Map order is insertion order: re-inserting marks it most recently used.
      this.entries.delete(key);
      this.entries.set(key, hit);
    }
    return hit;
  }

  set(key: string, value: CachedBody): void {
    if (value.body.length > this.maxBytes / 8) return;
    const old = this.entries.get(key);
    if (old) {
      this.bytes -= old.body.length;
      this.entries.delete(key);
    }
    this.entries.set(key, value);
    this.bytes += value.body.length;
    for (const [k, v] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.bytes <= this.maxBytes) break;
      this.entries.delete(k);
      this.bytes -= v.body.length;
    }
  }

  get size(): number {
    return this.entries.size;
  }
}
