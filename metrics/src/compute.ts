/**
 * computeMetric: the four success metrics of the seed, intent-to-treat and zero-filled.
 *
 * Rules (each is tested, as a hand-computed case and as a property):
 * 1. One exposure per user: the earliest. Repeated rows of the same user and variant are one exposure.
 * 2. A user exposed to two different variants is excluded from every variant and counted in `excluded_users`.
 * 3. Only events named `definition.event`, of exposed users, at or after the user's exposure count.
 * 4. Windows start at each user's exposure: with `window_days` an event counts when
 *    exposed_at <= timestamp < exposed_at + window_days * 24 h (start inclusive, end exclusive).
 * 5. The denominator is every exposed (non-excluded) user of the variant; users without events count as 0.
 * 6. Conversion = users with >= 1 counted event / exposed users (volume ignored).
 *    Events per user = counted events / exposed users.
 *    Events per user per active day = sum over users of (counted events / active days) / exposed users, where an
 *    active day is a UTC calendar date with at least one counted event (a user with none contributes 0).
 *    Retention = users with >= threshold counted events inside the window / exposed users.
 * 7. Nobody exposed: value null, never 0 or NaN.
 * 8. Invalid definitions or data throw MetricInputError naming the field.
 * 9. As of `options.as_of` (default now): exposures and events at or after it are ignored, and with `window_days`
 *    a user whose window ends after it (exposed_at + window > as_of) is immature: excluded from every variant and
 *    counted in `immature_users`, never counted as a 0 (which would pull every arm toward 0).
 * 10. Active days (per-active-day metric): `active_day: "metric_event"` (default) counts UTC dates with a counted
 *    event of the metric; `"any_event"` counts UTC dates with any event of the user inside the same window.
 * Cost: one pass over the exposures and one over the events, with a Map per user: O(exposures + events).
 */
import type { MetricData, MetricDefinition, MetricOptions, MetricResult, VariantResult } from "./types.ts";
import { asOfMs, parseTimestamp, requireId, validateDataShape, validateDefinition, variantRecord } from "./validate.ts";

const DAY_MS = 86_400_000;

interface UserState {
  variant: string;
  exposedMs: number;
  excluded: boolean;
  count: number;
  /** UTC day numbers with a counted event; only kept for the per-active-day metric. */
  days: Set<number> | null;
}

export function computeMetric(definition: MetricDefinition, data: MetricData, options: MetricOptions = {}): MetricResult {
  const def = validateDefinition(definition);
  const { exposures, events } = validateDataShape(data);
  const trackDays = def.type === "events_per_user_per_active_day";
  const anyEventDays = def.type === "events_per_user_per_active_day" && def.active_day === "any_event";
  const windowMs = def.window_days === undefined ? Infinity : def.window_days * DAY_MS;
  const asOf = asOfMs(options.as_of);

  const users = new Map<string, UserState>();
  for (let i = 0; i < exposures.length; i++) {
    const x = exposures[i];
    const user = requireId(x?.user_id, `exposures[${i}].user_id`);
    const variant = requireId(x.variant, `exposures[${i}].variant`);
    const ms = parseTimestamp(x.exposed_at, `exposures[${i}].exposed_at`);
    if (ms >= asOf) continue; // not exposed yet at the analysis time
    const seen = users.get(user);
    if (!seen) users.set(user, { variant, exposedMs: ms, excluded: false, count: 0, days: trackDays ? new Set() : null });
    else if (seen.variant !== variant) seen.excluded = true;
    else if (ms < seen.exposedMs) seen.exposedMs = ms;
  }

  for (let i = 0; i < events.length; i++) {
    const e = events[i];
    requireId(e?.user_id, `events[${i}].user_id`);
    requireId(e.event, `events[${i}].event`);
    // Every timestamp is checked, counted or not: a malformed row is an error wherever it is.
    const ms = parseTimestamp(e.timestamp, `events[${i}].timestamp`);
    const metricEvent = e.event === def.event;
    if (!metricEvent && !anyEventDays) continue;
    const u = users.get(e.user_id);
    if (!u || u.excluded || ms >= asOf || ms < u.exposedMs || ms - u.exposedMs >= windowMs) continue;
    if (metricEvent) u.count++;
    if (metricEvent || anyEventDays) u.days?.add(Math.floor(ms / DAY_MS));
  }

  const perUser = (u: UserState): number => {
    switch (def.type) {
      case "conversion":
        return u.count > 0 ? 1 : 0;
      case "events_per_user":
        return u.count;
      case "events_per_user_per_active_day":
        return u.count > 0 ? u.count / u.days!.size : 0;
      case "retention":
        return u.count >= def.threshold ? 1 : 0;
    }
  };

  // Variant names come from the data: a Map, never an object's keys, so `__proto__` or `constructor` is a name like any other.
  const variants = new Map<string, VariantResult>();
  const empty = (): VariantResult => ({ value: null, numerator: 0, denominator: 0, sum: 0, sum_squares: 0 });
  for (const v of options.variants ?? []) variants.set(v, empty());
  let excluded = 0;
  let immature = 0;
  for (const u of users.values()) {
    if (u.excluded) {
      excluded++;
      continue;
    }
    if (windowMs !== Infinity && u.exposedMs + windowMs > asOf) {
      immature++;
      continue;
    }
    let r = variants.get(u.variant);
    if (!r) variants.set(u.variant, (r = empty()));
    const value = perUser(u);
    r.denominator++;
    r.sum += value;
    r.sum_squares += value * value;
  }
  for (const r of variants.values()) {
    r.numerator = r.sum;
    r.value = r.denominator === 0 ? null : r.sum / r.denominator;
  }
  return { metric: def.type, event: def.event, variants: variantRecord(variants), excluded_users: excluded, immature_users: immature, as_of: new Date(asOf).toISOString() };
}
