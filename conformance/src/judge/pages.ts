/**
 * The seed's pagination rules and a list's order, judged on the items a service returned. Used by the pagination
 * check on its walks and by the proxy on every page that passes through it.
 */
import { contract, rules, seed } from "../rules.ts";

export const paginationRules = rules("pagination", {
  "each-once": seed("Endpoints: limit and starting_after; List envelope", "walking a list with any limit in 1..100 returns every item exactly once", ["endpoints.starting-after", "endpoints.next-page", "list.data"]),
  "has-more": seed("List envelope: has_more", "has_more is true exactly when another page exists, and every page before the last is full", ["list.has-more", "endpoints.next-page"]),
  "walk-ends": seed("Endpoints: request the next page with starting_after", "a walk ends: every page answers 200 and no page ends with an earlier cursor", ["endpoints.next-page"]),
  "default-limit": seed("Endpoints: limit default 20", "without limit a page has 20 items (or all, when fewer)", ["endpoints.limit", "limits.page-size"]),
  "max-page-size": seed("Limits: page size default 20, maximum 100; Endpoints: limit min 1, max 100", "every list accepts limit=100 and answers a page of min(100, n) items", ["endpoints.limit", "limits.page-size"]),
  order: seed("Endpoints: releases and chats newest first, messages oldest first", "releases by merged_at and chats by created_at descending, messages by created_at ascending", ["endpoints.order", "endpoints.list-releases", "endpoints.list-chats", "endpoints.list-messages", "release.merged-at", "chat.created-at", "message.created-at"]),
  "limit-range": seed("Endpoints: limit min 1, max 100; Errors: 400", "limit 0, 101, -1, 1.5 or abc answers 400", ["endpoints.limit", "errors.400"]),
  "limit-empty": contract("pagination parameters", "an empty `limit=` answers 400 (not the default page)"),
  "messages-cursor": seed("Errors 4, 5", "on messages, a non-UUID starting_after is 400 `Invalid parameters`; a UUID that is not a visible message of the chat is 400 `No such message: <id>`", ["endpoints.messages-validation", "endpoints.messages-unknown-cursor"]),
  "pinned-order": contract("ordering", "studies and interviews by created_at descending, simulation deliveries by scheduled_at ascending"),
  ties: contract("ordering: ties by id", "items with equal sort keys are ordered by id in the list's direction, so identical calls are byte-identical"),
  cursor: contract("cursors", "a starting_after that is not an item of that list (unknown, non-UUID, another list's, another project's) is a 400 on every list"),
  "stable-under-writes": contract("keyset pagination", "interviews created during a walk neither repeat nor hide the interviews that existed before it"),
});

export interface ListSpec {
  path: string;
  /** Timestamp field and direction of the order; ties are broken by id in the same direction. */
  key: string;
  desc: boolean;
  /** Whether the seed states this list's order (else our contract pins it). */
  seedOrder: boolean;
}

/** The first order problem of a list, judged at the primary key (seed or contract) or at ties (contract). */
export function orderProblem(items: any[], spec: ListSpec, ties: boolean): string | null {
  for (let i = 1; i < items.length; i++) {
    const a = items[i - 1];
    const b = items[i];
    const key = a[spec.key] < b[spec.key] ? -1 : a[spec.key] > b[spec.key] ? 1 : 0;
    const cmp = key || (ties ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : 0);
    if (spec.desc ? (ties ? cmp <= 0 : cmp < 0) : ties ? cmp >= 0 : cmp > 0) {
      return `items ${i - 1} and ${i} are out of order (${spec.key} ${spec.desc ? "descending" : "ascending"}${ties ? ", ties by id in the same direction" : ""}): ${a.id} ${a[spec.key]} then ${b.id} ${b[spec.key]}`;
    }
  }
  return null;
}

