/**
 * The planted-items quota of several processes on one PostgreSQL: a row per tenant, taken by one statement in the
 * planting change (rolled back with it) that the row's constraint refuses past the cap (migration 6), so two processes
 * never both take the last unit and no process counts anything in memory. The statement is sent with the COMMIT, so
 * the row is locked only while the database runs it.
 */
import pg from "pg";
import type { SharedQuota } from "../../model/tenant-limits.ts";
import type { PgBackend, Query } from "./backend.ts";

const TAKE = "INSERT INTO planted (tenant, n, cap) VALUES ($1, $2, $3) ON CONFLICT (tenant) DO UPDATE SET n = planted.n + excluded.n, cap = excluded.cap";
const CONSTRAINT = "planted_within_cap";

export class PgPlanted implements SharedQuota {
  constructor(private readonly backend: PgBackend) {}

  take(tenant: string, n: number, cap: number, refusal: (count: number) => Error): Promise<void> {
    // Refused: the count it names is read by a statement of its own, after the refused change.
    const refused = async (err: unknown, query: Query) => {
      if (!(err instanceof pg.DatabaseError && err.code === "23514" && err.constraint === CONSTRAINT)) return null;
      const now = await query<{ n: string }>("SELECT n FROM planted WHERE tenant = $1", [tenant]);
      return refusal(Number(now.rows[0]?.n ?? 0));
    };
    return this.backend.atCommit(TAKE, [tenant, n, cap], refused);
  }
}
