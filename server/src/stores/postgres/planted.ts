/**
 * The planted-items quota of several processes on one PostgreSQL, in four rows per tenant (migration 11): a take
 * (`planted_take`) reads the tenant's sum and, when the cap leaves room, adds to one row chosen at random, in the
 * planting change (rolled back with it); past the cap it raises SB001, which refuses the change. A tenant's plants on
 * several connections spread over the rows, and only those on one row wait for each other's commit (a single row made
 * every one wait): the quota no longer serializes a tenant's writes. It is a cap against abuse, not a count the seed defines: takes in flight at once see
 * each other only once committed, so the sum may pass the cap by what they add (at most the requests in flight), and
 * every take after them is refused. The statement needs no answer, so it is sent with the change's COMMIT.
 */
import { randomInt } from "node:crypto";
import pg from "pg";
import type { SharedQuota } from "../limits.ts";
import type { PgBackend } from "./backend.ts";

/**
 * Rows per tenant: up to four takes of a tenant at once, on any processes, without waiting for each other. More rows
 * cost every take a longer sum: side by side on three processes, sixteen rows wrote 0.83x the studies per second of
 * one row, four 0.96x (BENCHMARKS.md).
 */
export const SHARDS = 4;
/** The SQLSTATE `planted_take` refuses with; the count is its detail. */
const PAST_CAP = "SB001";
/** Over a `VALUES` list, so a group commit takes for all its plants in one statement (batched.ts). */
const PLANTED_TAKE = "SELECT planted_take(v.t, v.s, v.k, v.cap) FROM (VALUES ($1::text, $2::smallint, $3::bigint, $4::bigint)) AS v(t, s, k, cap)";

export class PgPlanted implements SharedQuota {
  constructor(private readonly backend: PgBackend) {}

  take(tenant: string, n: number, cap: number, refusal: (count: number) => Error): Promise<void> {
    const refused = async (err: unknown) => (err instanceof pg.DatabaseError && err.code === PAST_CAP ? refusal(Number(err.detail)) : null);
    return this.backend.atCommit(PLANTED_TAKE, [tenant, randomInt(SHARDS), n, cap], refused);
  }
}
