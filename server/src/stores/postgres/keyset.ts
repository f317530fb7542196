/**
 * A page of a list kept in a table, in the list's order (`created_at`, then `id`, newest or oldest first), after a
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
  /** For the error: `No such <noun>: <id>`. */
  noun: string;
}

export async function keysetPage<T>(backend: PgBackend, list: KeysetList, startingAfter: string | undefined, limit: number): Promise<Page<T>> {
  const params = [...list.values];
  let after = "";
  if (startingAfter !== undefined) {
    params.push(startingAfter);
    const { rows } = await backend.query<{ created_at: string }>(`SELECT created_at FROM ${list.table} WHERE ${list.where} AND id = $${params.length}`, params);
    if (rows.length === 0) throw badRequest(`No such ${list.noun}: ${startingAfter}`);
    params.push(rows[0].created_at);
    after = ` AND (created_at, id) ${list.newestFirst ? "<" : ">"} ($${params.length}, $${params.length - 1})`;
  }
  params.push(limit + 1);
  const order = list.newestFirst ? "created_at DESC, id DESC" : "created_at, id";
  const { rows } = await backend.query<{ doc: T }>(
    `SELECT ${list.select ?? "doc"} AS doc FROM ${list.table} WHERE ${list.where}${after} ORDER BY ${order} LIMIT $${params.length}`,
    params,
  );
  return { data: rows.slice(0, limit).map((r) => r.doc), has_more: rows.length > limit };
}
