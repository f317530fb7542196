/** paginate: every item of a list, page after page, following `starting_after` until `has_more` is false. */
import type { paths } from "../../generated/api.d.ts";
import type { ApiClient } from "./client.ts";
import { ApiError } from "./errors.ts";

/** The list operations of the contract. */
export type ListPath = {
  [P in keyof paths]: paths[P] extends { get: { responses: { 200: { content: { "application/json": { object: "list" } } } } } } ? P : never;
}[keyof paths];

type Get<P extends ListPath> = paths[P]["get"];
export type ItemOf<P extends ListPath> = Get<P>["responses"][200]["content"]["application/json"]["data"][number];
type Query<P extends ListPath> = Get<P>["parameters"] extends { query?: infer Q } ? Omit<NonNullable<Q>, "starting_after"> : never;
type PathParams<P extends ListPath> = Get<P>["parameters"] extends { path: infer X } ? X : never;

export type PaginateParams<P extends ListPath> = { query?: Query<P> } & (PathParams<P> extends never ? { path?: never } : { path: PathParams<P> });

export async function* paginate<P extends ListPath>(client: ApiClient, path: P, params: PaginateParams<P> = {} as PaginateParams<P>): AsyncGenerator<ItemOf<P>> {
  let after: string | undefined;
  // Bounded so a server that never ends a list cannot hang the caller.
  for (let page = 0; page < 1_000_000; page++) {
    const query = { ...(params.query as object), ...(after ? { starting_after: after } : {}) };
    const { data, error, response } = await (client.GET as (p: string, init: unknown) => Promise<{ data?: any; error?: unknown; response: Response }>)(path, { params: { query, path: params.path } });
    if (error !== undefined || !data) throw new ApiError(response.status, error);
    yield* data.data as Array<ItemOf<P>>;
    if (!data.has_more || data.data.length === 0) return;
    const last: string = data.data[data.data.length - 1].id;
    if (last === after) throw new Error(`${path}: the server returned the same cursor twice (${last})`);
    after = last;
  }
}
