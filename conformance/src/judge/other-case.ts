/**
 * An enum filter's value in another case, or padded with a space: another value, which no item has. Shared by the filters check (on the
 * target's own data) and the covering phase's releases unit (on releases it planted in both statuses).
 */
import type { Reply } from "../http.ts";

/** A lower-case enum value in two other cases: capitalized and upper (`Active`, `ACTIVE`). */
export const caseTwins = (value: string): string[] => [value[0].toUpperCase() + value.slice(1), value.toUpperCase()];

/** An enum value padded with a space at either end: another value too, which a filter that trims would match. */
export const paddedTwins = (value: string): string[] => [`${value} `, ` ${value}`];

/**
 * A list's answer to a filter value no item has: right when it lists nothing, or refuses the value with a 400; `items`
 * are what it listed (a folded match shows them).
 */
export function otherCaseAnswer(reply: Reply): { ok: boolean; items: any[] } {
  const items: any[] = reply.status === 200 && Array.isArray(reply.body?.data) ? reply.body.data : [];
  return { ok: reply.status === 400 || (reply.status === 200 && items.length === 0), items };
}
