/**
 * Walking a list page by page from a cursor, for the units that judge a walk as it came (ties.ts, releases.ts,
 * left-cursors.ts, filtered-walks.ts), and what is wrong with how one listed a tie.
 */
import type { Reply } from "../http.ts";
import type { CoverEnv } from "./unit.ts";

export interface Walked {
  ids: string[];
  /** The items listed, as they came. */
  items: any[];
  pages: Reply[];
  /** Why the walk stopped before the list's end, if it did. */
  broken?: string;
  /** It stopped at `maxPages` with more to come. */
  capped?: boolean;
}

/**
 * Walks `path` a page of `limit` at a time from `after` until `until` is listed or the list ends (at most `maxPages`);
 * `between` runs after each page is read, before the next is asked for. Not Http.walk: this one starts from a cursor
 * and stops at an item (short in a shared project), goes through the unit's recorded requests, and returns a broken
 * page for the unit to judge, where Http.walk throws.
 */
export async function walk(env: CoverEnv, path: string, limit: number, after: string | undefined, until: string | undefined, maxPages: number, between?: (n: number, data: any[], ids: string[]) => Promise<void>): Promise<Walked> {
  const ids: string[] = [];
  const items: any[] = [];
  const pages: Reply[] = [];
  const sep = path.includes("?") ? "&" : "?";
  for (let n = 0; n < maxPages; n++) {
    const reply = await env.req(`${path}${sep}limit=${limit}${after ? `&starting_after=${encodeURIComponent(after)}` : ""}`);
    pages.push(reply);
    const data = reply.body?.data;
    if (reply.status !== 200 || !Array.isArray(data)) return { ids, items, pages, broken: `a page answered ${reply.status}${Array.isArray(data) ? "" : " without a list"}` };
    ids.push(...data.map((x: any) => x?.id));
    items.push(...data);
    await between?.(n, data, ids);
    if (until !== undefined && ids.includes(until)) return { ids, items, pages };
    if (reply.body.has_more !== true || data.length === 0) return { ids, items, pages };
    after = data[data.length - 1]?.id;
  }
  return { ids, items, pages, broken: `${maxPages} pages did not reach the end`, capped: true };
}

/** What is wrong with `ids` listing `group` (any order among them) then `last`, each once; "" when nothing is. */
export function tieProblem(ids: string[], group: string[], last: string | undefined): string {
  const twice = ids.find((id, k) => ids.indexOf(id) !== k);
  if (twice) return `${twice} is listed twice`;
  const missing = group.filter((id) => !ids.includes(id));
  if (missing.length) return `${missing.length} of the ${group.length} items created at that instant never listed (${missing.join(", ")})`;
  if (last !== undefined) {
    const at = ids.indexOf(last);
    if (at < 0) return `the item created after them (${last}) never listed`;
    const before = ids.slice(0, at);
    const out = before.filter((id) => !group.includes(id));
    if (out.length) return `${out.join(", ")} listed among the items created at that instant, which are not`;
    if (before.length !== group.length) return `the item created after them (${last}) listed before all of them`;
  }
  return "";
}
