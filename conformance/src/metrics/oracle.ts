/**
 * An independent, deliberately naive restatement of the rules, used by the laws: earliest exposure per
 * user, users with two variants excluded, events counted from exposure to exposure + window (end exclusive).
 */
import type { Data } from "./engine.ts";

export interface UserCount {
  variant: string;
  exposedMs: number;
  /** Counted events. */
  count: number;
  /** Distinct UTC dates of counted events. */
  days: number;
}

/** The UTC calendar date of a timestamp, whatever zone offset it is written with. */
export const utcDate = (timestamp: string) => new Date(Date.parse(timestamp)).toISOString().slice(0, 10);

export interface OracleOptions {
  windowDays?: number;
  /** Analysis time: exposures and events at or after it do not count; users whose window ends after it are immature. */
  asOfMs?: number;
  /** Active days from any event of the user (in the window) instead of the metric's own events. */
  anyEventDays?: boolean;
}

export function perUser(data: Data, event: string, windowDaysOrOptions?: number | OracleOptions): Map<string, UserCount> {
  const o: OracleOptions = typeof windowDaysOrOptions === "object" ? windowDaysOrOptions : { windowDays: windowDaysOrOptions };
  const windowDays = o.windowDays;
  const asOf = o.asOfMs ?? Infinity;
  data = { ...data, exposures: data.exposures.filter((x) => Date.parse(x.exposed_at) < asOf) };
  const variants = new Map<string, Set<string>>();
  const first = new Map<string, number>();
  for (const x of data.exposures) {
    if (!variants.has(x.user_id)) variants.set(x.user_id, new Set());
    variants.get(x.user_id)!.add(x.variant);
    const ms = Date.parse(x.exposed_at);
    first.set(x.user_id, Math.min(first.get(x.user_id) ?? Infinity, ms));
  }
  const out = new Map<string, UserCount>();
  for (const [u, vs] of variants) {
    if (vs.size !== 1) continue;
    const exposedMs = first.get(u)!;
    if (windowDays !== undefined && exposedMs + windowDays * 86_400_000 > asOf) continue; // immature
    const inWindow = data.events.filter((e) => {
      const t = Date.parse(e.timestamp);
      return e.user_id === u && t >= exposedMs && t < asOf && (windowDays === undefined || t < exposedMs + windowDays * 86_400_000);
    });
    const counted = inWindow.filter((e) => e.event === event);
    out.set(u, { variant: [...vs][0], exposedMs, count: counted.length, days: new Set((o.anyEventDays ? inWindow : counted).map((e) => utcDate(e.timestamp))).size });
  }
  return out;
}

export const excludedCount = (data: Data, asOfMs = Infinity) => {
  const variants = new Map<string, Set<string>>();
  for (const x of data.exposures.filter((y) => Date.parse(y.exposed_at) < asOfMs)) {
    if (!variants.has(x.user_id)) variants.set(x.user_id, new Set());
    variants.get(x.user_id)!.add(x.variant);
  }
  return [...variants.values()].filter((s) => s.size > 1).length;
};
