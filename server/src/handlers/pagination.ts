/**
 * The list rule shared by every list endpoint: `starting_after` must be an item of this very list (same
 * project, same resource, matching the filters); anything else is a 400 that reads exactly like an id that
 * never existed, so another project's ids cannot be probed.
 */
import { badRequest } from "../http/errors.ts";
import { pageAfter, pageAfterMerged, type Compare, type Page } from "../model/sorted.ts";

export interface ListRequest<T> {
  sorted: readonly T[];
  order: Compare<T>;
  limit: number;
  startingAfter?: string;
  lookup: (id: string) => T | undefined;
  /** Membership of the list beyond the index (filters); items failing it are skipped and rejected as cursors. */
  filter?: (item: T) => boolean;
  /** Instead of `sorted`: disjoint lists in the same order whose union is the list (merged page by page). */
  merged?: ReadonlyArray<readonly T[]>;
  /** Noun for the error message: `No such <noun>: <id>`. */
  noun: string;
}

export function listPage<T>(r: ListRequest<T>): Page<T> {
  let cursor: T | undefined;
  if (r.startingAfter !== undefined) {
    cursor = r.lookup(r.startingAfter);
    if (!cursor || (r.filter && !r.filter(cursor))) throw badRequest(`No such ${r.noun}: ${r.startingAfter}`);
  }
  // The merged lists are the filtered list itself: the filter only vets the cursor.
  if (r.merged) return pageAfterMerged(r.merged, r.order, cursor, r.limit);
  return pageAfter(r.sorted, r.order, cursor, r.limit, r.filter);
}

export function envelope<T, U>(page: Page<T>, view: (item: T) => U): { object: "list"; data: U[]; has_more: boolean } {
  return { object: "list", data: page.data.map(view), has_more: page.has_more };
}
