/**
 * Whole-value comparison, as every judge that predicts a response compares it: the covering phase, the model and the
 * proxy's memory. Member order of objects aside, and an instant equal to another writing of itself.
 */
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Two writings of one instant (`...Z` and `...+00:00`): the seed fixes ISO 8601 in UTC to the millisecond, not which of
 * its forms, and the form is judged apart (fields.timestamps).
 */
export function sameInstant(a: unknown, b: unknown): boolean {
  return typeof a === "string" && typeof b === "string" && INSTANT.test(a) && INSTANT.test(b) && Date.parse(a) === Date.parse(b);
}

/**
 * Deep equality of JSON values, member order of objects aside. A timestamp member (`..._at`, `timestamp`) equals
 * another writing of the same instant.
 */
export function same(a: unknown, b: unknown, key?: string): boolean {
  if (a === b) return true;
  if (key !== undefined && (key.endsWith("_at") || key === "timestamp") && sameInstant(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((x, k) => same(x, (b as unknown[])[k]));
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  return same(ka, kb) && ka.every((k) => same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], k));
}

/** Where two JSON values differ first, as a path and the two values (for failure messages). */
export function firstDifference(got: unknown, want: unknown, path = ""): string {
  if (same(got, want, path.slice(path.lastIndexOf("/") + 1) || undefined)) return "";
  if (typeof got === "object" && typeof want === "object" && got !== null && want !== null && Array.isArray(got) === Array.isArray(want)) {
    const keys = new Set([...Object.keys(got), ...Object.keys(want)]);
    for (const k of keys) {
      const d = firstDifference((got as any)[k], (want as any)[k], `${path}/${k}`);
      if (d) return d;
    }
  }
  return `${path || "/"}: got ${JSON.stringify(got)?.slice(0, 160)}, predicted ${JSON.stringify(want)?.slice(0, 160)}`;
}

/**
 * Where the members of `got` that `want` names first differ from it, "" when they agree: a judge that predicts some
 * of a body's fields, the rest being the implementation's or judged apart.
 */
export function fieldsDiffer(got: unknown, want: Record<string, unknown>): string {
  return firstDifference(Object.fromEntries(Object.keys(want).map((k) => [k, (got as Record<string, unknown> | undefined)?.[k]])), want);
}

/** Two webhook URLs that are one URL (a service may write it normalized). */
export const sameUrl = (a: unknown, b: unknown): boolean => {
  try {
    return a === b || (typeof a === "string" && typeof b === "string" && new URL(a).href === new URL(b).href);
  } catch {
    return false;
  }
};

/** Two lists of events naming the same events (order and repeats aside). */
export const sameEvents = (a: unknown, b: unknown): boolean => Array.isArray(a) && Array.isArray(b) && same([...new Set(a.map(String))].sort(), [...new Set(b.map(String))].sort());
