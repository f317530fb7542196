/** The seed's usage windows (Limits: weekly Monday to Sunday UTC; the billing period as the calendar month, UTC). */

const DAY = 86_400_000;

/** Whether a study read is within all its usage limits: every capped window's `used` below its `limit`. */
export const withinLimits = (s: any): boolean => (["weekly", "monthly"] as const).every((k) => s?.limits?.[k]?.limit === null || s?.limits?.[k]?.used < s?.limits?.[k]?.limit);

/** Monday 00:00 UTC of the week holding `ms`. */
export const weekStart = (ms: number) => {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) - ((d.getUTCDay() + 6) % 7) * DAY;
};

/** The first instant of the UTC calendar month holding `ms`. */
export const monthStart = (ms: number) => {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
};
