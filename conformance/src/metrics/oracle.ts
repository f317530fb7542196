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

export function perUser(data: Data, event: string, windowDays?: number): Map<string, UserCount> {
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
    const counted = data.events.filter((e) => {
      const t = Date.parse(e.timestamp);
      return e.user_id === u && e.event === event && t >= exposedMs && (windowDays === undefined || t < exposedMs + windowDays * 86_400_000);
    });
    out.set(u, { variant: [...vs][0], exposedMs, count: counted.length, days: new Set(counted.map((e) => e.timestamp.slice(0, 10))).size });
  }
  return out;
}

export const excludedCount = (data: Data) => {
  const variants = new Map<string, Set<string>>();
  for (const x of data.exposures) {
    if (!variants.has(x.user_id)) variants.set(x.user_id, new Set());
    variants.get(x.user_id)!.add(x.variant);
  }
  return [...variants.values()].filter((s) => s.size > 1).length;
};
