/**
 * A page of a list kept in a table, in the list's order (`created_at` or another instant, then `id`, newest or oldest first), after a
 * cursor that must be an item of this very list (else a 400 that reads like an id that never existed, as
 * handlers/pagination.ts answers on the other stores). One keyset query on the index of that order: O(page).
 */
import { badRequest } from "../../http/errors.ts";
import type { Page } from "../../model/sorted.ts";
import type { PgBackend } from "./backend.ts";

export interface KeysetList {
  /** The table, and what of a row the page shows (default its `doc`); both written in code, never from input. */
  table: string;
  select?: string;
  /** The list's conditions, with `values` as $1, $2... */
  where: string;
  values: unknown[];
  newestFirst: boolean;
  /** The column of the list's order before `id` (default `created_at`), written in code, never from input. */
  orderBy?: string;
  /** For the error: `No such <noun>: <id>`. */
  noun: string;
}

export async function keysetPage<T>(backend: PgBackend, list: KeysetList, startingAfter: string | undefined, limit: number): Promise<Page<T>> {
  const params = [...list.values];
  const at = list.orderBy ?? "created_at";
  let after = "";
  if (startingAfter !== undefined) {
    params.push(startingAfter);
    const { rows } = await backend.query<{ at: string }>(`SELECT ${at} AS at FROM ${list.table} WHERE ${list.where} AND id = $${params.length}`, params);
    if (rows.length === 0) throw badRequest(`No such ${list.noun}: ${startingAfter}`);
    params.push(rows[0].at);
    after = ` AND (${at}, id) ${list.newestFirst ? "<" : ">"} ($${params.length}, $${params.length - 1})`;
  }
  params.push(limit + 1);
  const order = list.newestFirst ? `${at} DESC, id DESC` : `${at}, id`;
  const { rows } = await backend.query<{ doc: T }>(
    `SELECT ${list.select ?? "doc"} AS doc FROM ${list.table} WHERE ${list.where}${after} ORDER BY ${order} LIMIT $${params.length}`,
    params,
  );
  return { data: rows.slice(0, limit).map((r) => r.doc), has_more: rows.length > limit };
}
