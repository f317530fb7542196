/**
 * The in-memory engine: the four success metrics of the seed, intent-to-treat and zero-filled.
 *
 * Rules (each is tested, as a hand-computed case, as a property, and against the SQL engine):
 * 1. One exposure per user: the earliest. Repeated rows of the same user and variant are one exposure.
 * 2. A user exposed to two different variants is excluded from every variant and counted in `excluded_users`.
 * 3. Only events named `definition.event`, of exposed users, at or after the user's exposure count.
 * 4. Windows start at each user's exposure: with `window_days` an event counts when
 *    exposed_at <= timestamp < exposed_at + window (start inclusive, end exclusive), the window being
 *    window_days * 86,400,000 ms rounded to the millisecond (windowMs), the same integer on every engine.
 * 5. The denominator is every exposed (non-excluded, mature) user of the variant; users without events count as 0.
 * 6. Conversion = users with >= 1 counted event / exposed users (volume ignored).
 *    Events per user = counted events / exposed users.
 *    Events per user per active day = sum over users of (counted events / active days) / exposed users, where an
 *    active day is a UTC calendar date with at least one counted event (a user with none contributes 0).
 *    Retention = users with >= threshold counted events inside the window / exposed users.
 * 7. Nobody exposed: value null, never 0 or NaN.
 * 8. Invalid definitions or data throw MetricInputError naming the field (or the file, line and column).
 * 9. As of `as_of` (default: one millisecond after the data's last timestamp, so the same data always gives the
 *    same answer): exposures and events at or after it are ignored, and with a window a user whose window ends
 *    after it (exposed_at + window > as_of) is immature: excluded from every variant and counted in
 *    `immature_users`, never counted as a 0 (which would pull every arm toward 0).
 * 10. Active days: `active_day: "metric_event"` (default) counts UTC dates with a counted event of the metric;
 *    `"any_event"` counts UTC dates with any event of the user inside the same window.
 * 11. With `cuped`, each user's pre-exposure value of the same metric, over the same length of time just before the
 *    exposure (exposed_at - window <= timestamp < exposed_at; all earlier events without a window), is summed per
 *    variant for CUPED (compare.ts).
 * Cost: one pass over the exposures and one over the events, with a Map per user: O(exposures + events).
 */
import { getHeapStatistics } from "node:v8";
import { rowSourceOfData, type EventRow, type ExposureRow, type RowSource } from "./input/rows.ts";
import type { MetricData, MetricDefinition, MetricOptions, MetricResult, VariantResult } from "./types.ts";
import { asOfOption, DAY_MS, MetricInputError, validateDataShape, validateDefinition, variantRecord, windowMs } from "./validate.ts";

interface UserState {
  variant: string;
  exposedMs: number;
  excluded: boolean;
  count: number;
  /** UTC day numbers with a counted event; only kept for the per-active-day metric. */
  days: Set<number> | null;
  preCount: number;
  preDays: Set<number> | null;
}

/** A JavaScript Map holds at most 2^24 entries, whatever the heap. */
const MAP_LIMIT = 2 ** 24;
/** What one exposed user costs in the heap, measured with its id: a generous estimate (a Set of days included). */
const BYTES_PER_USER = 400;

/**
 * V8's heap limit counts the young generation as well, where entries kept for the whole run never stay: three
 * semi-spaces, 16 MB each on 64-bit unless `--max-semi-space-size` says otherwise (so `--max-old-space-size=64` reads as
 * 112 MB). Counted as room, it let a 64 MB heap take 180,000 users, more than it holds, and abort out of memory (CI,
 * 2026-11-28).
 */
export function youngGeneration(flags = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)]): number {
  const set = flags.map((f) => /^--max[-_]semi[-_]space[-_]size=(\d+)$/.exec(f)?.[1]).filter((x) => x !== undefined).pop();
  return 3 * (set === undefined ? 16 : Number(set)) * 2 ** 20;
}

/**
 * The most users this process can hold: within the Map's limit and three quarters of the old generation still free
 * (the data a library caller already holds is not counted against it twice). Past it the engine refuses with a message
 * (run with --engine sql) instead of crashing with an out-of-memory abort.
 */
export function memoryUserLimit(): number {
  const heap = getHeapStatistics();
  const old = heap.heap_size_limit - youngGeneration();
  return Math.max(0, Math.min(MAP_LIMIT - 1, Math.floor(((old - heap.used_heap_size) * 0.75) / BYTES_PER_USER)));
}

const TOO_MANY = (what: string) => `${what}, more than the in-memory engine holds in this process (one entry per exposed user): run with --engine sql, which keeps them in DuckDB`;

/** One metric accumulated over rows: every exposure batch first, then the events. */
export class MemoryMetric {
  private readonly def: MetricDefinition;
  private readonly users = new Map<string, UserState>();
  private readonly asOf: number;
  private readonly window: number;
  private readonly trackDays: boolean;
  private readonly anyEventDays: boolean;
  private readonly cuped: boolean;
  private last = -Infinity;
  private readonly userLimit = memoryUserLimit();

  constructor(definition: MetricDefinition, private readonly options: MetricOptions = {}) {
    this.def = validateDefinition(definition);
    this.asOf = asOfOption(options.as_of, options.timezone) ?? Infinity;
    this.window = windowMs(this.def) ?? Infinity;
    this.trackDays = this.def.type === "events_per_user_per_active_day";
    this.anyEventDays = this.def.type === "events_per_user_per_active_day" && this.def.active_day === "any_event";
    this.cuped = options.cuped === true;
  }

  addExposures(rows: readonly ExposureRow[]): void {
    for (const x of rows) {
      if (x.ms > this.last) this.last = x.ms;
      if (x.ms >= this.asOf) continue; // not exposed yet at the analysis time
      const seen = this.users.get(x.user_id);
      if (!seen) {
        if (this.users.size >= this.userLimit) {
          throw new MetricInputError("exposures", TOO_MANY(`name more than ${this.userLimit.toLocaleString("en-US")} users`));
        }
        const days = this.trackDays ? new Set<number>() : null;
        this.users.set(x.user_id, { variant: x.variant, exposedMs: x.ms, excluded: false, count: 0, days, preCount: 0, preDays: this.trackDays && this.cuped ? new Set() : null });
      } else if (seen.variant !== x.variant) seen.excluded = true;
      else if (x.ms < seen.exposedMs) seen.exposedMs = x.ms;
    }
  }

  addEvents(rows: readonly EventRow[]): void {
    // Active days grow with the events: a heap this close to its limit would abort the process in the next batches.
    if (this.trackDays) {
      const heap = getHeapStatistics();
      if (heap.used_heap_size > heap.heap_size_limit * 0.9) throw new MetricInputError("events", TOO_MANY(`fill the heap with ${this.users.size.toLocaleString("en-US")} users' active days`));
    }
    const event = this.def.event;
    for (const e of rows) {
      if (e.ms > this.last) this.last = e.ms;
      const metricEvent = e.event === event;
      if (!metricEvent && !this.anyEventDays) continue;
      const u = this.users.get(e.user_id);
      if (!u || u.excluded || e.ms >= this.asOf) continue;
      if (e.ms < u.exposedMs) {
        // Before exposure: only the CUPED covariate, over the same length of time just before the exposure.
        if (!this.cuped || u.exposedMs - e.ms > this.window) continue;
        if (metricEvent) u.preCount++;
        u.preDays?.add(Math.floor(e.ms / DAY_MS));
        continue;
      }
      if (e.ms - u.exposedMs >= this.window) continue;
      if (metricEvent) u.count++;
      u.days?.add(Math.floor(e.ms / DAY_MS));
    }
  }

  private value(count: number, days: Set<number> | null): number {
    switch (this.def.type) {
      case "conversion":
        return count > 0 ? 1 : 0;
      case "events_per_user":
        return count;
      case "events_per_user_per_active_day":
        return count > 0 ? count / days!.size : 0;
      case "retention":
        return count >= this.def.threshold ? 1 : 0;
    }
  }

  result(): MetricResult {
    const given = this.asOf !== Infinity;
    // Default: just after the data's last timestamp, never the wall clock; no data, no analysis time.
    const asOf = given ? this.asOf : this.last === -Infinity ? null : this.last + 1;
    // Variant names come from the data: a Map, never an object's keys, so `__proto__` or `constructor` is a name like any other.
    const variants = new Map<string, VariantResult>();
    const empty = (): VariantResult => ({ value: null, numerator: 0, denominator: 0, sum: 0, sum_squares: 0, ...(this.cuped ? { pre: { sum: 0, sum_squares: 0, sum_products: 0 } } : {}) });
    for (const v of this.options.variants ?? []) variants.set(v, empty());
    let excluded = 0;
    let immature = 0;
    for (const u of this.users.values()) {
      if (u.excluded) {
        excluded++;
        continue;
      }
      if (this.window !== Infinity && asOf !== null && u.exposedMs + this.window > asOf) {
        immature++;
        continue;
      }
      let r = variants.get(u.variant);
      if (!r) variants.set(u.variant, (r = empty()));
      const value = this.value(u.count, u.days);
      r.denominator++;
      r.sum += value;
      r.sum_squares += value * value;
      if (r.pre) {
        const pre = this.value(u.preCount, u.preDays);
        r.pre.sum += pre;
        r.pre.sum_squares += pre * pre;
        r.pre.sum_products += value * pre;
      }
    }
    for (const r of variants.values()) {
      r.numerator = r.sum;
      r.value = r.denominator === 0 ? null : r.sum / r.denominator;
    }
    return {
      metric: this.def.type, event: this.def.event, variants: variantRecord(variants, this.options.variants), excluded_users: excluded, immature_users: immature,
      as_of: asOf === null ? null : new Date(asOf).toISOString(), as_of_source: given ? "options" : "data",
    };
  }
}

/** The metric over data in memory (timestamps as ISO strings; errors name the field, e.g. `events[3].timestamp`). */
export function computeMetric(definition: MetricDefinition, data: MetricData, options: MetricOptions = {}): MetricResult {
  const metric = new MemoryMetric(definition, options);
  const rows = rowSourceOfData(validateDataShape(data), options.timezone);
  for (const batch of rows.exposures) metric.addExposures(batch);
  for (const batch of rows.events) metric.addEvents(batch);
  return metric.result();
}

/** The metric over rows read from files (input/read.ts): the same engine, fed in batches. */
export async function computeMetricFromRows(definition: MetricDefinition, source: RowSource, options: MetricOptions = {}): Promise<MetricResult> {
  const metric = new MemoryMetric(definition, options);
  for await (const batch of source.exposures) metric.addExposures(batch);
  for await (const batch of source.events) metric.addEvents(batch);
  return metric.result();
}
